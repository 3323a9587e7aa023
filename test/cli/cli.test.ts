import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { version } from '../../package.json';
import { challengeEnvelope, expectEnvelope, send } from '../helpers.js';
import { CLI, remote, run, start } from '../cli-helpers.js';

describe('the CLI', () => {
  it('prints the base URL once ready, then the API user and the docs; serves; logs; stops on SIGTERM with 0', async () => {
    const s = await start(['--port', '0']);
    const lines = s.out().split('\n');
    expect(lines[0]).toMatch(/^mfa-sim listening on http:\/\/127\.0\.0\.1:\d+$/);
    const m = /API user (\d{9}), secret (\S+)/.exec(s.out());
    expect(m).not.toBeNull();
    expect(s.out()).toContain(`${s.url}/status`);
    const sim = remote(s.url, m![1], m![2]);
    expectEnvelope(await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(m![1]) }), 202, 2025);
    // A wrongly signed request: the answer's hint and the log say what was expected to be signed.
    const bad = await send(sim, '/v1/svc/time', {
      method: 'GET',
      as: { apiUser: m![1], secret: 'not-the-secret' },
      nonce: 'feedface-0000-4000-8000-000000000000',
    });
    expectEnvelope(bad, 400, -4037);
    expect(bad.json.message).toContain('Hint: no common mistake matches; sign exactly "x-svc-utctime: ');
    await new Promise((r) => setTimeout(r, 200));
    const logged = s
      .out()
      .split('\n')
      .find((l) => l.includes('-4037'))!;
    expect(logged).toContain('expected HMAC-SHA512 over "x-svc-utctime: ');
    expect(logged).toContain('\\nx-svc-cnonce: feedface-0000-4000-8000-000000000000"');
    expect(
      s
        .out()
        .split('\n')
        .filter((l) => l.includes(m![2])),
    ).toHaveLength(1); // only the start-up line
    expect(s.out()).toMatch(/POST \/v1\/svc\/challenge 123456789 -> 202 2025/);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('stops on Ctrl-C (SIGINT) with 0', async () => {
    const s = await start(['--port', '0', '--quiet']);
    s.child.kill('SIGINT');
    expect(await s.exit).toBe(0);
  });

  it('takes the API user and secret from flags or the environment, and never prints a given secret', async () => {
    const s = await start(['--port', '0', '--api-user', '555555555'], { MFA_SIM_SECRET: 'from-the-env' });
    expect(s.out()).toContain('API user 555555555');
    expect(s.out()).not.toContain('from-the-env');
    expectEnvelope(
      await send(remote(s.url, '555555555', 'from-the-env'), '/v1/svc/time', { method: 'GET' }),
      200,
      15000,
    );
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  it('runs a shipped scenario by name, with a token', async () => {
    const s = await start(['--port', '0', '--scenario', 'locked-account', '--token', 'acme', '--secret', 'x1']);
    expect(s.out()).toContain('scenario locked-account, token acme');
    const r = await send(remote(s.url, '123456789', 'x1'), '/v1/svc/challenge', {
      token: 'acme',
      body: challengeEnvelope('123456789', { acmeUser: 'locked@example.com', svcUser: undefined }, {}, 'acme'),
    });
    expectEnvelope(r, 400, -2006);
    s.child.kill('SIGTERM');
    await s.exit;
  });

  it('refuses a bad flag with a message and exit 2', () => {
    for (const args of [
      ['--bogus'],
      ['--port', 'eighty'],
      ['--port', '70000'],
      ['--response-style', 'fancy'],
      ['--api-user', '12'],
    ]) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/mfa-sim --help/);
    }
  });

  it('refuses a bad scenario file with file, line and key, and exit 2', () => {
    const f = join(mkdtempSync(join(tmpdir(), 'cli-')), 'broken.yaml');
    writeFileSync(f, 'name: broken\nreplay:\n  nonces: yes please\n');
    const r = run(['--scenario', f, '--port', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${f}:3: replay.nonces: must be true or false`);
  });

  it('says when the port is taken, and exits 1', async () => {
    const s = await start(['--port', '0', '--quiet']);
    const port = new URL(s.url).port;
    const r = run(['--port', port]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
    s.child.kill('SIGTERM');
    await s.exit;
  });

  it('has --help and --version', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--scenario <name|file>');
    expect(help.stdout).toContain('MFA_SIM_PORT');
    const v = run(['--version']);
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toBe(version);
  });
});

describe('the CLI with --watch', () => {
  it('reloads a changed scenario file, and keeps the last good one when an edit is broken', async () => {
    const f = join(mkdtempSync(join(tmpdir(), 'watch-')), 'live.yaml');
    writeFileSync(f, 'name: live\naccounts:\n  user@example.com: active\n');
    const s = await start(['--port', '0', '--scenario', f, '--watch', '--secret', 'w', '--quiet']);
    const sim = remote(s.url, '123456789', 'w');
    const challenge = () => send(sim, '/v1/svc/challenge', { body: challengeEnvelope('123456789') });
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 100 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(what()).toBe(true);
    };
    expectEnvelope(await challenge(), 202, 2025);

    writeFileSync(f, 'name: live\naccounts:\n  user@example.com: locked\n');
    await until(() => s.out().includes('reloaded scenario live'));
    expectEnvelope(await challenge(), 400, -2006);

    writeFileSync(f, 'name: live\naccounts:\n  user@example.com: lockd\n');
    await until(() => s.err().includes('was not reloaded'));
    expect(s.err()).toContain(`${f}:3: accounts["user@example.com"]: unknown account state \`lockd\``);
    expectEnvelope(await challenge(), 400, -2006);

    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });
});

describe('the CLI stopping', () => {
  it("writes the verdict after the last request's log line, also where one reader takes both outputs (2>&1)", async () => {
    const args = ['--port', '0', '--secret', 'order-secret', '--require-coverage', '-4036'];
    const child = spawn('sh', ['-c', 'exec "$0" "$@" 2>&1', process.execPath, CLI, ...args], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exit = new Promise((resolve) => child.on('exit', resolve));
    await expect.poll(() => /^ {2}scenario /m.test(out), { timeout: 10_000 }).toBe(true);
    const url = /^mfa-sim listening on (\S+)$/m.exec(out)![1];
    const sim = remote(url, '123456789', 'order-secret');
    for (let i = 0; i < 5; i++) expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    child.kill('SIGTERM');
    expect(await exit).toBe(3);
    const lastLog = out.lastIndexOf('GET /v1/svc/time 123456789 -> 200 15000');
    const verdict = out.indexOf('mfa-sim: coverage: 1 of 1 required codes were never answered: -4036\n');
    expect(out.match(/GET \/v1\/svc\/time 123456789 -> 200 15000/g)).toHaveLength(5);
    expect(verdict).toBeGreaterThan(lastLog);
  });
});
