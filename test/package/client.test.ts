import { describe, expect, it } from 'vitest';
import { ClientError, createClient, type MfaClient } from '../../src/client.js';
import { simulator } from '../helpers.js';
import type { RunningSimulator } from '../../src/index.js';

const user = 'user@example.com';

function clientOf(sim: RunningSimulator, extra: Partial<Parameters<typeof createClient>[0]> = {}): MfaClient {
  return createClient({ baseUrl: sim.url, apiUser: sim.apiUser.id, secret: sim.apiUser.secret, ...extra });
}

describe('the typed client (mfa-sim/client)', () => {
  it('runs a challenge through every operation, with typed, parsed messages, and sends what the journal shows', async () => {
    const sim = await simulator({ seed: 7 });
    const client = clientOf(sim);

    const created = await client.newChallenge({
      user,
      challengeType: 'UserKeyAndPattern',
      challengeExpiry: 'FiveMins',
      enableQRcode: true,
      id: 'mine-1',
    });
    if (!created.ok) throw new Error(created.text);
    expect(created.code).toBe(2025);
    expect(created.status).toBe(202);
    expect(created.id).toBe('mine-1');
    expect(created.message.challengeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.message.challengeQRcodeUrl).toBe(`${sim.url}/phone/${created.message.challengeId}`);
    expect(created.message.challengeQRcode).toMatch(/^data:image\/png;base64,/);
    const challengeId = created.message.challengeId;

    // What the client sent, as the simulator recorded it: the document's envelope, signed with the token's headers.
    const [sent] = sim.journal({ code: 2025 });
    const envelope = JSON.parse(sent.request.body);
    expect(envelope).toMatchObject({
      id: 'mine-1',
      apiUser: sim.apiUser.id,
      type: 150,
      body: { svcUser: user, challengeType: 'UserKeyAndPattern', challengeExpiry: 'FiveMins', enableQRcode: true },
    });
    expect(envelope.utctime).toBe(sent.request.headers['x-svc-utctime']);
    expect(String(sent.request.headers.authorization)).toMatch(
      /^svc-hmac: apiuser=123456789,signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=[0-9a-f]{128}$/,
    );

    const waiting = await client.status({ user, challengeId });
    expect(waiting.ok).toBe(false);
    expect(waiting.code).toBe(-3091);
    expect(typeof waiting.message).toBe('string');

    sim.approve(challengeId, '123456');
    const approved = await client.status({ user, challengeId });
    expect(approved.ok && approved.message).toEqual({ challengeId, status: 'APPROVED' });
    expect((await client.verify({ user, challengeId, authCode: '000000' })).code).toBe(-3087);
    const verified = await client.verify({ user, challengeId, authCode: '123456' });
    expect(verified.ok && verified.message.status).toBe('VERIFIED');

    const second = await client.newChallenge({ user, challengeType: 'UserKeyAndUserPin', enableQRcode: false });
    if (!second.ok) throw new Error(second.text);
    expect(second.message.challengeQRcode).toBeUndefined();
    const cancelled = await client.cancel({ user, challengeId: second.message.challengeId });
    expect(cancelled.ok && cancelled.message).toEqual({ status: 'CANCELLED' });
    expect((await client.cancel({ user, challengeId: second.message.challengeId })).code).toBe(-2035);

    const time = await client.time();
    if (!time.ok) throw new Error(time.text);
    expect(time.code).toBe(15000);
    expect(Number(time.message['utc-time'])).toBe(Math.floor(Date.parse(time.utctime) / 1000));

    const blocked = await client.blocked({ user, ipAddress: '198.51.100.7' });
    expect(blocked.ok && blocked.message).toEqual({ blocked: false });
  });

  it('with a drifting clock gets -4036 by default; with correctClock it corrects from the answer and retries once', async () => {
    const sim = await simulator({ scenario: 'clock-ahead' });
    const plain = clientOf(sim);
    const refused = await plain.newChallenge({ user, challengeType: 'UserKeyAndPattern' });
    expect(refused.code).toBe(-4036);
    expect(refused.retried).toBe(false);
    expect((await plain.time()).code).toBe(-4036);
    expect(plain.clockOffset).toBe(0);

    const correcting = clientOf(sim, { correctClock: true });
    const accepted = await correcting.newChallenge({ user, challengeType: 'UserKeyAndPattern' });
    expect(accepted.code).toBe(2025);
    expect(accepted.retried).toBe(true);
    // The correction is about the scenario's 10 minutes, and it is kept: the next call needs no retry.
    expect(Math.abs(correcting.clockOffset - 600_000)).toBeLessThan(60_000);
    const time = await correcting.time();
    expect(time.code).toBe(15000);
    expect(time.retried).toBe(false);
    // The journal holds both tries of the first call: the refused one and the corrected one.
    expect(
      sim
        .journal()
        .map((e) => e.code)
        .reverse(),
    ).toEqual([-4036, -4036, -4036, 2025, 15000]);
  });

  it('corrects a clock that is ahead of the server too', async () => {
    const sim = await simulator({ scenario: 'clock-behind' });
    const client = clientOf(sim, { correctClock: true });
    const t = await client.time();
    expect(t.code).toBe(15000);
    expect(t.retried).toBe(true);
    expect(client.clockOffset).toBeLessThan(-540_000);
  });

  it('retries only once: a server whose clock a rule keeps refusing gets its -4036 back', async () => {
    const sim = await simulator({ rules: [{ respond: { code: -4036 } }] });
    const client = clientOf(sim, { correctClock: true });
    const answer = await client.time();
    expect(answer.code).toBe(-4036);
    expect(answer.retried).toBe(true);
    expect(sim.journal()).toHaveLength(2);
  });

  it('reads the sdk spelling (utcTime), and refuses the other one when told which to expect', async () => {
    const sim = await simulator({ responseStyle: 'sdk' });
    expect((await clientOf(sim).time()).code).toBe(15000);
    expect((await clientOf(sim, { responseStyle: 'sdk' }).time()).utctime).toMatch(/Z$/);
    await expect(clientOf(sim, { responseStyle: 'document' }).time()).rejects.toThrow(/utctime/);
  });

  it('signs with another token when told, and sends extra headers', async () => {
    const sim = await simulator({ token: 'acme' });
    const client = createClient({
      baseUrl: sim.url,
      apiUser: sim.apiUser.id,
      secret: sim.apiUser.secret,
      token: 'acme',
      headers: { 'x-sim-scenario': 'locked-account' },
    });
    expect((await client.newChallenge({ user: 'locked@example.com', challengeType: 'UserKeyAndPattern' })).code).toBe(
      -2006,
    );
    const [entry] = sim.journal();
    expect(JSON.parse(entry.request.body).body.acmeUser).toBe('locked@example.com');
    expect(entry.request.headers['x-acme-cnonce']).toBeDefined();
  });

  it('a wrong secret is a plain -4037 answer; an answer that is not an envelope is a ClientError', async () => {
    const sim = await simulator({ rules: [{ when: { endpoint: 'status' }, fault: 'proxy-502' }] });
    expect((await createClient({ baseUrl: sim.url, apiUser: sim.apiUser.id, secret: 'wrong' }).time()).code).toBe(
      -4037,
    );
    const err = await clientOf(sim)
      .status({ user, challengeId: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect((err as ClientError).httpStatus).toBe(502);
    expect((err as ClientError).body).toContain('Bad Gateway');
  });

  it('refuses bad options with a clear message', () => {
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', apiUser: '12', secret: 's' })).toThrow(/9 digits/);
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', apiUser: '123456789', secret: '' })).toThrow(/secret/);
    expect(() => createClient({ baseUrl: 'not a url', apiUser: '123456789', secret: 's' })).toThrow();
  });
});
