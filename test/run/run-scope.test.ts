import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import type { RunningSimulator } from '../../src/index.js';
import { remote, start } from '../cli-helpers.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * The run and the scenario are two scopes. A suite is judged on the run (coverage, findings, request count, the
 * report's totals, the verdict and the exit status), from start to exit across every scenario load; one test looks
 * at the scenario (journal, challenges, replay memory, rule counts, clock), which starts afresh on each load. Tested
 * the way suites produce a verdict: a scenario loaded before each test, then the gate at the end.
 */

const REQUIRED = [-4036, -2006, -4034];

/**
 * A suite of four tests, each starting with `loadScenario('default')` as the README's quick starts do, meeting the
 * required codes across them and none in the last. Returns how many requests it sent, and how many the journal held
 * just before each load (its scenario's share).
 */
async function suite(
  sim: RunningSimulator,
  load: (name: string) => Promise<unknown>,
): Promise<{ sent: number; journaled: number[] }> {
  let sent = 0;
  const journaled: number[] = [];
  const before = async () => {
    journaled.push((await journalLength(sim)) ?? 0);
    await load('default');
  };
  const call = async (path: string, opts: Parameters<typeof send>[2] = {}) => {
    sent++;
    return send(sim, path, opts);
  };
  // A drifting clock is refused.
  await before();
  expectEnvelope(await call('/v1/svc/time', { method: 'GET', time: Date.now() - 400_000 }), 400, -4036);
  expectEnvelope(await call('/v1/svc/time', { method: 'GET' }), 200, 15000);
  // A locked account is reported.
  await before();
  await load('locked-account');
  expectEnvelope(
    await call('/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id, { svcUser: 'locked@example.com' }) }),
    400,
    -2006,
  );
  // A replayed nonce is refused.
  await before();
  const nonce = randomUUID();
  expectEnvelope(await call('/v1/svc/time', { method: 'GET', nonce }), 200, 15000);
  expectEnvelope(await call('/v1/svc/time', { method: 'GET', nonce }), 400, -4034);
  // A challenge is made: none of the required codes.
  await before();
  expectEnvelope(await call('/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) }), 202, 2025);
  journaled.push((await journalLength(sim)) ?? 0);
  return { sent, journaled: journaled.slice(1) };
}

/** The current scenario's journal length, over HTTP (the suites of other languages read it so). */
async function journalLength(sim: RunningSimulator): Promise<number | undefined> {
  const r = await fetch(`${sim.url}/__sim/journal`);
  return r.ok ? ((await r.json()) as unknown[]).length : undefined;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('in process: a scenario loaded before each test, then the verdict', async () => {
  const sim = await simulator({ secret: 'run-scope-secret' });

  it('meets every required code across its tests: verdict 0, and the report counts every request of the run', async () => {
    sim.newRun();
    const { sent, journaled } = await suite(sim, async (name) => sim.loadScenario(name));
    // The count kept by the test, and the journal's share of each scenario, agree with the run.
    expect(sum(journaled)).toBe(sent);
    expect(sim.verdict({ required: REQUIRED })).toEqual({ status: 0, lines: [], unmet: [] });
    const md = sim.report('markdown', { required: REQUIRED });
    expect(md).toContain(`scenario default, ${sent} requests answered.`);
    expect(md).toContain(
      'The whole run: every request since the simulator started (or since the last new run), across 5 scenario loads or resets.',
    );
    expect(md).not.toContain('never answered');
    const counts = sim.coverage().counts;
    for (const c of REQUIRED) expect(counts[String(c)], String(c)).toBe(1);
    expect(counts['15000']).toBe(2);
    // JUnit: the required codes pass, with what was answered; nothing fails.
    const junit = new XMLParser({ ignoreAttributes: false }).parse(sim.report('junit', { required: REQUIRED }));
    expect(junit.testsuites['@_failures']).toBe('0');
    const cases = junit.testsuites.testsuite[0].testcase as {
      '@_name': string;
      'system-out'?: string;
      failure?: unknown;
    }[];
    for (const c of REQUIRED)
      expect(cases.find((x) => x['@_name'].startsWith(`${c} `))).toMatchObject({ 'system-out': 'answered 1 time' });
  });

  it('one required code never met: verdict 3 naming that code only', async () => {
    sim.newRun();
    await suite(sim, async (name) => sim.loadScenario(name));
    const v = sim.verdict({ required: [...REQUIRED, -4035] });
    expect(v.status).toBe(3);
    expect(v.unmet).toEqual([-4035]);
    expect(v.lines[0]).toBe('coverage: 1 of 4 required codes were never answered: -4035');
    const junit = new XMLParser({ ignoreAttributes: false }).parse(
      sim.report('junit', { required: [...REQUIRED, -4035] }),
    );
    expect(junit.testsuites['@_failures']).toBe('1');
  });

  it('the scenario view holds only the current scenario; reset starts it afresh and leaves the run', async () => {
    sim.newRun();
    const { journaled } = await suite(sim, async (name) => sim.loadScenario(name));
    expect(sim.coverage('scenario')).toMatchObject({ counts: { '2025': 1 }, met: [2025] });
    expect(sim.report('markdown', { scope: 'scenario' })).toContain(
      `scenario default, ${journaled.at(-1)} request answered.`,
    );
    expect(sim.report('markdown', { scope: 'scenario' })).toContain('The current scenario only');
    const run = sim.coverage();
    sim.reset();
    expect(sim.coverage('scenario')).toEqual({ counts: {}, met: [], missing: expect.any(Array) });
    expect(sim.coverage()).toEqual(run);
    expect(sim.journal()).toEqual([]);
    expect(() => sim.coverage('week' as 'run')).toThrow(/scope must be run or scenario/);
  });

  it('request numbers count the whole run; a new run starts them, and everything the run judged, afresh', async () => {
    sim.newRun();
    await send(sim, '/v1/svc/time', { method: 'GET' });
    sim.loadScenario('default');
    const r = expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    expect(r.id).toBe('sim-2');
    expect(sim.journal().map((e) => e.seq)).toEqual([2]);
    sim.newRun();
    expect(sim.coverage().met).toEqual([]);
    expect(sim.report('markdown')).toContain('0 requests answered.');
    expect(expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000).id).toBe('sim-1');
  });

  it('requests under a bound scenario and under a scenario picked by header count towards the run', async () => {
    sim.newRun();
    const other = { apiUser: '555555555', secret: 'bound-secret' };
    sim.bindScenario(other.apiUser, {
      name: 'bound',
      apiUsers: [{ id: other.apiUser, secret: other.secret }],
      rules: [{ when: { endpoint: 'time' }, respond: { code: -5000 } }],
    });
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: other }), 500, -5000);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', {
        headers: { 'x-sim-scenario': 'locked-account' },
        body: challengeEnvelope(sim.apiUser.id, { svcUser: 'locked@example.com' }),
      }),
      400,
      -2006,
    );
    sim.loadScenario('default');
    expect(sim.coverage().counts).toEqual({ '-5000': 1, '-2006': 1 });
    expect(sim.unbindScenario(other.apiUser)).toBe(true);
  });
});

