import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/index.js';
import { signedHeaders } from '../../src/auth/signature.js';
import { Simulator } from '../../src/simulator/simulator.js';
import type { SimulatorOptions } from '../../src/simulator/options.js';
import { challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator, type Sent } from '../helpers.js';

/**
 * The snapshot (Simulator.state, Simulator.restore): a simulator driven over HTTP with real signatures through a
 * varied run, then its state through JSON into a new simulator made with the same options. The new one reads the same
 * (reports, verdict, coverage, findings, hints, journal, challenges, scenarios, clocks) and answers the same further
 * requests the same: a replayed nonce, a rule half consumed, a picked scenario's and a binding's counts, a challenge
 * approved before, a scripted press that falls due after, a claimed API user on its own clock.
 */

const AT = Date.parse('2031-03-04T05:06:07.000Z');
const SNAP = {
  name: 'snap',
  people: { 'carol@example.com': [{ approve: '30s' }] },
  // The 3rd and 5th time request: -5000.
  rules: [
    { name: 'half', when: { endpoint: 'time' as const }, after: 1, times: 4, every: 2, respond: { code: -5000 } },
  ],
};
const BOUND_USER = { apiUser: '555555555', secret: 'bound-secret-7c1e9a' };
const BOUND = {
  name: 'bound-one',
  apiUsers: [{ id: BOUND_USER.apiUser, secret: BOUND_USER.secret }],
  rules: [
    {
      name: 'every 2nd',
      when: { endpoint: 'time' as const },
      every: 2,
      respond: { code: -5000, message: 'every 2nd' },
    },
  ],
};
const PICK = { 'x-sim-scenario': 'bound-one' };

type Who = { apiUser: string; secret: string };
type Opts = { as: Who; time: number; body?: unknown; nonce?: string; headers?: Record<string, string> };

/** What a simulator shows of itself, as the control API reads it (JUnit's timestamp is the time it is made). */
function reads(run: RunningSimulator, worker: string) {
  const s = run.simulator;
  return {
    markdown: s.report(),
    junit: s.report('junit').replace(/timestamp="[^"]*"/g, ''),
    scenarioReport: s.report('markdown', { scope: 'scenario' }),
    verdict: s.verdict(),
    coverage: s.coverage('run'),
    scenarioCoverage: s.coverage('scenario'),
    findings: s.findings(true),
    scenarioFindings: s.findings(true, 'scenario'),
    hints: s.hints(),
    scenarioHints: s.hints('scenario'),
    journal: s.journal(),
    workerJournal: s.journal({ apiUser: worker }),
    // Its own journal starts at its binding: the request before it is not in it.
    boundJournal: s.journal({ apiUser: BOUND_USER.apiUser }),
    challenges: s.challenges(),
    scenarios: s.scenarios(),
    clock: { now: s.now(), frozen: s.clock.frozen },
    workerClock: s.apiUserClocks.clock(worker),
    sizes: s.sizes(),
    replay: s.world.replayStats(),
  };
}

