import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { stringToSign } from '../../src/auth/signature.js';
import { challengeEnvelope, clientTime, expectEnvelope, send, simulator, type SendOptions } from '../helpers.js';

/**
 * `auth: log` accepts every request but writes down, in the journal, exactly the authentication checks that would
 * have failed, and nothing else; `auth: off` skips authentication: no check, no replay memory, the API user taken
 * from wherever the request names one.
 */
const MAIN = { apiUser: '123456789', secret: 'main-secret' };

describe('auth: log', async () => {
  const sim = await simulator({ name: 'log', auth: 'log', apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });
  const time = (opts: SendOptions) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, ...opts });
  const wouldFail = () => sim.journal({ limit: 1 })[0].wouldFail;

  it('a correct request would fail nothing', async () => {
    expectEnvelope(await time({}), 200, 15000);
    expect(wouldFail()).toBeUndefined();
  });

  it('a utctime that is not digits is the one check that would fail (its signature is not judged on it)', async () => {
    expectEnvelope(await time({ mutate: (h) => (h['x-svc-utctime'] = 'soon') }), 200, 15000);
    expect(wouldFail()).toEqual([{ code: -4005, reason: 'x-svc-utctime must be 1 to 16 digits' }]);
  });

  it('a missing apiuser header, with the part right, would fail only the header check', async () => {
    expectEnvelope(await time({ mutate: (h) => delete h['x-svc-apiuser'] }), 200, 15000);
    expect(wouldFail()).toEqual([{ code: -4008, reason: 'x-svc-apiuser header missing' }]);
    // No string to sign is shown where the signature is not what would fail.
    expect(sim.journal({ limit: 1 })[0].expectedStringToSign).toBeUndefined();
  });

  it("a missing apiuser header and an HMAC-SHA256 signature: the doctor names the mistake with the part's API user", async () => {
    const t = String(clientTime(sim));
    const nonce = randomUUID();
    const sha256 = createHmac('sha256', MAIN.secret).update(stringToSign(t, nonce)).digest('hex');
    const sent = await time({
      time: Number(t),
      nonce,
      mutate: (h) => {
        delete h['x-svc-apiuser'];
        h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature=${sha256}`);
      },
    });
    expectEnvelope(sent, 200, 15000);
    expect(wouldFail()?.map((w) => [w.code, w.hint?.id])).toEqual([
      [-4008, undefined],
      [-4027, 'sha256'],
    ]);
  });

  it('a wrong secret would fail the signature, and the journal shows the string expected', async () => {
    const t = clientTime(sim);
    const nonce = randomUUID();
    expectEnvelope(await time({ as: { apiUser: MAIN.apiUser, secret: 'wrong' }, time: t, nonce }), 200, 15000);
    const [e] = sim.journal({ limit: 1 });
    expect(e.wouldFail).toEqual([
      {
        code: -4037,
        reason: 'Signature error',
        hint: {
          id: 'no-known-mistake',
          text: expect.stringContaining(`sign exactly ${JSON.stringify(e.expectedStringToSign)}`),
        },
      },
    ]);
    expect(e.expectedStringToSign).toBe(`x-svc-utctime: ${t}\nx-svc-cnonce: ${nonce}`);
  });

  it('a reused time would fail, and the request is still remembered: its nonce, sent again, would fail too', async () => {
    const t = clientTime(sim);
    const nonce = randomUUID();
    expectEnvelope(await time({ time: t }), 200, 15000);
    expectEnvelope(await time({ time: t, nonce }), 200, 15000);
    expect(wouldFail()).toEqual([
      {
        code: -4035,
        reason: 'this utctime was used before',
        hint: {
          id: 'same-millisecond',
          text: expect.stringMatching(/^request \d+ was signed in the same millisecond/),
        },
      },
    ]);
    expectEnvelope(await time({ nonce }), 200, 15000);
    expect(wouldFail()).toEqual([
      {
        code: -4034,
        reason: 'this nonce was used before',
        hint: { id: 'nonce-reused', text: expect.stringMatching(/^request \d+ used this nonce first/) },
      },
    ]);
  });

  it('no authentication at all would fail every header check; the API user is taken from the envelope', async () => {
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: false, body: challengeEnvelope(MAIN.apiUser) }),
      202,
      2025,
    );
    expect(wouldFail()?.map((w) => w.code)).toEqual([-4000, -4004, -4006, -4008]);
  });
});

describe('auth: off', async () => {
  const sim = await simulator({ name: 'off', auth: 'off', apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });

  it('takes the API user from the header, the Authorization part or the envelope, and remembers nothing', async () => {
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: false, body: challengeEnvelope(MAIN.apiUser) }),
      202,
      2025,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', as: false, headers: { 'x-svc-apiuser': MAIN.apiUser } }),
      200,
      15000,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/time', {
        method: 'GET',
        as: false,
        headers: { authorization: `svc-hmac: apiuser=${MAIN.apiUser}` },
      }),
      200,
      15000,
    );
    // Signed or not, twice with one nonce and one time: off means off.
    const opts: SendOptions = { method: 'GET', as: MAIN, nonce: randomUUID(), time: 1 };
    expectEnvelope(await send(sim, '/v1/svc/time', opts), 200, 15000);
    expectEnvelope(await send(sim, '/v1/svc/time', opts), 200, 15000);
    expect(sim.simulator.world.replayStats()).toEqual({});
    expect(sim.journal().every((e) => e.wouldFail === undefined)).toBe(true);
  });

  it('a request that names no API user, or an unknown one, is -1001 with the reason', async () => {
    expect((await send(sim, '/v1/svc/time', { method: 'GET', as: false })).json.message).toBe(
      'API user validation error: the request names no API user',
    );
    expect(
      (await send(sim, '/v1/svc/time', { method: 'GET', as: false, headers: { 'x-svc-apiuser': 'abc123456' } })).json
        .message,
    ).toBe('API user validation error: the request names no API user');
    expect(
      (await send(sim, '/v1/svc/time', { method: 'GET', as: false, headers: { 'x-svc-apiuser': '555555555' } })).json
        .message,
    ).toBe('API user validation error: API user 555555555 is not known');
  });
});