describe('over HTTP: the control API shows the run by default', async () => {
  const sim = await simulator({ secret: 'run-scope-http' });

  it('GET /__sim/coverage, /__sim/report and /__sim/verdict judge the run; ?scope=scenario the current one', async () => {
    await fetch(`${sim.url}/__sim/run`, { method: 'POST' });
    const { sent } = await suite(sim, (name) =>
      fetch(`${sim.url}/__sim/scenario`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      }),
    );
    const get = async (path: string) => (await fetch(`${sim.url}/__sim/${path}`)).json();
    expect(((await get('coverage')) as { met: number[] }).met).toEqual(
      expect.arrayContaining([...REQUIRED, 15000, 2025]),
    );
    expect(((await get('coverage?scope=scenario')) as { met: number[] }).met).toEqual([2025]);
    expect(await (await fetch(`${sim.url}/__sim/report`)).text()).toContain(`${sent} requests answered.`);
    expect(await get(`verdict?require=${REQUIRED.join(',')}`)).toEqual({ status: 0, lines: [], unmet: [] });
    expect(await get(`verdict?require=${[...REQUIRED, -4035].join(',')}`)).toMatchObject({ status: 3, unmet: [-4035] });
    expect((await fetch(`${sim.url}/__sim/coverage?scope=all`)).status).toBe(400);
    expect((await fetch(`${sim.url}/__sim/verdict?failOn=fatal`)).status).toBe(400);
  });
});

describe('the command line: exit status and reports of the whole run', () => {
  async function cliRun(required: number[]) {
    const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-run-'));
    const [report, junit] = [join(dir, 'report.md'), join(dir, 'junit.xml')];
    const s = await start([
      '--port',
      '0',
      '--secret',
      'cli-run-secret',
      '--require-coverage',
      required.join(','),
      '--report',
      report,
      '--junit',
      junit,
    ]);
    const sim = remote(s.url, '123456789', 'cli-run-secret');
    const load = (name: string) =>
      fetch(`${s.url}/__sim/scenario`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    // Stopped whatever the suite found: a failing suite must not leave its simulator running.
    const { sent } = await suite(sim, load).finally(() => s.child.kill('SIGTERM'));
    const status = await s.exit;
    return {
      status,
      sent,
      err: s.err(),
      out: s.out(),
      report: readFileSync(report, 'utf8'),
      junit: readFileSync(junit, 'utf8'),
    };
  }

  it('a suite that meets every required code across its tests exits 0; the report counts every request', async () => {
    const r = await cliRun(REQUIRED);
    expect(r.status, r.err).toBe(0);
    expect(r.err).toBe('');
    expect(r.report).toContain(`${r.sent} requests answered.`);
    // Every request of the run is in the log, one line each.
    expect(r.out.split('\n').filter((l) => / -> \d{3} /.test(l))).toHaveLength(r.sent);
    const junit = new XMLParser({ ignoreAttributes: false }).parse(r.junit);
    expect(junit.testsuites['@_failures']).toBe('0');
  });

  it('the same suite with one required code never met exits 3, naming that code only', async () => {
    const r = await cliRun([...REQUIRED, -4035]);
    expect(r.status).toBe(3);
    expect(r.err).toMatch(
      /^mfa-sim: coverage: 1 of 4 required codes were never answered: -4035\n +-4035 {2}Timestamp reused\n$/,
    );
    expect(r.err).not.toMatch(/-4036|-2006|-4034/);
    expect(r.report).toContain('**1 required code was never answered:** -4035');
  });
});