/** An answer without the address of the simulator that gave it (each listens on a port of its own). */
const codeOf = (r: Sent) => ({
  status: r.status,
  code: r.json.code,
  message: r.json.message.replace(/http:\/\/[^/"]+/g, ''),
});
const idOf = (r: Sent) => (JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId;

/** Drives a simulator through a varied run; returns what the checks after the snapshot need. */
async function drive(run: RunningSimulator) {
  const s = run.simulator;
  const me: Who = { apiUser: run.apiUser.id, secret: run.apiUser.secret };
  s.loadScenario(SNAP);
  s.freeze(AT);
  let t = AT;
  const signed = (path: string, o: Partial<Opts> = {}) =>
    send(run, path, { as: me, time: t++, ...o, method: path.endsWith('/time') ? 'GET' : 'POST' });
  const make = async (user: string, as = me, time?: number) =>
    idOf(
      await signed('/v1/svc/challenge', {
        as,
        body: challengeEnvelope(as.apiUser, { svcUser: user }),
        ...(time === undefined ? {} : { time }),
      }),
    );
  const status = (id: string, user: string, o: Partial<Opts> = {}) =>
    signed('/v1/svc/status', { body: lookupEnvelope(me.apiUser, 171, id, {}, user), ...o });

  const approved = await make('a@example.com');
  const authCode = s.approve(approved).authCode!;
  const verified = await make('v@example.com');
  s.approve(verified, '424242');
  const verify = lookupEnvelope(me.apiUser, 170, verified, { authCode: '424242' }, 'v@example.com');
  expectEnvelope(await signed('/v1/svc/verify', { body: verify }), 200, 3080);
  s.deny(await make('d@example.com'));
  s.expire(await make('e@example.com'));
  // Its person approves 30 s after it is made: still to come when the snapshot is taken.
  const scripted = await make('carol@example.com');
  // A nonce remembered, to be replayed after the snapshot.
  const replayed = randomUUID();
  expectEnvelope(await status(approved, 'a@example.com', { nonce: replayed }), 200, 3080);
  // Fast polling (a finding), and a bad signature (a hint).
  const polled = await make('p@example.com');
  for (let i = 0; i < 4; i++) expectEnvelope(await status(polled, 'p@example.com'), 400, -3091);
  expectEnvelope(await status(polled, 'p@example.com', { as: { ...me, secret: 'wrong' } }), 400, -4037);
  // The rule half consumed: 15000, 15000, -5000, 15000; the 5th is -5000 again.
  const times = [];
  for (let i = 0; i < 4; i++) times.push((await signed('/v1/svc/time')).json.code);
  expect(times).toEqual([15000, 15000, -5000, 15000]);
  // A binding, its rule's count at 1 of 2; and a pick of the bound scenario, its own count at 1 of 2.
  const before = lookupEnvelope(BOUND_USER.apiUser, 171, approved);
  expectEnvelope(await signed('/v1/svc/status', { as: BOUND_USER, body: before }), 400, -1001);
  s.bindScenario(BOUND_USER.apiUser, BOUND);
  expectEnvelope(await signed('/v1/svc/time', { as: BOUND_USER }), 200, 15000);
  expectEnvelope(await signed('/v1/svc/time', { headers: PICK }), 200, 15000);
  // A claimed API user (running the active scenario, the same one) on a clock of its own, an hour ahead.
  const worker = s.claimApiUser();
  s.apiUserClocks.advance(worker.apiUser, '1h');
  const workerWho = { apiUser: worker.apiUser, secret: worker.secret };
  const workerChallenge = await make('w@example.com', workerWho, s.apiUserClocks.clock(worker.apiUser).now);
  s.advance('10s');
  return { me, worker: workerWho, approved, authCode, scripted, replayed, workerChallenge };
}

/** The same request, signed once, sent to both: their answers. */
async function both(a: RunningSimulator, b: RunningSimulator, path: string, o: Opts): Promise<[Sent, Sent]> {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  const fixed = { ...o, body, nonce: o.nonce ?? randomUUID(), method: path.endsWith('/time') ? 'GET' : 'POST' };
  return [await send(a, path, fixed), await send(b, path, fixed)];
}

async function snapshotCase(options: SimulatorOptions, seeded: boolean) {
  const a = await simulator(options);
  const d = await drive(a);
  const json = JSON.stringify(a.simulator.state());
  const b = await simulator(options);
  b.simulator.restore(JSON.parse(json));

  // (a) The reads are the same.
  const [readA, readB] = [reads(a, d.worker.apiUser), reads(b, d.worker.apiUser)];
  // The requests first: a journal left out fails here at once, not after a long diff.
  expect(readB.journal.map((e) => e.seq)).toEqual(readA.journal.map((e) => e.seq));
  expect(readB.boundJournal.map((e) => e.seq)).toEqual(readA.boundJournal.map((e) => e.seq));
  expect(readA.boundJournal.length).toBeLessThan(readA.journal.filter((e) => e.apiUser === BOUND_USER.apiUser).length);
  for (const key of Object.keys(readA) as (keyof typeof readA)[]) expect(readB[key], key).toEqual(readA[key]);
  expect(readA.findings.map((f) => f.id)).toContain('fast-polling');
  expect(readA.hints.map((h) => h.code)).toContain(-4037);

  // (b) The same further requests get the same answers.
  let t = AT + 10_000 + 1000;
  const same = async (path: string, o: Omit<Opts, 'time'>, code: number, messageToo = true) => {
    const [ra, rb] = await both(a, b, path, { time: t++, ...o });
    expect(codeOf(ra).code, ra.text).toBe(code);
    if (messageToo) expect(codeOf(rb)).toEqual(codeOf(ra));
    else expect(rb.status).toBe(ra.status);
    return [ra, rb];
  };
  const { me } = d;
  // A nonce used before the snapshot is a replay on both.
  await same(
    '/v1/svc/status',
    { as: me, nonce: d.replayed, body: lookupEnvelope(me.apiUser, 171, d.approved, {}, 'a@example.com') },
    -4034,
  );
  // The 5th time request under the rule half consumed: -5000 on both; the 6th passes.
  await same('/v1/svc/time', { as: me }, -5000);
  await same('/v1/svc/time', { as: me }, 15000);
  // The binding's 2nd and the pick's 2nd: their rule applies.
  await same('/v1/svc/time', { as: BOUND_USER }, -5000);
  await same('/v1/svc/time', { as: me, headers: PICK }, -5000);
  // The challenge approved before the snapshot verifies with the code the user was shown.
  const verify = lookupEnvelope(me.apiUser, 170, d.approved, { authCode: d.authCode }, 'a@example.com');
  await same('/v1/svc/verify', { as: me, body: verify }, 3080);
  // The claimed API user, on its own clock an hour ahead: its challenge still waits on both.
  const workerNow = a.simulator.apiUserClocks.clock(d.worker.apiUser).now;
  const [wa, wb] = await both(a, b, '/v1/svc/status', {
    as: d.worker,
    time: workerNow + 1,
    body: lookupEnvelope(d.worker.apiUser, 171, d.workerChallenge, {}, 'w@example.com'),
  });
  expect(codeOf(wa).code, wa.text).toBe(-3091);
  expect(codeOf(wb)).toEqual(codeOf(wa));
  // A new challenge: from a seeded source, the same id on both.
  const [ma, mb] = await same(
    '/v1/svc/challenge',
    { as: me, body: challengeEnvelope(me.apiUser, { svcUser: 'n@example.com' }) },
    2025,
    seeded,
  );
  if (seeded) expect(idOf(mb)).toBe(idOf(ma));
  // The scripted press falls due once both clocks pass it: approved on both.
  for (const run of [a, b]) run.simulator.advance('31s');
  t += 31_000;
  await same(
    '/v1/svc/status',
    { as: me, body: lookupEnvelope(me.apiUser, 171, d.scripted, {}, 'carol@example.com') },
    3080,
  );
  const settled = (run: RunningSimulator) => ({
    coverage: run.simulator.coverage(),
    verdict: run.simulator.verdict(),
    challenges: run.simulator.challenges().map(({ id, state, trail }) => (seeded ? { id, state, trail } : { state })),
    answered: run.simulator.path.answeredCount,
  });
  expect(settled(b)).toEqual(settled(a));
}

describe('a snapshot restored into a new simulator with the same options', () => {
  it('seeded: reads and answers the same, new challenge ids too', () =>
    snapshotCase({ seed: 20_310_304, secret: 'state-test-secret-41d2' }, true));

  it('unseeded, with a generated secret: reads and answers the same', () => snapshotCase({}, false));
});

describe('restore(state()) then state() gives the same JSON', () => {
  const options: SimulatorOptions = { seed: 9, secret: 'round-trip-secret-55aa' };
  const roundTrips = (sim: Simulator) => {
    const first = JSON.parse(JSON.stringify(sim.state())) as unknown;
    const copy = new Simulator(options);
    copy.restore(first as ReturnType<Simulator['state']>);
    const again = JSON.parse(JSON.stringify(copy.state())) as unknown;
    copy.world.stop();
    return { first, again };
  };

  /** One operation of a run, in process: a signed request, or a control operation (refusals are part of a run). */
  const operation = fc.oneof(
    fc.record({ op: fc.constantFrom('time', 'pick', 'bound') }),
    fc.record({
      op: fc.constant('challenge'),
      user: fc.constantFrom('a@example.com', 'carol@example.com', 'approve@x.io'),
    }),
    fc.record({ op: fc.constantFrom('status', 'approve', 'deny', 'expire'), which: fc.nat(5) }),
    fc.record({ op: fc.constant('advance'), ms: fc.integer({ min: -60_000, max: 120_000 }) }),
    fc.record({ op: fc.constantFrom('freeze', 'unfreeze', 'load', 'bind', 'unbind', 'claim', 'release', 'reset') }),
  );

  it('after any run', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 25 }), (ops) => {
        const sim = new Simulator(options);
        const me = { apiUser: sim.world.defaultApiUser.id, secret: sim.world.defaultApiUser.secret };
        let tick = 0;
        const request = (url: string, body?: unknown, who = me, headers: Record<string, string> = {}) => {
          const signed = signedHeaders({ ...who, time: sim.now() + (tick++ % 1000), nonce: randomUUID() });
          const lower = Object.fromEntries(
            Object.entries({ ...signed, ...headers }).map(([k, v]) => [k.toLowerCase(), v]),
          );
          const text = body === undefined ? '' : JSON.stringify(body);
          const answered = sim.path.handle({
            method: body === undefined ? 'GET' : 'POST',
            url,
            headers: lower,
            body: text,
          });
          // No rule here delays: every request is answered at once.
          if (answered instanceof Promise) throw new Error(`${url} was delayed`);
        };
        const ids = () => sim.challenges().map((c) => c.id);
        const claimed: string[] = [];
        for (const o of ops) {
          try {
            const id = 'which' in o ? ids()[o.which % Math.max(1, ids().length)] : undefined;
            if (o.op === 'time') request('/v1/svc/time');
            else if (o.op === 'pick') request('/v1/svc/time', undefined, me, PICK);
            else if (o.op === 'bound') request('/v1/svc/time', undefined, BOUND_USER);
            else if (o.op === 'challenge' && 'user' in o)
              request('/v1/svc/challenge', challengeEnvelope(me.apiUser, { svcUser: o.user }));
            else if (o.op === 'status' && id) request('/v1/svc/status', lookupEnvelope(me.apiUser, 171, id));
            else if (o.op === 'approve' && id) sim.approve(id);
            else if (o.op === 'deny' && id) sim.deny(id);
            else if (o.op === 'expire' && id) sim.expire(id);
            else if (o.op === 'advance' && 'ms' in o) sim.advance(o.ms);
            else if (o.op === 'freeze') sim.freeze();
            else if (o.op === 'unfreeze') sim.unfreeze();
            else if (o.op === 'load') sim.loadScenario(SNAP);
            else if (o.op === 'bind') sim.bindScenario(BOUND_USER.apiUser, BOUND);
            else if (o.op === 'unbind') sim.unbindScenario(BOUND_USER.apiUser);
            else if (o.op === 'claim') claimed.push(sim.claimApiUser().apiUser);
            else if (o.op === 'release' && claimed.length) sim.releaseApiUser(claimed.shift()!);
            else if (o.op === 'reset') sim.reset();
          } catch (e) {
            if (!(e instanceof Error && 'status' in e)) throw e;
          }
        }
        const { first, again } = roundTrips(sim);
        sim.world.stop();
        expect(again).toEqual(first);
      }),
      { numRuns: 60 },
    );
  });
});
