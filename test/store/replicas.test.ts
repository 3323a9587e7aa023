import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient as redisClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client.js';
import { signedHeaders, startSimulator } from '../../src/index.js';
import { start } from '../cli-helpers.js';
import { raw } from '../helpers.js';
import { startHaproxy, startRedis, startReplicas, stopAll } from '../real-parts.js';
import type { Balancer, Replica, RunningRedis } from '../real-parts.js';

/**
 * Issue 59: three replicas of the command line on one real Redis, behind a real load balancer (HAProxy,
 * round-robin), answer as one service (docs/containers.md#several-replicas-on-one-store-redis).
 */

const SECRET = 'replica-secret';
const API_USER = '123456789';
let redis: RunningRedis;
let replicas: Replica[];
let lb: Balancer;
const args = () => ['--secret', SECRET, '--store', redis.url, '--quiet'];

beforeAll(async () => {
  redis = await startRedis();
  replicas = await startReplicas(3, args());
  lb = await startHaproxy(replicas.map((r) => r.url));
}, 60_000);
afterAll(stopAll, 30_000);

/** A control call; its status and JSON answer. */
async function control<T = Record<string, unknown>>(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as T };
}

const client = (baseUrl: string, apiUser = API_USER, secret = SECRET) => createClient({ baseUrl, apiUser, secret });

/** One signed time request's headers, sent as many times as asked. */
function timeHeaders(time = Date.now(), nonce = randomUUID(), apiUser = API_USER, secret = SECRET) {
  const { Authorization, ...rest } = signedHeaders({ apiUser, secret, token: 'svc', time, nonce });
  return { authorization: Authorization, ...rest };
}

async function codesOf(responses: Promise<Response>[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of await Promise.all(responses)) {
    const { code } = (await r.json()) as { code: number };
    counts[code] = (counts[code] ?? 0) + 1;
  }
  return counts;
}

/** A fresh run with the default scenario, made through the balancer (every replica follows). */
async function freshRun(): Promise<void> {
  expect((await control(lb.url, 'POST', '/__sim/scenario', { name: 'default' })).status).toBe(200);
  expect((await control(lb.url, 'POST', '/__sim/run')).status).toBe(200);
}

