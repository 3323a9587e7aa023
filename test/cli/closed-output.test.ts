import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, remote, start } from '../cli-helpers.js';
import { expectEnvelope, send } from '../helpers.js';

/**
 * The command line when the reader of its output goes away first (`mfa-sim --codes | head -3`, a killed `| tee`):
 * no stack trace, no early exit, and the files written at exit still written.
 */
const USER = { apiUser: '123456789', secret: 'closed-output-secret' };
const STACK_LINE = /^\s+at /m;

/** Runs the command line with its standard output (and standard error, if asked) closed by the reader at once. */
function runClosed(args: string[], closeStderr = false): Promise<{ status: number | null; err: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  if (closeStderr) child.stderr.destroy();
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, err })));
}

describe('a reader of the output that goes away', () => {
  it('ends no one-shot command with a crash: --codes, --schema, --help, --list-scenarios, --version exit 0', async () => {
    for (const flag of ['--codes', '--schema', '--help', '--list-scenarios', '--version']) {
      const { status, err } = await runClosed([flag]);
      expect({ flag, status, err }).toEqual({ flag, status: 0, err: '' });
    }
  });

  it('stops the request log, not the simulator: requests are still answered and the coverage is written at exit', async () => {
    for (const log of ['text', 'json']) {
      const coverage = join(mkdtempSync(join(tmpdir(), 'mfa-sim-closed-')), 'coverage.json');
      const s = await start([
        '--port',
        '0',
        '--api-user',
        USER.apiUser,
        '--secret',
        USER.secret,
        '--log',
        log,
        '--coverage-out',
        coverage,
      ]);
      s.child.stdout!.destroy();
      const sim = remote(s.url, USER.apiUser, USER.secret);
      for (let i = 0; i < 3; i++) expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
      // The log's next write finds the reader gone, and says so while the simulator goes on serving.
      for (let i = 0; i < 100 && !s.err(); i++) await new Promise((r) => setTimeout(r, 50));
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);
      expect(JSON.parse(readFileSync(coverage, 'utf8')).counts).toEqual({ 15000: 4 });
      expect(s.err()).toBe(
        `mfa-sim: standard output was closed (EPIPE): no more request log; still serving on ${s.url}\n`,
      );
      expect(s.err()).not.toMatch(STACK_LINE);
    }
  });

  it('with standard error closed as well, still answers, and a failed gate still exits with its status', async () => {
    const coverage = join(mkdtempSync(join(tmpdir(), 'mfa-sim-closed-')), 'coverage.json');
    const s = await start([
      '--port',
      '0',
      '--api-user',
      USER.apiUser,
      '--secret',
      USER.secret,
      '--coverage-out',
      coverage,
      '--require-coverage',
      '-4037',
    ]);
    s.child.stdout!.destroy();
    s.child.stderr!.destroy();
    const sim = remote(s.url, USER.apiUser, USER.secret);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    s.child.kill('SIGTERM');
    // 3: -4037 was required and never answered; the message saying so had no reader, the status still tells.
    expect(await s.exit).toBe(3);
    expect(JSON.parse(readFileSync(coverage, 'utf8')).unmet).toEqual([-4037]);
  });

  it('its terminal closing (SIGHUP, the output gone with it) stops it cleanly, the coverage written', async () => {
    const coverage = join(mkdtempSync(join(tmpdir(), 'mfa-sim-closed-')), 'coverage.json');
    const s = await start([
      '--port',
      '0',
      '--api-user',
      USER.apiUser,
      '--secret',
      USER.secret,
      '--coverage-out',
      coverage,
    ]);
    expectEnvelope(await send(remote(s.url, USER.apiUser, USER.secret), '/v1/svc/time', { method: 'GET' }), 200, 15000);
    s.child.stdout!.destroy();
    s.child.kill('SIGHUP');
    expect(await s.exit).toBe(0);
    expect(JSON.parse(readFileSync(coverage, 'utf8')).counts).toEqual({ 15000: 1 });
  });

  it('a bad flag with both closed still exits 2', async () => {
    expect((await runClosed(['--port', 'eighty'], true)).status).toBe(2);
  });
});
