import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient, type MfaClient } from '../../src/client.js';
import { codeInfo, SERVICE_CODES, type Operation } from '../../src/contract/codes.js';
import { run, start } from '../cli-helpers.js';

const dir = () => mkdtempSync(join(tmpdir(), 'mfa-sim-cli-'));
const user = 'user@example.com';

/**
 * Sends one request of an operation through the typed client: a valid request, so that a forced code answers at its own
 * check.
 */
function callOperation(client: MfaClient, op: Operation): Promise<{ code: number }> {
  switch (op) {
    case 'time':
      return client.time();
    case 'challenge':
      return client.newChallenge({ user, challengeType: 'UserKeyAndPattern', enableQRcode: false });
    case 'cancel':
      return client.cancel({ user, challengeId: 'no-such-challenge' });
    case 'status':
      return client.status({ user, challengeId: 'no-such-challenge' });
    case 'verify':
      return client.verify({ user, challengeId: 'no-such-challenge', authCode: '1' });
    case 'blocked':
      return client.blocked({ user, ipAddress: '198.51.100.1' });
  }
}

/** One signing clock for many clients, never the same millisecond twice (a reused timestamp is -4035). */
function sharedClock(): () => number {
  let last = 0;
  return () => (last = Math.max(Date.now(), last + 1));
}

describe('status coverage from the command line', () => {
  it('--require-coverage all fails (exit 3) a run that never met some codes, naming them; --coverage-out writes the report', async () => {
    const out = join(dir(), 'coverage.json');
    const s = await start([
      '--port',
      '0',
      '--secret',
      'cov-secret',
      '--quiet',
      '--require-coverage',
      'all',
      '--coverage-out',
      out,
    ]);
    const client = createClient({ baseUrl: s.url, apiUser: '123456789', secret: 'cov-secret' });
    expect((await client.newChallenge({ user, challengeType: 'UserKeyAndPattern' })).code).toBe(2025);
    expect((await client.time()).code).toBe(15000);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(3);
    const missing = SERVICE_CODES.filter((c) => c !== 2025 && c !== 15000);
    expect(s.err()).toContain(
      `${missing.length} of ${SERVICE_CODES.length} required codes were never answered: ${missing.join(', ')}`,
    );
    expect(s.err()).toContain(`-4036  ${codeInfo(-4036)!.title}`);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report.counts).toEqual({ '2025': 1, '15000': 1 });
    expect(report.met).toEqual([2025, 15000]);
    expect(report.missing).toEqual(missing);
    expect(report.unmet).toEqual(missing);
  });

  it('--require-coverage all passes (exit 0) a run that met every code; the report shows nothing missing', async () => {
    const d = dir();
    // A scenario that forces each code when the request carries x-code: <code>.
    const scenario = join(d, 'every-code.yaml');
    const rules = SERVICE_CODES.map(
      (c) => `  - when: { headers: { x-code: "${c}" } }\n    respond: { code: ${c} }`,
    ).join('\n');
    writeFileSync(scenario, `name: every-code\nrules:\n${rules}\n`);
    const out = join(d, 'coverage.json');
    const s = await start([
      '--port',
      '0',
      '--secret',
      'cov-secret',
      '--quiet',
      '--scenario',
      scenario,
      '--require-coverage',
      'all',
      '--coverage-out',
      out,
    ]);
    const now = sharedClock();
    for (const code of SERVICE_CODES) {
      const client = createClient({
        baseUrl: s.url,
        apiUser: '123456789',
        secret: 'cov-secret',
        now,
        headers: { 'x-code': String(code) },
      });
      const op = codeInfo(code)!.scope?.[0] ?? 'time';
      expect((await callOperation(client, op)).code, `forced ${code} on ${op}`).toBe(code);
    }
    const live = (await (await fetch(`${s.url}/__sim/coverage`)).json()) as { missing: number[]; met: number[] };
    expect(live.missing).toEqual([]);
    expect(live.met).toEqual([...SERVICE_CODES]);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    expect(s.err()).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).unmet).toEqual([]);
  });

  it('--require-coverage with a list checks only those codes', async () => {
    const s = await start(['--port', '0', '--secret', 'cov-secret', '--quiet', '--require-coverage', '15000, -4037']);
    const client = createClient({ baseUrl: s.url, apiUser: '123456789', secret: 'cov-secret' });
    await client.time();
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(3);
    expect(s.err()).toContain('1 of 2 required codes were never answered: -4037');
  });

  it('refuses a bad --require-coverage with exit 2; a --coverage-out it cannot write: exit 2 at start, or 1 at exit', async () => {
    for (const spec of ['some', '2025,', '-9999', '-404']) {
      const r = run(['--require-coverage', spec]);
      expect(r.status, spec).toBe(2);
      expect(r.stderr).toMatch(/--require-coverage/);
    }
    const missing = run(['--port', '0', '--coverage-out', join(dir(), 'no', 'such', 'dir', 'c.json')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^mfa-sim: --coverage-out .*c\.json: the folder .* does not exist\.$/m);
    // The folder goes away while the simulator runs: refused at exit.
    const folder = join(dir(), 'going');
    mkdirSync(folder);
    const s = await start(['--port', '0', '--quiet', '--coverage-out', join(folder, 'c.json')]);
    rmSync(folder, { recursive: true });
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(1);
    expect(s.err()).toMatch(/cannot write the coverage to .*c\.json/);
  });
});

