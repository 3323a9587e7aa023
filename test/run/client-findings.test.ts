import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINDING_KINDS, type Finding } from '../../src/run/finding-types.js';
import { startSimulator, type RunningSimulator } from '../../src/index.js';
import { challengeEnvelope, clientTime, expectEnvelope, lookupEnvelope, raw, send, simulator } from '../helpers.js';

/**
 * Client findings: what a client does that the service would refuse or only tolerate, watched per API user, each with
 * its id, severity, explanation, first and last request and count; through the front door (real signed requests),
 * in-process and at GET /__sim/findings; a new run per test starts them afresh. Then the published clients' own
 * requests.
 */
const MAIN = { apiUser: '123456789', secret: 'findings-secret' };

const byId = (list: Finding[], id: string) => list.find((f) => f.id === id);

describe('client findings, one by one', async () => {
  const sim = await simulator({ name: 'findings', apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });
  const post = (path: string, body: unknown, extra: Parameters<typeof send>[2] = {}) =>
    send(sim, path, { as: MAIN, body, ...extra });
  const newChallenge = async (body: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => {
    const r = await post(
      '/v1/svc/challenge',
      challengeEnvelope(MAIN.apiUser, body, { id: randomUUID().slice(0, 20), ...extra }),
    );
    return JSON.parse(expectEnvelope(r, 202, 2025).message).challengeId as string;
  };
  const fresh = () => sim.newRun();

  it('starts with none', () => {
    expect(sim.findings()).toEqual([]);
  });

  it('stale-envelope: an envelope utctime more than a second from the signed time, not one within it', async () => {
    fresh();
    const t = clientTime(sim);
    await newChallenge({}, { utctime: String(t - 900) });
    expect(byId(sim.findings(), 'stale-envelope')).toBeUndefined();
    const id = await newChallenge();
    const poll = await post('/v1/svc/status', lookupEnvelope(MAIN.apiUser, 171, id, {}), { time: clientTime(sim) });
    expect(poll.status).toBeLessThan(500);
    const t2 = clientTime(sim);
    await post(
      '/v1/svc/status',
      { ...lookupEnvelope(MAIN.apiUser, 171, id), id: 'poll-1', utctime: String(t2 - 5000) },
      { time: t2 },
    );
    const f = byId(sim.findings(), 'stale-envelope')!;
    expect(f).toMatchObject({
      severity: 'warning',
      apiUser: MAIN.apiUser,
      count: 1,
      explanation: FINDING_KINDS['stale-envelope'].explanation,
    });
    expect(f.detail).toBe("the envelope's utctime was 5.0 s before the signed time");
    expect(f.firstSeq).toBe(sim.journal({ limit: 1 })[0].seq);
  });

  it('envelope-id-reused: the same id in two requests; first and last request and the count', async () => {
    fresh();
    const a = await newChallenge({}, { id: 'same-id' });
    const b = await newChallenge({}, { id: 'same-id' });
    await newChallenge({}, { id: 'same-id' });
    expect(a).not.toBe(b);
    const f = byId(sim.findings(), 'envelope-id-reused')!;
    expect(f).toMatchObject({ count: 2, firstSeq: 2, lastSeq: 3, detail: 'request 2 sent the same id' });
  });

  it('lenient bodies: a JSON string, relaxed JSON, string booleans, a Base64 e-mail, challngeId, 950 on /challenge', async () => {
    fresh();
    const env = (body: unknown, extra: Record<string, unknown> = {}) => ({
      id: randomUUID().slice(0, 20),
      utctime: String(Date.now()),
      apiUser: MAIN.apiUser,
      type: 150,
      body,
      ...extra,
    });
    expectEnvelope(
      await post(
        '/v1/svc/challenge',
        env(JSON.stringify({ svcUser: 'a@example.com', challengeType: 'UserKeyAndPattern' })),
      ),
      202,
      2025,
    );
    expectEnvelope(
      await post('/v1/svc/challenge', env("{ 'svcUser': 'a@example.com', 'challengeType': 'UserKeyAndPattern', }")),
      202,
      2025,
    );
    expectEnvelope(
      await post(
        '/v1/svc/challenge',
        env({ svcUser: 'a@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: 'false' }),
      ),
      202,
      2025,
    );
    expectEnvelope(
      await post(
        '/v1/svc/challenge',
        env({ svcUser: Buffer.from('a@example.com').toString('base64'), challengeType: 'UserKeyAndPattern' }),
      ),
      202,
      2025,
    );
    const id = await newChallenge();
    expectEnvelope(
      await post('/v1/svc/challenge', {
        id: 'c-1',
        utctime: String(Date.now()),
        apiUser: MAIN.apiUser,
        type: 151,
        body: { challngeId: id, svcUser: 'user@example.com', status: 'CANCEL' },
      }),
      202,
      2028,
    );
    expectEnvelope(
      await post('/v1/svc/challenge', env({ svcUser: 'a@example.com', ipAddress: '198.51.100.7' }, { type: 950 })),
      200,
      6020,
    );
    const ids = sim.findings().map((f) => f.id);
    for (const id of [
      'body-as-string',
      'body-relaxed-json',
      'string-booleans',
      'base64-user',
      'challngeid-typo',
      'blocked-on-challenge-endpoint',
    ])
      expect(ids).toContain(id);
    expect(byId(sim.findings(), 'body-as-string')!.severity).toBe('info');
    // An object body with real booleans and a plain address shows none of them.
    fresh();
    await newChallenge({ enableQRcode: true });
    expect(sim.findings()).toEqual([]);
  });

  it('retry-not-resigned: a retry with the nonce of an attempt that got a network fault, or a 5xx', async () => {
    const flaky = await simulator({
      name: 'flaky',
      apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
      rules: [{ name: 'drop', when: { endpoint: 'time' }, times: 1, fault: 'reset' }],
    });
    const nonce = randomUUID();
    await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN, nonce }).catch(() => undefined);
    expectEnvelope(await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN, nonce }), 200, 15000);
    expect(byId(flaky.findings(), 'retry-not-resigned')).toMatchObject({
      severity: 'error',
      firstSeq: 2,
      detail: 'request 1 failed with this nonce',
    });
    // A retry signed again is fine.
    flaky.newRun();
    await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN }).catch(() => undefined);
    expectEnvelope(await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN }), 200, 15000);
    expect(flaky.findings()).toEqual([]);
  });

  it("ids and nonces are the API user's own: another API user sending the same is no reuse and no retry", async () => {
    const other = { apiUser: '987654321', secret: 'other-secret' };
    const two = await simulator({
      name: 'two-clients',
      apiUsers: [
        { id: MAIN.apiUser, secret: MAIN.secret },
        { id: other.apiUser, secret: other.secret },
      ],
      rules: [{ name: 'drop', when: { endpoint: 'time' }, times: 1, fault: 'reset' }],
    });
    const nonce = randomUUID();
    await send(two, '/v1/svc/time', { method: 'GET', as: MAIN, nonce }).catch(() => undefined);
    expectEnvelope(await send(two, '/v1/svc/time', { method: 'GET', as: other, nonce }), 200, 15000);
    for (const as of [MAIN, other])
      expectEnvelope(
        await send(two, '/v1/svc/challenge', { as, body: challengeEnvelope(as.apiUser, {}, { id: 'shared-id' }) }),
        202,
        2025,
      );
    expect(two.findings()).toEqual([]);
    // The same API user sending both again is found, so the two above were told apart, not missed.
    expectEnvelope(await send(two, '/v1/svc/time', { method: 'GET', as: MAIN, nonce }), 200, 15000);
    expectEnvelope(
      await send(two, '/v1/svc/challenge', {
        as: other,
        body: challengeEnvelope(other.apiUser, {}, { id: 'shared-id' }),
      }),
      202,
      2025,
    );
    expect(two.findings().map((f) => [f.id, f.apiUser])).toEqual([
      ['retry-not-resigned', MAIN.apiUser],
      ['envelope-id-reused', other.apiUser],
    ]);
    await two.close();
  });

  it('drift-not-corrected: -4036 twice with the same clock; corrected, it is not a finding; at the end, none accepted after it', async () => {
    fresh();
    const time = (t: number) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: t });
    expectEnvelope(await time(sim.simulator.now() - 400_000), 400, -4036);
    expectEnvelope(await time(sim.simulator.now()), 200, 15000);
    expect(byId(sim.findings(true), 'drift-not-corrected')).toBeUndefined();
    expectEnvelope(await time(sim.simulator.now() - 400_000), 400, -4036);
    expect(byId(sim.findings(true), 'drift-not-corrected')).toMatchObject({
      detail: 'no request was accepted after it',
    });
    expect(byId(sim.findings(), 'drift-not-corrected')).toBeUndefined();
    expectEnvelope(await time(sim.simulator.now() - 401_000), 400, -4036);
    expect(byId(sim.findings(), 'drift-not-corrected')).toMatchObject({
      severity: 'error',
      count: 1,
      detail: expect.stringMatching(/^request \d+ was -400 s off, and this one -401 s$/),
    });
  });

  it('fast-polling: the status of one challenge asked more than twice a second, again and again', async () => {
    fresh();
    const id = await newChallenge();
    for (let i = 0; i < 3; i++) await post('/v1/svc/status', lookupEnvelope(MAIN.apiUser, 171, id));
    expect(byId(sim.findings(), 'fast-polling')).toBeUndefined();
    await post('/v1/svc/status', lookupEnvelope(MAIN.apiUser, 171, id));
    expect(byId(sim.findings(), 'fast-polling')).toMatchObject({
      count: 1,
      detail: '3 polls in a row less than 500 ms apart',
    });
  });

  it('challenge-abandoned: never followed; a challenge still waiting counts only at the end', async () => {
    fresh();
    const followed = await newChallenge();
    await post('/v1/svc/status', lookupEnvelope(MAIN.apiUser, 171, followed));
    const left = await newChallenge();
    expect(byId(sim.findings(), 'challenge-abandoned')).toBeUndefined();
    expect(byId(sim.findings(true), 'challenge-abandoned')).toMatchObject({ count: 1, severity: 'info' });
    sim.expire(left);
    expect(byId(sim.findings(), 'challenge-abandoned')).toMatchObject({ count: 1 });
  });

  it("clock-drifting: the client's distance to the server's clock spreads by more than 30 s; moving the clock starts again", async () => {
    fresh();
    const time = (t: number) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: t });
    await time(sim.simulator.now() - 20_000);
    await time(sim.simulator.now() + 5_000);
    expect(byId(sim.findings(), 'clock-drifting')).toBeUndefined();
    await time(sim.simulator.now() + 15_000);
    expect(byId(sim.findings(), 'clock-drifting')).toMatchObject({
      detail: expect.stringMatching(/^from −20\.\d s to \+15\.\d s against the server's clock$/),
    });
    fresh();
    await time(sim.simulator.now() - 20_000);
    sim.advance('1m');
    await time(sim.simulator.now() + 15_000);
    expect(sim.findings()).toEqual([]);
  });

  it('GET /__sim/findings shows the same, with the hints; reset clears the scenario view, a new run both', async () => {
    fresh();
    await newChallenge({}, { id: 'twice' });
    await newChallenge({}, { id: 'twice' });
    await send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: MAIN.apiUser, secret: 'wrong' } });
    const findingsAt = async (query = '') =>
      (await (await fetch(`${sim.url}/__sim/findings${query}`)).json()) as {
        findings: Finding[];
        hints: { code: number; id: string; count: number }[];
      };
    const answer = await findingsAt();
    expect(answer.findings).toEqual(sim.findings());
    expect(answer.findings.map((f) => f.id)).toEqual(['envelope-id-reused']);
    expect(answer.hints).toEqual([
      expect.objectContaining({ code: -4037, id: 'no-known-mistake', count: 1, apiUser: MAIN.apiUser }),
    ]);
    expect(await findingsAt('?scope=scenario')).toEqual({ ...answer, observerFailures: [] });
    await fetch(`${sim.url}/__sim/reset`, { method: 'POST' });
    // The run goes on: what the suite is judged on survives a reset (and the two challenges the reset forgot were
    // never followed); the scenario's own view starts afresh.
    const afterReset = await findingsAt();
    expect(afterReset.hints).toEqual(answer.hints);
    expect(afterReset.findings.map((f) => [f.id, f.count])).toEqual([
      ['envelope-id-reused', 1],
      ['challenge-abandoned', 2],
    ]);
    expect(await findingsAt('?scope=scenario')).toEqual({ findings: [], hints: [], observerFailures: [] });
    await fetch(`${sim.url}/__sim/run`, { method: 'POST' });
    expect(await findingsAt()).toEqual({ findings: [], hints: [], observerFailures: [] });
    expect((await fetch(`${sim.url}/__sim/findings?scope=week`)).status).toBe(400);
  });

  it('never shows a secret a client sent where it does not belong', async () => {
    fresh();
    const r = await send(sim, '/v1/svc/time', {
      method: 'GET',
      as: MAIN,
      mutate: (h) => (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature="${MAIN.secret}"`)),
    });
    expectEnvelope(r, 400, -4027);
    expect(JSON.stringify(await (await fetch(`${sim.url}/__sim/findings`)).json())).not.toContain(MAIN.secret);
    expect(JSON.stringify(sim.hints())).not.toContain(MAIN.secret);
  });
});

interface Fixture {
  simulator: { token: string; apiUser: string; secret: string; clockFrozenAtMs: number };
  request: { method: string; path: string; headers: [string, string][]; body: string };
}
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'client-requests', name), 'utf8')) as Fixture;

describe("the published clients' own requests, replayed", () => {
  async function replay(...names: string[]): Promise<RunningSimulator> {
    const first = fixture(names[0]);
    const sim = await startSimulator({
      token: first.simulator.token,
      apiUser: first.simulator.apiUser,
      secret: first.simulator.secret,
      responseStyle: 'sdk',
      clock: { frozenAt: first.simulator.clockFrozenAtMs },
    });
    for (const name of names) {
      const fx = fixture(name);
      sim.freeze(fx.simulator.clockFrozenAtMs);
      await raw(
        sim.url,
        fx.request.method,
        fx.request.path,
        fx.request.headers,
        fx.request.body === '' ? undefined : fx.request.body,
      );
    }
    return sim;
  }

  it('Python: the broken signature is named: the text of a Python object where the digest belongs', async () => {
    const sim = await replay('python-challenge-new.json', 'python-status.json');
    try {
      const [entry] = sim.journal({ limit: 1 });
      expect(entry.code).toBe(-4027);
      expect(entry.hint?.id).toBe('object-text');
      expect(entry.message).toMatch(
        /Hint: the signature is the text of a Python object \(<hmac\.HMAC object at 0x…>\), not its digest/,
      );
      expect(sim.hints()).toEqual([expect.objectContaining({ code: -4027, id: 'object-text', count: 2 })]);
      // Its bodies carry the e-mail Base64-encoded, but its signature is refused: findings are made only of what an
      // API user signed (anyone could send the same body naming it), so the hint is all it gets until it signs right.
      expect(sim.findings()).toEqual([]);
    } finally {
      await sim.close();
    }
  });

  it('Java: the status poll sends a stale envelope; polling again with it, a reused id', async () => {
    const sim = await replay(
      'java-challenge-autoverify-status-poll.json',
      'java-challenge-autoverify-status-poll.json',
    );
    try {
      const ids = sim.findings().map((f) => f.id);
      expect(ids).toContain('stale-envelope');
      expect(ids).toContain('envelope-id-reused');
      expect(byId(sim.findings(), 'stale-envelope')!.detail).toBe(
        "the envelope's utctime was 1.0 s before the signed time",
      );
    } finally {
      await sim.close();
    }
  });

  it('Java and PHP bodies: relaxed JSON, string booleans, challngeId, 950 on /challenge; JSON in a string', async () => {
    const java = await replay(
      'java-challenge-new.json',
      'java-blocked.json',
      'java-challenge-autoverify-status-poll.json',
    );
    const php = await replay('php-challenge-new.json', 'php-challenge-new-objbody.json');
    try {
      const ids = java.findings().map((f) => f.id);
      for (const id of ['body-relaxed-json', 'string-booleans', 'blocked-on-challenge-endpoint', 'challngeid-typo'])
        expect(ids, id).toContain(id);
      expect(php.findings().map((f) => f.id)).toEqual(['body-as-string']);
    } finally {
      await java.close();
      await php.close();
    }
  });
});
