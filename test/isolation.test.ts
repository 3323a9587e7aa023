import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, send, simulator } from './helpers.js';

const root = join(__dirname, '..');

describe('isolation between tests that share one simulator', () => {
  it('two test files run in parallel, each with its scenario bound to its API user, both pass', async () => {
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const { stdout } = await promisify(execFile)(process.execPath, [vitest, 'run', '--config', join(root, 'test', 'parallel-files', 'vitest.config.ts'), '--reporter', 'verbose'], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/team-a\.parallel\.ts/);
    expect(stdout).toMatch(/team-b\.parallel\.ts/);
    expect(stdout).toMatch(/Test Files\s+2 passed \(2\)/);
  });

  const A = { apiUser: '111111111', secret: 'a' };
  const B = { apiUser: '222222222', secret: 'b' };

  describe('in one process', async () => {
    const sim = await simulator({ apiUsers: [{ id: A.apiUser, secret: A.secret }, { id: B.apiUser, secret: B.secret }] });

    it('a scenario bound to one API user never reaches another; unbinding restores the active one', async () => {
      sim.bindScenario(A.apiUser, 'locked-account');
      sim.bindScenario(B.apiUser, { name: 'b-only', rules: [{ when: { endpoint: 'challenge' }, times: 100, respond: { code: -2038 } }] });
      const locked = { svcUser: 'locked@example.com' };
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? send(sim, '/v1/svc/challenge', { as: A, body: challengeEnvelope(A.apiUser, locked) }).then((r) => ['A', r.json.code])
            : send(sim, '/v1/svc/challenge', { as: B, body: challengeEnvelope(B.apiUser, locked) }).then((r) => ['B', r.json.code]),
        ),
      );
      expect(answers.filter(([w]) => w === 'A').every(([, c]) => c === -2006)).toBe(true);
      expect(answers.filter(([w]) => w === 'B').every(([, c]) => c === -2038)).toBe(true);
      expect(sim.unbindScenario(B.apiUser)).toBe(true);
      expectEnvelope(await send(sim, '/v1/svc/challenge', { as: B, body: challengeEnvelope(B.apiUser, locked) }), 202, 2025);
    });

    it('x-sim-scenario picks a scenario for one request alone', async () => {
      const picked = await send(sim, '/v1/svc/time', { method: 'GET', as: B, headers: { 'x-sim-scenario': 'catalog', 'x-sim-code': '-4036' } });
      expectEnvelope(picked, 400, -4036);
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: B, headers: { 'x-sim-code': '-4036' } }), 200, 15000);
      // A scenario given to this simulator at run time can be picked by its name too.
      sim.bindScenario('333333333', { name: 'time-down', rules: [{ when: { endpoint: 'time' }, respond: { code: -5000 } }] });
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: B, headers: { 'x-sim-scenario': 'time-down' } }), 500, -5000);
      const unknown = await send(sim, '/v1/svc/time', { method: 'GET', as: B, headers: { 'x-sim-scenario': 'no-such-one' } });
      expect(expectEnvelope(unknown, 500, -5000).message).toMatch(/x-sim-scenario: no scenario named `no-such-one`/);
    });
  });
});