describe('three replicas on one Redis behind HAProxy', () => {
  it('a 200-way race of one signed request has exactly one winner, however the copies spread', async () => {
    const headers = timeHeaders();
    const sent = Array.from({ length: 200 }, () => fetch(`${lb.url}/v1/svc/time`, { headers }));
    expect(await codesOf(sent)).toEqual({ 15000: 1, [-4034]: 199 });
    // 200 nonces signed at one instant: one time, one winner.
    const at = Date.now() + 1;
    const times = Array.from({ length: 200 }, () => fetch(`${lb.url}/v1/svc/time`, { headers: timeHeaders(at) }));
    expect(await codesOf(times)).toEqual({ 15000: 1, [-4035]: 199 });
  });

  it("a challenge's life crosses replicas: made on one, approved on a second's phone page, read on a third", async () => {
    const user = 'ann@example.com';
    const made = await client(replicas[0].url).newChallenge({ user, challengeType: 'UserKeyAndPattern' });
    expect(made.code).toBe(2025);
    const id = (made.message as { challengeId: string }).challengeId;
    expect((await client(replicas[1].url).status({ user, challengeId: id })).code).toBe(-3091);
    const page = await fetch(`${replicas[1].url}/phone/${id}/approve`, { method: 'POST' });
    expect(page.status).toBe(200);
    expect((await client(replicas[2].url).status({ user, challengeId: id })).code).toBe(3080);
    type Seen = { id: string; state: string; authCode: string; trail: { by: string }[] };
    const seen = await control<Seen[]>(replicas[2].url, 'GET', '/__sim/challenges');
    const kept = seen.json.find((c) => c.id === id)!;
    expect(kept.state).toBe('approved');
    expect(kept.trail.map((s) => s.by)).toEqual(['client', 'phone']);
    // Verified once, through any of them; a cancel after it is refused on another.
    expect(kept.authCode).toMatch(/^\d{6}$/);
    expect((await client(lb.url).verify({ user, challengeId: id, authCode: kept.authCode })).code).toBe(3080);
    expect((await client(replicas[0].url).cancel({ user, challengeId: id })).code).toBe(-2035);
  });

  it("a rule's after and times count every replica's requests once", async () => {
    const scenario = {
      name: 'third-time',
      rules: [{ when: { endpoint: 'time' }, after: 2, times: 1, respond: { code: -5000, message: 'the third' } }],
    };
    expect((await control(replicas[0].url, 'POST', '/__sim/scenario', scenario)).status).toBe(200);
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await client(lb.url).time()).code);
    expect(codes).toEqual([15000, 15000, -5000, 15000, 15000, 15000]);
    await freshRun();
  });

  it("the active scenario, a clock, a claimed API user and its own clock are every replica's at once", async () => {
    const [a, b, c] = replicas.map((r) => r.url);
    const scenario = { name: 'everyone-follows', accounts: { 'locked@example.com': 'locked' } };
    expect((await control(a, 'POST', '/__sim/scenario', scenario)).status).toBe(200);
    for (const url of [b, c])
      expect((await control(url, 'GET', '/__sim/scenarios')).json.active).toBe('everyone-follows');
    const locked = await client(c).newChallenge({ user: 'locked@example.com', challengeType: 'UserKeyAndPattern' });
    expect(locked.code).toBe(-2006);
    // The simulator's clock, stopped on one, read through the others.
    const at = Date.parse('2031-05-06T07:08:09Z');
    expect((await control(b, 'POST', '/__sim/clock/freeze', { at })).status).toBe(200);
    expect((await control(c, 'GET', '/__sim/clock')).json).toMatchObject({ now: at, frozen: true });
    const time = client(a, API_USER, SECRET);
    time.clockOffset = at - Date.now();
    expect((await time.time()).message).toEqual({ 'utc-time': String(at / 1000) });
    // Reset: the scenario's own clock again, on every replica.
    expect((await control(a, 'POST', '/__sim/reset')).status).toBe(200);
    // A worker's API user, claimed on one, signs through another; its own clock moves for every replica.
    const claim = await control<{ apiUser: string; secret: string }>(c, 'POST', '/__sim/api-users');
    expect(claim.status).toBe(201);
    const claimed = claim.json;
    expect((await client(a, claimed.apiUser, claimed.secret).time()).code).toBe(15000);
    const own = `/__sim/api-users/${claimed.apiUser}/clock`;
    expect((await control(a, 'POST', `${own}/freeze`, { at })).status).toBe(200);
    expect((await control(b, 'POST', `${own}/advance`, { by: '1h' })).status).toBe(200);
    expect((await control(c, 'GET', own)).json).toMatchObject({ now: at + 3_600_000, frozen: true });
    expect((await control(c, 'GET', '/__sim/clock')).json).toMatchObject({ frozen: false });
    expect((await control(b, 'DELETE', `/__sim/api-users/${claimed.apiUser}`)).json.released).toBe(true);
    expect((await client(c, claimed.apiUser, claimed.secret).time()).code).toBe(-1001);
    await freshRun();
  });

  it('coverage, findings and the CI gate are over all three replicas', async () => {
    await freshRun();
    // Three workers, each on its own replica, each meeting a different code.
    const workers = await Promise.all(
      replicas.map(async (r) => {
        const claim = await control<{ apiUser: string; secret: string }>(r.url, 'POST', '/__sim/api-users');
        expect(claim.status).toBe(201);
        return claim.json;
      }),
    );
    const [w0, w1, w2] = workers.map((w, i) => client(replicas[i].url, w.apiUser, w.secret));
    expect((await w0.time()).code).toBe(15000);
    expect((await w1.newChallenge({ user: 'bob@example.com', challengeType: 'UserKeyAndPattern' })).code).toBe(2025);
    const replayed = timeHeaders(Date.now(), randomUUID(), workers[2].apiUser, workers[2].secret);
    await fetch(`${replicas[2].url}/v1/svc/time`, { headers: replayed });
    expect(await codesOf([fetch(`${replicas[2].url}/v1/svc/time`, { headers: replayed })])).toEqual({ [-4034]: 1 });
    expect((await w2.time()).code).toBe(15000);
    const verdicts = await Promise.all(
      replicas.map((r) => control(r.url, 'GET', '/__sim/verdict?require=15000,2025,-4034')),
    );
    for (const v of verdicts) expect(v.json).toMatchObject({ status: 0, unmet: [] });
    const missing = await control(replicas[1].url, 'GET', '/__sim/verdict?require=15000,2025,-4034,6020');
    expect(missing.json).toMatchObject({ status: 3, unmet: [6020] });
    const coverage = await Promise.all(replicas.map((r) => control(r.url, 'GET', '/__sim/coverage')));
    for (const c of coverage) expect(c.json.counts).toEqual({ 15000: 3, 2025: 1, [-4034]: 1 });
    // The command line's own gate: a replica started with --require-coverage exits by every replica's requests.
    const gate = await start([...args(), '--port', '0', '--require-coverage', '15000,2025,-4034']);
    try {
      const report = await (await fetch(`${gate.url}/__sim/report?format=markdown`)).text();
      expect(report).toContain('15000');
    } finally {
      gate.child.kill('SIGTERM');
    }
    expect(await gate.exit).toBe(0);
    const failing = await start([...args(), '--port', '0', '--require-coverage', '15000,6020']);
    failing.child.kill('SIGTERM');
    expect(await failing.exit).toBe(3);
  });

  it("the dashboard's explorer, on one replica, is the explorer on every replica: its mistakes are no client's", async () => {
    await freshRun();
    const explored = await control(replicas[0].url, 'POST', '/__sim/explore', { kind: 'bad-signature' });
    expect(explored.status).toBe(200);
    for (const r of replicas) {
      const journal = await control<{ code: number; by?: string }[]>(r.url, 'GET', '/__sim/journal');
      expect(journal.json.map((e) => [e.code, e.by])).toEqual([[-4037, 'explorer']]);
      const findings = await control<{ hints: unknown[] }>(r.url, 'GET', '/__sim/findings');
      expect(findings.json.hints).toEqual([]);
    }
  });

  it('a control read waits until its replica has applied what the store held when asked', async () => {
    await freshRun();
    // 1,500 signed requests put into the log at once, as other replicas would: every replica must apply them all
    // before it answers a read, however far behind it is.
    const writer = redisClient({ url: redis.url });
    await writer.connect();
    try {
      const at = { time: Date.now(), mono: Date.now(), seed: 'AAAAAAAAAAAAAAAAAAAAAA==' };
      const multi = writer.multi();
      for (let i = 0; i < 1500; i++) {
        const request = { method: 'GET', url: '/v1/svc/time', headers: timeHeaders(Date.now() + i), body: '' };
        multi.xAdd('mfa-sim:log', '*', { c: JSON.stringify({ by: `elsewhere:${i}`, at, request }) });
      }
      await multi.exec();
    } finally {
      writer.destroy();
    }
    const counts = await Promise.all(replicas.map((r) => control(r.url, 'GET', '/__sim/coverage')));
    for (const c of counts) expect(c.json.counts).toEqual({ 15000: 1500 });
  });

  it('a replica killed mid-run and started again reads the same state, and the verdict counts both sides', async () => {
    await freshRun();
    const before = timeHeaders();
    expect((await fetch(`${lb.url}/v1/svc/time`, { headers: before })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await client(lb.url).time()).code).toBe(15000);
    await replicas[1].kill();
    // HAProxy sends a request whose replica refuses the connection to another.
    for (let i = 0; i < 6; i++) expect((await client(lb.url).time()).code).toBe(15000);
    await replicas[1].restart();
    const back = replicas[1].url;
    expect((await control(back, 'GET', '/__sim/coverage')).json.counts).toEqual({ 15000: 12 });
    // The nonce used before it was killed is a replay on it.
    expect(await codesOf([fetch(`${back}/v1/svc/time`, { headers: before })])).toEqual({ [-4034]: 1 });
    const journals = await Promise.all(
      replicas.map((r) => control<{ seq: number; code: number }[]>(r.url, 'GET', '/__sim/journal')),
    );
    const seqs = journals.map((j) => j.json.map((e) => `${e.seq}:${e.code}`));
    expect(seqs[1]).toEqual(seqs[0]);
    expect(seqs[2]).toEqual(seqs[0]);
    expect(seqs[0]).toHaveLength(13);
  });

  it('a replica started after a snapshot reads it and what followed; the log is trimmed', async () => {
    await freshRun();
    // Over a thousand changes: a snapshot is kept, and the log trimmed to what follows the one before.
    // Sent to the replicas in turn, not through HAProxy: this test is about the snapshot, and 2,600 requests through a
    // balancer meet its keep-alive races now and then (a connection closed as it is reused).
    const t0 = Date.now();
    for (let sent = 0; sent < 2600; sent += 100) {
      const batch = Array.from({ length: 100 }, (_, i) => timeHeaders(t0 + sent + i));
      const url = (i: number) => `${replicas[i % 3].url}/v1/svc/time`;
      await Promise.all(batch.map((headers, i) => fetch(url(i), { headers })));
    }
    const snapshot = JSON.parse(String(await redis.command('GET', 'mfa-sim:snapshot'))) as { id: string };
    expect(snapshot.id).toMatch(/^\d+-\d+$/);
    expect(Number(await redis.command('XLEN', 'mfa-sim:log'))).toBeLessThan(2600);
    const late = await start([...args(), '--port', '0']);
    try {
      const coverage = await control(late.url, 'GET', '/__sim/coverage');
      expect(coverage.json.counts).toEqual({ 15000: 2600 });
    } finally {
      late.child.kill('SIGTERM');
      await late.exit;
    }
  }, 60_000);

  it('Redis going away is -5000 naming the store, and the replicas carry on once it is back', async () => {
    await freshRun();
    expect((await client(lb.url).time()).code).toBe(15000);
    await redis.stop();
    const away = await client(lb.url).time();
    expect(away.code).toBe(-5000);
    expect(away.status).toBe(500);
    expect(away.text).toContain(`mfa-sim's store ${redis.url} cannot be reached`);
    const read = await control(replicas[2].url, 'GET', '/__sim/coverage');
    expect(read.status).toBe(503);
    expect(String(read.json.error)).toContain('cannot be reached');
    await redis.restart();
    // Each replica reconnects on its own; the first puts its state back into the empty store.
    await expect.poll(async () => (await client(lb.url).time()).code, { timeout: 10_000, interval: 200 }).toBe(15000);
    for (const r of replicas) {
      await expect
        .poll(async () => (await control(r.url, 'GET', '/__sim/coverage')).json.counts, { timeout: 10_000 })
        .toMatchObject({ 15000: expect.any(Number) as number });
    }
    const counts = await Promise.all(replicas.map((r) => control(r.url, 'GET', '/__sim/coverage')));
    for (const c of counts) expect(c.json.counts).toEqual(counts[0].json.counts);
    // Nothing was recorded of the request it could not take.
    expect(counts[0].json.counts).not.toHaveProperty('-5000');
    const late = await start([...args(), '--port', '0']);
    try {
      expect((await control(late.url, 'GET', '/__sim/coverage')).json.counts).toEqual(counts[0].json.counts);
    } finally {
      late.child.kill('SIGTERM');
      await late.exit;
    }
    for (const r of replicas) expect(r.started().child.exitCode).toBeNull();
  }, 60_000);
});