describe('command-line conventions', () => {
  it('--log json writes one JSON object per line: the start, then one per request (no secrets, no headers)', async () => {
    const s = await start(['--port', '0', '--secret', 'json-secret', '--log', 'json']);
    const client = createClient({ baseUrl: s.url, apiUser: '123456789', secret: 'json-secret' });
    await client.newChallenge({ user, challengeType: 'UserKeyAndPattern', enableQRcode: false });
    await createClient({ baseUrl: s.url, apiUser: '123456789', secret: 'wrong' }).time();
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    const lines = s.out().trim().split('\n');
    const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects[0]).toMatchObject({ msg: 'mfa-sim listening', url: s.url, name: 'mfa-sim', level: 30 });
    const requests = objects.filter((o) => o.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/svc/challenge',
      apiUser: '123456789',
      http: 202,
      code: 2025,
      operation: 'challenge',
    });
    expect(requests[1]).toMatchObject({ method: 'GET', path: '/v1/svc/time', http: 400, code: -4037 });
    expect(String(requests[1].expectedStringToSign)).toMatch(/^x-svc-utctime: \d+\nx-svc-cnonce: [0-9a-f-]{36}$/);
    expect(typeof requests[0].time).toBe('string');
    expect(s.out()).not.toContain('json-secret');
    expect(s.out()).not.toContain('authorization');
  });

  it('--quiet writes no request lines, in either format', async () => {
    for (const format of ['text', 'json']) {
      const s = await start(['--port', '0', '--secret', 'q-secret', '--quiet', '--log', format]);
      const before = s.out();
      await createClient({ baseUrl: s.url, apiUser: '123456789', secret: 'q-secret' }).time();
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);
      expect(s.out()).toBe(before);
      expect(s.out()).not.toContain('/v1/svc/time');
    }
  });

  it('precedence: a flag wins over its environment variable, which wins over the scenario file, which wins over the default', async () => {
    const file = join(dir(), 'tokens.yaml');
    writeFileSync(file, 'name: tokens\ntoken: fromfile\n');
    const cases: [string[], Record<string, string>, string][] = [
      [[], {}, 'svc'],
      [['--scenario', file], {}, 'fromfile'],
      [['--scenario', file], { MFA_SIM_TOKEN: 'fromenv' }, 'fromenv'],
      [['--scenario', file, '--token', 'fromflag'], { MFA_SIM_TOKEN: 'fromenv' }, 'fromflag'],
    ];
    for (const [args, env, token] of cases) {
      const s = await start(['--port', '0', '--secret', 'p-secret', '--quiet', ...args], env);
      expect(s.out(), `${args.join(' ')} ${JSON.stringify(env)}`).toMatch(new RegExp(`scenario \\S+, token ${token};`));
      // And the simulator really runs with it: a client signing with that token is answered.
      expect(
        (await createClient({ baseUrl: s.url, apiUser: '123456789', secret: 'p-secret', token }).time()).code,
      ).toBe(15000);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);
    }
  });

  it('--seed makes challenge ids and response ids the same from run to run, never the generated secret', async () => {
    const runOnce = async (seed: string) => {
      const s = await start(['--port', '0', '--quiet', '--seed', seed]);
      const secret = /API user 123456789, secret (\S+)/.exec(s.out())![1];
      const client = createClient({ baseUrl: s.url, apiUser: '123456789', secret });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const a = await client.newChallenge({ user, challengeType: 'UserKeyAndPattern', enableQRcode: false });
        ids.push(a.ok ? a.message.challengeId : a.text, a.id);
      }
      s.child.kill('SIGTERM');
      await s.exit;
      return { secret, ids };
    };
    const first = await runOnce('42');
    const second = await runOnce('42');
    const other = await runOnce('43');
    expect(second.ids).toEqual(first.ids);
    // The secret comes from the machine's crypto source whatever the seed: one run's secret opens no other run.
    expect(second.secret).not.toBe(first.secret);
    expect(first.ids[1]).toBe('sim-1');
    expect(new Set(first.ids.filter((_, i) => i % 2 === 0)).size).toBe(3);
    expect(other.secret).not.toBe(first.secret);
    expect(other.ids[0]).not.toBe(first.ids[0]);
  });

  it('documents the exit statuses and the new options in --help', () => {
    const help = run(['--help']).stdout;
    for (const text of [
      '--log <format>',
      '--coverage-out <file>',
      '--require-coverage <codes|all>',
      'MFA_SIM_REQUIRE_COVERAGE',
      '3 stopped but --require-coverage',
    ])
      expect(help).toContain(text);
  });
});
