import { beforeEach, describe, expect, it } from 'vitest';
import { connect, type ClaimedApiUser, type ClockView } from '../../src/control.js';
import { challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator } from '../helpers.js';

/**
 * A clock for each claimed API user, the parallel workers' unit: four workers on one simulator, one frozen, one an
 * hour ahead, two running, each loading its own scenario per test. Each sees only its own time: in its requests (`now`,
 * the drift check), its challenges, their expiry, scripted presses and auto-verify. The simulator's clock stays
 * everyone else's, and the run's coverage and verdict hold what all four did. Driven over HTTP with real signatures,
 * through the typed control client.
 */

const AT = Date.parse('2032-07-08T09:10:11.000Z');
const HOUR = 3_600_000;

describe('four parallel workers, each with a clock of its own', async () => {
  const sim = await simulator({ secret: 'worker-clocks-secret-93d1' });
  const control = connect(sim.url);
  const workers = await Promise.all([0, 1, 2, 3].map(() => control.claimApiUser()));
  const [frozen, ahead, runA, runB] = workers;
  /** Signing times never repeat (a frozen clock would sign the same millisecond twice: -4035). */
  let tick = 0;
  const as = (w: ClaimedApiUser) => ({ apiUser: w.apiUser, secret: w.secret });
  /** A request signed at the worker's own time (its clock as the simulator shows it), or at `time`. */
  const signed = async (w: ClaimedApiUser, path: string, body: unknown, time?: number) =>
    send(sim, path, { as: as(w), body, time: (time ?? (await w.clock()).now) + (tick++ % 50) });
  const timeOf = async (w: ClaimedApiUser, time?: number) => {
    const r = await send(sim, '/v1/svc/time', {
      method: 'GET',
      as: as(w),
      time: (time ?? (await w.clock()).now) + (tick++ % 50),
    });
    return r;
  };
  const make = async (w: ClaimedApiUser, user: string, extra: Record<string, unknown> = {}) => {
    const body = challengeEnvelope(w.apiUser, { svcUser: user, challengeExpiry: 'ThreeMins', ...extra });
    const r = expectEnvelope(await signed(w, '/v1/svc/challenge', body), 202, 2025);
    return (JSON.parse(r.message) as { challengeId: string }).challengeId;
  };
  const status = async (w: ClaimedApiUser, id: string, user: string) =>
    (await signed(w, '/v1/svc/status', lookupEnvelope(w.apiUser, 171, id, {}, user))).json;
  const near = (clock: ClockView, t: number) => Math.abs(clock.now - t) < 5_000;

  // A scenario per test, for each worker: its clock starts afresh with it (following the simulator's).
  beforeEach(async () => {
    await Promise.all(workers.map((w, i) => w.loadScenario({ name: `worker-${i}`, description: 'one test' })));
    await frozen.freeze(AT);
    await ahead.advance('1h');
  });

  it("each sees only its own time: its clock, its requests' time and their drift check", async () => {
    const [f, a, r1, r2, simulatorClock] = await Promise.all([...workers.map((w) => w.clock()), control.clock()]);
    expect(f).toMatchObject({ now: AT, iso: '2032-07-08T09:10:11.000Z', frozen: true, offsetMs: 0 });
    expect(a.frozen).toBe(false);
    expect(near(a, Date.now() + HOUR)).toBe(true);
    for (const c of [r1, r2, simulatorClock]) expect(near(c, Date.now()) && !c.frozen).toBe(true);
    // The time operation answers each worker's own time.
    const seconds = async (w: ClaimedApiUser) =>
      Number((JSON.parse(expectEnvelope(await timeOf(w), 200, 15000).message) as { 'utc-time': string })['utc-time']);
    expect(await seconds(frozen)).toBe(Math.floor(AT / 1000));
    expect(Math.abs((await seconds(ahead)) * 1000 - (Date.now() + HOUR))).toBeLessThan(5_000);
    expect(Math.abs((await seconds(runA)) * 1000 - Date.now())).toBeLessThan(5_000);
    // Signed at the machine's time: the two that moved their clocks are told their clock drifts; the others are not.
    expectEnvelope(await timeOf(frozen, Date.now()), 400, -4036);
    expectEnvelope(await timeOf(ahead, Date.now()), 400, -4036);
    expectEnvelope(await timeOf(runA, Date.now()), 200, 15000);
    expectEnvelope(await timeOf(runB, Date.now()), 200, 15000);
    // A frozen clock stays where it stopped while real time goes on.
    await new Promise((r) => setTimeout(r, 50));
    expect((await frozen.clock()).now).toBe(AT);
  });

  it("challenges, expiry, scripted presses and auto-verify follow each worker's clock; an advance settles at once", async () => {
    const ignored = new Map<ClaimedApiUser, string>();
    for (const w of workers) ignored.set(w, await make(w, 'ignore@example.com'));
    const approveFrozen = await make(frozen, 'approve@example.com');
    const auto = await make(ahead, 'auto@example.com', { enableAutoVerify: true });
    // The worker an hour ahead moves 4 minutes on: its challenge for ignore@ reads expired in the same breath.
    await ahead.advance('4m');
    const aheadIgnored = await status(ahead, ignored.get(ahead)!, 'ignore@example.com');
    expect([aheadIgnored.code, aheadIgnored.message]).toEqual([-3092, expect.stringMatching(/expired/)]);
    expect((await status(ahead, auto, 'auto@example.com')).code).toBe(3080);
    // No one else's moved.
    for (const w of [frozen, runA, runB])
      expect((await status(w, ignored.get(w)!, 'ignore@example.com')).code).toBe(-3091);
    expect((await status(frozen, approveFrozen, 'approve@example.com')).code).toBe(-3091);
    // The frozen worker moves a second: its scripted person approves, and the trail says so.
    await frozen.advance('1s');
    expect((await status(frozen, approveFrozen, 'approve@example.com')).code).toBe(3080);
    const [approved] = (await frozen.challenges()).filter((c) => c.id === approveFrozen);
    expect(approved.trail.map((s) => [s.state, s.by, Date.parse(s.at) - AT])).toEqual([
      ['waiting', 'client', 0],
      ['approved', 'scenario', 1000],
    ]);
    // The simulator's clock moves those who follow it, never a worker's own.
    await control.advance('4m');
    for (const w of [runA, runB]) expect((await status(w, ignored.get(w)!, 'ignore@example.com')).code).toBe(-3092);
    expect((await status(frozen, ignored.get(frozen)!, 'ignore@example.com')).code).toBe(-3091);
    expect((await frozen.clock()).now).toBe(AT + 1000);
    await control.advance('-4m');
  });

  it("a binding's clock.frozenAt sets that worker's clock; loading one without it follows the simulator's again", async () => {
    await runA.loadScenario({ name: 'stopped', clock: { frozenAt: '2030-01-01T00:00:00Z' } });
    expect(await runA.clock()).toMatchObject({ now: Date.parse('2030-01-01T00:00:00Z'), frozen: true });
    expect(near(await runB.clock(), Date.now())).toBe(true);
    expectEnvelope(await timeOf(runA), 200, 15000);
    await runA.loadScenario({ name: 'running', description: 'no clock of its own' });
    expect(near(await runA.clock(), Date.now())).toBe(true);
    // An API user not claimed has no clock of its own to stop.
    const bound = await fetch(`${sim.url}/__sim/bindings/${sim.apiUser.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scenario: { name: 'stopped', clock: { frozenAt: '2030-01-01T00:00:00Z' } } }),
    });
    expect(bound.status).toBe(400);
    expect(await bound.text()).toMatch(/claimed API user/);
  });

  it('the routes of a clock answer 404 for an API user not claimed, 400 for a bad move, and are in the document', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${sim.url}/__sim/api-users/${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    for (const apiUser of ['999999999', sim.apiUser.id, 'not-an-id']) {
      for (const [method, path, body] of [
        ['GET', 'clock'],
        ['POST', 'clock/freeze', {}],
        ['POST', 'clock/unfreeze', {}],
        ['POST', 'clock/advance', { by: '1m' }],
      ] as const) {
        const r = await call(method, `${apiUser}/${path}`, body);
        expect([r.status, await r.json()]).toEqual([404, { error: expect.stringMatching(/no claimed API user/) }]);
      }
    }
    const bad = await call('POST', `${runB.apiUser}/clock/advance`, { by: 'soon' });
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/^by:/)]);
    const tooFar = await call('POST', `${runB.apiUser}/clock/advance`, { by: '-99999d' });
    expect(tooFar.status).toBe(400);
    // A refused move leaves the worker following the simulator's clock.
    await control.advance('1m');
    expect(near(await runB.clock(), Date.now() + 60_000)).toBe(true);
    await control.advance('-1m');
    const doc = (await (await fetch(`${sim.url}/__sim/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const ops = ['clock', 'clock/freeze', 'clock/unfreeze', 'clock/advance'].map((p) => {
      const item = doc.paths[`/__sim/api-users/{apiUser}/${p}`];
      return Object.entries(item ?? {}).map(([m, op]) => `${m} ${op.operationId}`);
    });
    expect(ops).toEqual([
      ['get getApiUserClock'],
      ['post freezeApiUserClock'],
      ['post unfreezeApiUserClock'],
      ['post advanceApiUserClock'],
    ]);
  });

  it("the run's coverage and verdict hold what all four did", async () => {
    for (const w of workers) expectEnvelope(await timeOf(w), 200, 15000);
    const journal = await control.journal({ code: 15000 });
    expect(new Set(journal.map((e) => e.apiUser))).toEqual(new Set(workers.map((w) => w.apiUser)));
    const coverage = await control.coverage();
    expect(coverage.counts['-4036']).toBe(2);
    expect(coverage.counts['-3092']).toBeGreaterThanOrEqual(3);
    // 3080 came from the frozen worker and the one ahead, -4036 only from them, 15000 from everyone.
    expect(await control.verdict({ required: [15000, 2025, 3080, -3091, -3092, -4036] })).toMatchObject({
      status: 0,
      unmet: [],
    });
    // A released worker's clock goes with it.
    await runB.release();
    expect((await fetch(`${sim.url}/__sim/api-users/${runB.apiUser}/clock`)).status).toBe(404);
  });
});

describe("a claim's clock", async () => {
  const sim = await simulator({ clock: { frozenAt: '2030-05-05T00:00:00Z' } });
  const control = connect(sim.url);

  it("without a scenario of its own, follows the simulator's as it stands; with one that stops it, stops there", async () => {
    await control.advance('1h');
    const plain = await control.claimApiUser();
    expect(await plain.clock()).toMatchObject({ now: Date.parse('2030-05-05T01:00:00Z'), frozen: true });
    const own = await control.claimApiUser({
      scenario: { name: 'own-start', clock: { frozenAt: '2029-01-01T00:00:00Z', offset: '1m' } },
    });
    expect(await own.clock()).toMatchObject({
      now: Date.parse('2029-01-01T00:01:00Z'),
      frozen: true,
      offsetMs: 60_000,
    });
    await control.advance('1h');
    expect((await plain.clock()).now).toBe(Date.parse('2030-05-05T02:00:00Z'));
    expect((await own.clock()).now).toBe(Date.parse('2029-01-01T00:01:00Z'));
  });
});
