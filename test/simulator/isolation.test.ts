import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

const root = join(__dirname, '..', '..');

describe('isolation between tests that share one simulator', () => {
  /**
   * Runs test/parallel-files (four worker files, one simulator from the global set-up) with the codes the run must
   * meet.
   */
  async function parallelSuite(required: number[]) {
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const verdictFile = join(mkdtempSync(join(tmpdir(), 'mfa-sim-parallel-')), 'verdict.json');
    const run = await new Promise<{ status: number | null; out: string }>((resolve) => {
      execFile(
        process.execPath,
        [vitest, 'run', '--config', join(root, 'test', 'parallel-files', 'vitest.config.ts'), '--reporter', 'verbose'],
        {
          cwd: root,
          env: {
            ...process.env,
            FORCE_COLOR: '0',
            NO_COLOR: '1',
            MFA_SIM_REQUIRE: required.join(','),
            MFA_SIM_VERDICT_FILE: verdictFile,
          },
          timeout: 90_000,
        },
        (error, stdout, stderr) =>
          resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
      );
    });
    const verdict = JSON.parse(readFileSync(verdictFile, 'utf8')) as {
      verdict: { status: number; unmet: number[] };
      coverage: { counts: Record<string, number> };
      report: string;
      journal: { seq: number; apiUser: string }[];
    };
    return { ...run, ...verdict };
  }

  const EVERY_WORKERS_CODES = [-2006, -2038, -4036, 2025, -4034, 15000, -5000, 2028];

  it("four workers at once, each with its own API user and a scenario per test: none sees another's rules or journal, and the run's gate sees every worker's codes", async () => {
    const r = await parallelSuite(EVERY_WORKERS_CODES);
    expect(r.out).toMatch(/Test Files\s+4 passed \(4\)/);
    expect(r.status, r.out).toBe(0);
    expect(r.verdict).toMatchObject({ status: 0, unmet: [] });
    // Every worker's codes, as many as the workers sent: the run, not the last scenario loaded.
    expect(r.coverage.counts).toEqual({
      '-2006': 10,
      '-2038': 10,
      '-4036': 10,
      '2025': 20,
      '-4034': 10,
      '15000': 11,
      '-5000': 10,
      '2028': 10,
    });
    expect(r.report).toContain('91 requests answered.');
    // The four ran at the same time: each worker's requests interleave with another's.
    const byWorker = new Map<string, number[]>();
    for (const e of r.journal) byWorker.set(e.apiUser, [...(byWorker.get(e.apiUser) ?? []), e.seq]);
    expect(byWorker.size).toBe(4);
    const spans = [...byWorker.values()].map((seqs) => [Math.min(...seqs), Math.max(...seqs)]);
    const overlapping = spans.filter(([lo, hi]) =>
      spans.some(([lo2, hi2]) => (lo2 !== lo || hi2 !== hi) && lo2 < hi && lo < hi2),
    );
    expect(overlapping.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('the same suite with one required code that no worker met fails the run, naming that code only', async () => {
    const r = await parallelSuite([...EVERY_WORKERS_CODES, -4035]);
    expect(r.status).toBe(3);
    expect(r.verdict).toMatchObject({ status: 3, unmet: [-4035] });
    expect(r.out).toContain('coverage: 1 of 9 required codes were never answered: -4035');
    // A whole nested Vitest run with four workers: 6 s alone, up to 20 s while the other suites load both cores.
  }, 60_000);

  const A = { apiUser: '111111111', secret: 'a' };
  const B = { apiUser: '222222222', secret: 'b' };

  describe('in one process', async () => {
    const sim = await simulator({
      apiUsers: [
        { id: A.apiUser, secret: A.secret },
        { id: B.apiUser, secret: B.secret },
      ],
    });

    it('a scenario bound to one API user never reaches another; unbinding restores the active one', async () => {
      sim.bindScenario(A.apiUser, 'locked-account');
      sim.bindScenario(B.apiUser, {
        name: 'b-only',
        rules: [{ when: { endpoint: 'challenge' }, times: 100, respond: { code: -2038 } }],
      });
      const locked = { svcUser: 'locked@example.com' };
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? send(sim, '/v1/svc/challenge', { as: A, body: challengeEnvelope(A.apiUser, locked) }).then((r) => [
                'A',
                r.json.code,
              ])
            : send(sim, '/v1/svc/challenge', { as: B, body: challengeEnvelope(B.apiUser, locked) }).then((r) => [
                'B',
                r.json.code,
              ]),
        ),
      );
      expect(answers.filter(([w]) => w === 'A').every(([, c]) => c === -2006)).toBe(true);
      expect(answers.filter(([w]) => w === 'B').every(([, c]) => c === -2038)).toBe(true);
      expect(sim.unbindScenario(B.apiUser)).toBe(true);
      expectEnvelope(
        await send(sim, '/v1/svc/challenge', { as: B, body: challengeEnvelope(B.apiUser, locked) }),
        202,
        2025,
      );
    });

    it('x-sim-scenario picks a scenario for one request alone', async () => {
      const picked = await send(sim, '/v1/svc/time', {
        method: 'GET',
        as: B,
        headers: { 'x-sim-scenario': 'catalog', 'x-sim-code': '-4036' },
      });
      expectEnvelope(picked, 400, -4036);
      expectEnvelope(
        await send(sim, '/v1/svc/time', { method: 'GET', as: B, headers: { 'x-sim-code': '-4036' } }),
        200,
        15000,
      );
      // A scenario given to this simulator at run time can be picked by its name too.
      sim.bindScenario('333333333', {
        name: 'time-down',
        rules: [{ when: { endpoint: 'time' }, respond: { code: -5000 } }],
      });
      expectEnvelope(
        await send(sim, '/v1/svc/time', { method: 'GET', as: B, headers: { 'x-sim-scenario': 'time-down' } }),
        500,
        -5000,
      );
      const unknown = await send(sim, '/v1/svc/time', {
        method: 'GET',
        as: B,
        headers: { 'x-sim-scenario': 'no-such-one' },
      });
      expect(expectEnvelope(unknown, 500, -5000).message).toMatch(/x-sim-scenario: no scenario named `no-such-one`/);
    });
  });
});
