import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/run/finding-types.js';
import { JOURNAL_BODY_CHARS } from '../../src/run/journal.js';
import { challengeEnvelope, clientTime, expectEnvelope, lookupEnvelope, send, simulator } from '../helpers.js';

/**
 * The client doctor's findings at their edges: a well-behaved client shows none; each threshold (drift, staleness,
 * the seconds-or-milliseconds line, the clock's spread) on both sides of its exact value, with the simulator's clock
 * frozen so the distances are exact; what is watched and what is not (an API user id that is not nine digits, an
 * envelope id that is not text or a number, another API user following a challenge); findings worst first and
 * hints most frequent first. The findings one by one: client-findings.test.ts.
 */
const MAIN = { apiUser: '123456789', secret: 'edges-secret' };
const OTHER = { apiUser: '223456789', secret: 'other-secret' };
/** A frozen instant with room on both sides, in milliseconds. */
const T = Date.UTC(2026, 0, 15, 12, 0, 0);

const ids = (list: Finding[]) => list.map((f) => f.id);
const byId = (list: Finding[], id: string) => list.find((f) => f.id === id);

describe('client findings at their edges', async () => {
  const sim = await simulator({
    name: 'edges',
    apiUsers: [
      { id: MAIN.apiUser, secret: MAIN.secret },
      { id: OTHER.apiUser, secret: OTHER.secret },
    ],
  });
  /** Forgets everything and stops the clock at `at`. */
  const frozen = (at = T) => {
    sim.newRun();
    sim.freeze(at);
  };
  const time = (t: number, as = MAIN) => send(sim, '/v1/svc/time', { method: 'GET', as, time: t });
  /** A new challenge signed at `t`, its envelope's utctime `envelopeTime` (default the same instant). */
  const challengeAt = (t: number, extra: Record<string, unknown> = {}, body: Record<string, unknown> = {}) =>
    send(sim, '/v1/svc/challenge', {
      as: MAIN,
      time: t,
      body: challengeEnvelope(MAIN.apiUser, body, { id: randomUUID().slice(0, 20), utctime: String(t), ...extra }),
    });

  it('a client that does everything right shows no finding, not even at the end of the run', async () => {
    sim.newRun();
    sim.unfreeze();
    expectEnvelope(await time(clientTime(sim)), 200, 15000);
    const post = (path: string, env: Record<string, unknown>) => {
      const t = clientTime(sim);
      return send(sim, path, {
        as: MAIN,
        time: t,
        body: { ...env, id: randomUUID().slice(0, 20), utctime: String(t) },
      });
    };
    const created = expectEnvelope(
      await post('/v1/svc/challenge', challengeEnvelope(MAIN.apiUser, { enableQRcode: false })),
      202,
      2025,
    );
    const id = (JSON.parse(created.message) as { challengeId: string }).challengeId;
    // Polled (still waiting for the user) no faster than twice a second.
    for (let i = 0; i < 4; i++) {
      expectEnvelope(await post('/v1/svc/status', lookupEnvelope(MAIN.apiUser, 171, id)), 400, -3091);
      await new Promise((r) => setTimeout(r, 550));
    }
    const other = JSON.parse(
      expectEnvelope(await post('/v1/svc/challenge', challengeEnvelope(MAIN.apiUser)), 202, 2025).message,
    ) as { challengeId: string };
    expectEnvelope(
      await post('/v1/svc/challenge', {
        apiUser: MAIN.apiUser,
        type: 151,
        body: { challengeId: other.challengeId, svcUser: 'user@example.com', status: 'CANCEL' },
      }),
      202,
      2028,
    );
    expectEnvelope(
      await post('/v1/svc/blocked', {
        apiUser: MAIN.apiUser,
        type: 950,
        body: { svcUser: 'user@example.com', ipAddress: '198.51.100.7' },
      }),
      200,
      6020,
    );
    expectEnvelope(await time(clientTime(sim)), 200, 15000);
    sim.expire(id);
    expect(sim.findings(true)).toEqual([]);
    expect(sim.hints()).toEqual([]);
  });

  it('drift-not-corrected: a second -4036 less than 10 s from the first, not one exactly 10 s from it', async () => {
    frozen();
    expectEnvelope(await time(T - 400_000), 400, -4036);
    expectEnvelope(await time(T - 410_000), 400, -4036);
    expect(sim.findings()).toEqual([]);
    expectEnvelope(await time(T - 419_999), 400, -4036);
    expect(byId(sim.findings(), 'drift-not-corrected')).toMatchObject({
      count: 1,
      firstSeq: 3,
      detail: 'request 2 was -410 s off, and this one -420 s',
    });
  });

  it('stale-envelope: more than a second from the signed time, not exactly a second; a number or digits; not a time in seconds', async () => {
    frozen();
    expectEnvelope(await challengeAt(T + 1, { utctime: String(T + 1 - 1000) }), 202, 2025);
    expectEnvelope(await challengeAt(T + 2, { utctime: T + 2 + 1000 }), 202, 2025);
    expect(byId(sim.findings(), 'stale-envelope')).toBeUndefined();
    expectEnvelope(await challengeAt(T + 3, { utctime: T + 3 - 1001 }), 202, 2025);
    expect(byId(sim.findings(), 'stale-envelope')).toMatchObject({
      count: 1,
      firstSeq: 3,
      detail: "the envelope's utctime was 1.0 s before the signed time",
    });
    expectEnvelope(await challengeAt(T + 4, { utctime: String(T + 4 + 2500) }), 202, 2025);
    expect(byId(sim.findings(), 'stale-envelope')).toMatchObject({
      count: 2,
      lastSeq: 4,
      detail: "the envelope's utctime was -2.5 s before the signed time",
    });
    // Not digits, too many digits, or a time in seconds: not judged.
    for (const utctime of [
      '1768478400000x',
      ' 1768478400000',
      '17684784000000000',
      String(Math.floor(T / 1000)),
      true,
    ]) {
      frozen();
      expectEnvelope(await challengeAt(T + 5, { utctime }), 202, 2025);
      expect(byId(sim.findings(), 'stale-envelope'), String(utctime)).toBeUndefined();
    }
  });

  it('stale-envelope: 1e11 ms (1973) is the first envelope time read as milliseconds', async () => {
    frozen(1e11 + 5000);
    expectEnvelope(await challengeAt(1e11 + 5000, { utctime: '99999999999' }), 202, 2025);
    expect(byId(sim.findings(), 'stale-envelope')).toBeUndefined();
    expectEnvelope(await challengeAt(1e11 + 5001, { utctime: '100000000000' }), 202, 2025);
    expect(byId(sim.findings(), 'stale-envelope')).toMatchObject({
      detail: "the envelope's utctime was 5.0 s before the signed time",
    });
  });

  it('clock-drifting: a spread of more than 30 s, not exactly 30 s; the offsets signed, zero as +0.0 s', async () => {
    frozen();
    expectEnvelope(await time(T - 15_000), 200, 15000);
    expectEnvelope(await time(T + 15_000), 200, 15000);
    expect(sim.findings()).toEqual([]);
    expectEnvelope(await time(T + 15_001), 200, 15000);
    expect(byId(sim.findings(), 'clock-drifting')).toMatchObject({
      count: 1,
      firstSeq: 3,
      detail: "from −15.0 s to +15.0 s against the server's clock",
    });
    frozen();
    expectEnvelope(await time(T), 200, 15000);
    expectEnvelope(await time(T + 30_001), 200, 15000);
    expect(byId(sim.findings(), 'clock-drifting')!.detail).toBe("from +0.0 s to +30.0 s against the server's clock");
  });

  it('only an accepted request measures the clock: a refused one between does not spread it', async () => {
    frozen();
    expectEnvelope(await time(T - 20_000), 200, 15000);
    // Refused (a wrong secret), 40 s away from the first: not a measure of the client's clock.
    expectEnvelope(await time(T + 20_000, { apiUser: MAIN.apiUser, secret: 'wrong' }), 400, -4037);
    expectEnvelope(await time(T + 5_000), 200, 15000);
    expect(ids(sim.findings())).toEqual([]);
  });

  it('retry-not-resigned: the nonce is the signed header, whatever other headers ending in -cnonce or starting with x- follow it', async () => {
    const flaky = await simulator({
      name: 'flaky-edges',
      apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
      rules: [{ name: 'drop', when: { endpoint: 'time' }, times: 1, fault: 'reset' }],
    });
    const nonce = randomUUID();
    const noise = () => ({
      'trace-cnonce': randomUUID(),
      'x-request-id': randomUUID(),
      'x-retry-utctime': `soon-${randomUUID()}`,
    });
    await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN, nonce, headers: noise() }).catch(() => undefined);
    expectEnvelope(await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN, nonce, headers: noise() }), 200, 15000);
    expect(ids(flaky.findings())).toEqual(['retry-not-resigned']);
    await flaky.close();
  });

  it('what is not watched: an API user id not of nine digits; an envelope id that is neither text nor a number', async () => {
    sim.newRun();
    sim.unfreeze();
    for (const apiUser of ['12345678', '1234567890', 'x23456789']) {
      for (let i = 0; i < 2; i++) {
        const r = await send(sim, '/v1/svc/challenge', {
          as: { apiUser, secret: MAIN.secret },
          body: challengeEnvelope(apiUser, {}, { id: 'same-id' }),
        });
        expect(r.json.code, apiUser).toBeLessThan(0);
      }
    }
    expect(sim.findings(true)).toEqual([]);
    for (const id of [{}, true, null, ['same']]) {
      sim.newRun();
      for (let i = 0; i < 2; i++)
        await send(sim, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser, {}, { id }) });
      expect(byId(sim.findings(), 'envelope-id-reused'), JSON.stringify(id)).toBeUndefined();
    }
    // A number is an id like any other.
    sim.newRun();
    for (let i = 0; i < 2; i++)
      await send(sim, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser, {}, { id: 4711 }) });
    expect(byId(sim.findings(), 'envelope-id-reused')).toMatchObject({
      count: 1,
      detail: 'request 1 sent the same id',
    });
  });

  it('challenge-abandoned: another API user asking after my challenge does not follow it for me; each one left counts', async () => {
    sim.newRun();
    sim.unfreeze();
    const create = async () =>
      JSON.parse(
        expectEnvelope(
          await send(sim, '/v1/svc/challenge', {
            as: MAIN,
            body: challengeEnvelope(MAIN.apiUser, {}, { id: randomUUID().slice(0, 20) }),
          }),
          202,
          2025,
        ).message,
      ).challengeId as string;
    const mine = await create();
    await send(sim, '/v1/svc/status', { as: OTHER, body: lookupEnvelope(OTHER.apiUser, 171, mine) });
    await create();
    const f = byId(sim.findings(true), 'challenge-abandoned');
    expect(f).toMatchObject({ apiUser: MAIN.apiUser, count: 2, firstSeq: 1, lastSeq: 3 });
    expect(sim.findings(true).filter((x) => x.apiUser === OTHER.apiUser)).toEqual([]);
  });

  it('a finding noted again keeps its figures; one without figures has no detail at all', async () => {
    sim.newRun();
    sim.unfreeze();
    for (let i = 0; i < 2; i++) {
      const env = {
        id: randomUUID().slice(0, 20),
        utctime: String(Date.now()),
        apiUser: MAIN.apiUser,
        type: 150,
        body: JSON.stringify({ svcUser: 'a@example.com', challengeType: 'UserKeyAndPattern' }),
      };
      expectEnvelope(await send(sim, '/v1/svc/challenge', { as: MAIN, body: env }), 202, 2025);
    }
    const [f] = sim.findings();
    expect(f).toEqual({
      id: 'body-as-string',
      severity: 'info',
      apiUser: MAIN.apiUser,
      explanation: expect.any(String),
      firstSeq: 1,
      lastSeq: 2,
      count: 2,
    });
    expect(Object.keys(f)).not.toContain('detail');
  });

  it('findings worst first, and by their first request within a severity', async () => {
    frozen();
    // Left open (found at the end of the run): the first request, though its finding is made after the others.
    expectEnvelope(await challengeAt(T), 202, 2025);
    const env = (t: number, id: string, body: unknown) => ({
      id,
      utctime: String(t),
      apiUser: MAIN.apiUser,
      type: 150,
      body,
    });
    const challenge = (t: number, id: string, body: unknown) =>
      send(sim, '/v1/svc/challenge', { as: MAIN, time: t, body: env(t, id, body) });
    expectEnvelope(
      await challenge(T + 1, 'a', JSON.stringify({ svcUser: 'a@example.com', challengeType: 'UserKeyAndPattern' })),
      202,
      2025,
    );
    expectEnvelope(
      await challenge(T + 2, 'b', {
        svcUser: 'a@example.com',
        challengeType: 'UserKeyAndPattern',
        enableAutoVerify: 'false',
      }),
      202,
      2025,
    );
    expectEnvelope(
      await challenge(T + 3, 'a', { svcUser: 'a@example.com', challengeType: 'UserKeyAndPattern' }),
      202,
      2025,
    );
    expectEnvelope(await time(T - 400_000), 400, -4036);
    expectEnvelope(await time(T - 400_001), 400, -4036);
    expect(sim.findings(true).map((f) => [f.id, f.firstSeq])).toEqual([
      ['drift-not-corrected', 6],
      ['string-booleans', 3],
      ['envelope-id-reused', 4],
      ['challenge-abandoned', 1],
      ['body-as-string', 2],
    ]);
  });

  it('hints most frequent first, then by their first request; one per code, kind and API user; those of auth: log too', async () => {
    sim.newRun();
    sim.unfreeze();
    const wrongSecret = (who: { apiUser: string }) =>
      send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: who.apiUser, secret: 'not-the-secret' } });
    const base64 = () =>
      send(sim, '/v1/svc/time', {
        method: 'GET',
        as: MAIN,
        mutate: (h) =>
          (h.Authorization = h.Authorization.replace(
            /signature=([0-9a-f]+)/,
            (_, hex: string) => `signature=${Buffer.from(hex, 'hex').toString('base64')}`,
          )),
      });
    expectEnvelope(await wrongSecret(MAIN), 400, -4037);
    expectEnvelope(await base64(), 400, -4027);
    expectEnvelope(await wrongSecret(OTHER), 400, -4037);
    expectEnvelope(await wrongSecret(MAIN), 400, -4037);
    expect(sim.hints().map((h) => [h.code, h.id, h.apiUser, h.count, h.firstSeq, h.lastSeq])).toEqual([
      [-4037, 'no-known-mistake', MAIN.apiUser, 2, 1, 4],
      [-4027, 'base64', MAIN.apiUser, 1, 2, 2],
      [-4037, 'no-known-mistake', OTHER.apiUser, 1, 3, 3],
    ]);
    const logging = await simulator({
      name: 'edges-log',
      auth: 'log',
      apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
    });
    expectEnvelope(
      await send(logging, '/v1/svc/time', { method: 'GET', as: { apiUser: MAIN.apiUser, secret: 'not-the-secret' } }),
      200,
      15000,
    );
    expect(logging.hints()).toEqual([
      expect.objectContaining({ code: -4037, id: 'no-known-mistake', apiUser: MAIN.apiUser, count: 1 }),
    ]);
    await logging.close();
  });

  it('a body the journal keeps whole (8,192 characters) is read; one it keeps cut is not', async () => {
    sim.newRun();
    sim.unfreeze();
    /** A challenge whose `body` is a JSON text (body-as-string), the whole request body `length` characters. */
    const sized = (length: number) => {
      const t = clientTime(sim);
      const env = (pad: string) =>
        JSON.stringify({
          id: randomUUID().slice(0, 20),
          utctime: String(t),
          apiUser: MAIN.apiUser,
          type: 150,
          body: JSON.stringify({ svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', pad }),
        });
      const pad = 'p'.repeat(length - env('').length);
      expect(env(pad)).toHaveLength(length);
      return send(sim, '/v1/svc/challenge', { as: MAIN, time: t, body: env(pad) });
    };
    await sized(JOURNAL_BODY_CHARS + 1);
    expect(ids(sim.findings())).not.toContain('body-as-string');
    await sized(JOURNAL_BODY_CHARS);
    expect(byId(sim.findings(), 'body-as-string')).toMatchObject({ count: 1 });
  });

  it("answers that do not count (an x-sim-scenario naming no scenario: the test set-up's mistake) are not the client's", async () => {
    frozen();
    const env = challengeEnvelope(MAIN.apiUser, {}, { id: 'same-id', utctime: String(T) });
    const unrouted = await send(sim, '/v1/svc/challenge', {
      as: MAIN,
      time: T,
      headers: { 'x-sim-scenario': 'no-such-scenario' },
      body: env,
    });
    expect(unrouted.json.code).toBe(-5000);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: MAIN, time: T + 1, body: { ...env, utctime: String(T + 1) } }),
      202,
      2025,
    );
    expect(ids(sim.findings())).not.toContain('envelope-id-reused');
    // The same two requests, both counted: the id reused is found.
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: MAIN, time: T + 2, body: { ...env, utctime: String(T + 2) } }),
      202,
      2025,
    );
    expect(ids(sim.findings())).toContain('envelope-id-reused');
    // Under auth: log every request counts as signed: what does not count is still left out for that.
    const logging = await simulator({
      name: 'edges-log-count',
      auth: 'log',
      apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
    });
    await send(logging, '/v1/svc/challenge', {
      as: MAIN,
      headers: { 'x-sim-scenario': 'no-such-scenario' },
      body: env,
    });
    expectEnvelope(await send(logging, '/v1/svc/challenge', { as: MAIN, body: env }), 202, 2025);
    expect(ids(logging.findings())).not.toContain('envelope-id-reused');
    await logging.close();
  });
});