describe("the published clients' captured requests, through the balancer", () => {
  const dir = join(__dirname, '..', 'fixtures', 'client-requests');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('get what one process gives, each answered and then replayed', async () => {
    expect(files.length).toBe(19);
    for (const file of files) {
      const fx = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        simulator: { token: string; apiUser: string; secret: string; strict: boolean; clockFrozenAtMs: number };
        request: { method: string; path: string; headers: [string, string][]; body: string };
      };
      const { token, apiUser, secret, strict, clockFrozenAtMs } = fx.simulator;
      const scenario = {
        name: 'fixture',
        token,
        strict,
        responseStyle: 'sdk' as const,
        apiUsers: [{ id: apiUser, secret }],
        clock: { frozenAt: clockFrozenAtMs },
      };
      const one = await startSimulator({ ...scenario, publicUrl: 'http://sim.test', secret: SECRET });
      try {
        expect((await control(lb.url, 'POST', '/__sim/scenario', scenario)).status).toBe(200);
        const { method, path, headers, body } = fx.request;
        for (let round = 0; round < 2; round++) {
          const want = await raw(one.url, method, path, headers, body === '' ? undefined : body);
          const got = await raw(lb.url, method, path, headers, body === '' ? undefined : body);
          expect([file, round, got.status, got.json.code]).toEqual([file, round, want.status, want.json.code]);
          expect(got.json.message === undefined ? undefined : typeof got.json.message).toBe(
            want.json.message === undefined ? undefined : typeof want.json.message,
          );
        }
      } finally {
        await one.close();
      }
    }
    await freshRun();
  }, 60_000);
});
