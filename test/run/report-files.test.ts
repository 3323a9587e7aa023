import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeInfo } from '../../src/contract/codes.js';
import { describe, expect, it } from 'vitest';
import { remote, run, start } from '../cli-helpers.js';
import { challengeEnvelope, expectEnvelope, send } from '../helpers.js';
import { suites, validJunit } from '../junit.js';

/**
 * The command line at exit: `--report` (appended Markdown), `--junit` (valid JUnit XML), `--fail-on-findings` and
 * its exit status 4 beside the coverage gate's 3, `MFA_SIM_HINTS`; and report files that cannot be written.
 */
const MAIN = { apiUser: '123456789', secret: 'report-secret' };

describe('the command line at exit: --report, --junit, --fail-on-findings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-report-'));

  async function runWith(args: string[], traffic: (url: string) => Promise<void>, env: Record<string, string> = {}) {
    const s = await start(
      ['--port', '0', '--api-user', MAIN.apiUser, '--secret', MAIN.secret, '--quiet', ...args],
      env,
    );
    await traffic(s.url);
    s.child.kill('SIGTERM');
    return { status: await s.exit, err: s.err() };
  }
  const reusedIds = async (url: string) => {
    const r = remote(url, MAIN.apiUser, MAIN.secret);
    for (let i = 0; i < 2; i++)
      expectEnvelope(
        await send(r, '/v1/svc/challenge', { body: challengeEnvelope(MAIN.apiUser, {}, { id: 'again' }) }),
        202,
        2025,
      );
  };

  it('writes both files, appends the Markdown, and exits 4 on a finding at or above the severity', async () => {
    const report = join(dir, 'summary.md');
    const junit = join(dir, 'junit.xml');
    writeFileSync(report, '# Earlier step\n\n');
    const { status, err } = await runWith(
      ['--report', report, '--junit', junit, '--fail-on-findings', 'warning'],
      reusedIds,
    );
    expect(status).toBe(4);
    expect(err).toContain(
      'mfa-sim: the client doctor found 1 finding at or above warning:\n  warning  envelope-id-reused (API user 123456789, #2, 1×)\n',
    );
    const md = readFileSync(report, 'utf8');
    expect(md.startsWith('# Earlier step\n\n## mfa-sim report\n')).toBe(true);
    await validJunit(readFileSync(junit, 'utf8'));
    expect(suites(readFileSync(junit, 'utf8'))[1].failures).toBe(1);
  });

  it('exits 0 below the severity; 3 when required codes are missing as well (coverage wins), both explained', async () => {
    expect((await runWith(['--fail-on-findings', 'error'], reusedIds)).status).toBe(0);
    const both = await runWith(['--fail-on-findings', 'warning', '--require-coverage', '-4036'], reusedIds);
    expect(both.status).toBe(3);
    expect(both.err).toContain(
      'mfa-sim: coverage: 1 of 1 required codes were never answered: -4036\n   -4036  ' +
        `${codeInfo(-4036)!.title}\n` +
        'mfa-sim: the client doctor found 1 finding at or above warning:\n  warning  envelope-id-reused (API user 123456789, #2, 1×)\n',
    );
  });

  it('refuses a bad severity, and a bad MFA_SIM_HINTS; MFA_SIM_HINTS=off answers bare meanings', async () => {
    const bad = await start(['--port', '0', '--fail-on-findings', 'fatal']).catch((e: Error) => e.message);
    expect(bad).toContain('mfa-sim: --fail-on-findings must be one of info, warning, error (not "fatal").');
    const badEnv = await start(['--port', '0'], { MFA_SIM_HINTS: 'maybe' }).catch((e: Error) => e.message);
    expect(badEnv).toContain('mfa-sim: MFA_SIM_HINTS must be on or off (true/false, yes/no, 1/0).');
    const { status } = await runWith(
      [],
      async (url) => {
        const r = await send(remote(url, MAIN.apiUser, MAIN.secret), '/v1/svc/time', {
          method: 'GET',
          time: Date.now() - 600_000,
        });
        expect(expectEnvelope(r, 400, -4036).message).toBe('utctime clock drift error');
      },
      { MFA_SIM_HINTS: 'off' },
    );
    expect(status).toBe(0);
  });

  it('a report file that cannot be written: refused at start (exit 2), naming it', () => {
    const missing = run(['--port', '0', '--junit', join(dir, 'no', 'such', 'dir.xml')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^mfa-sim: --junit .*dir\.xml: the folder .*such does not exist\.$/m);
    const folder = run(['--port', '0', '--report', dir]);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain(`mfa-sim: --report ${dir}: it is a folder.`);
    // A FIFO nobody reads is refused at start, without waiting for a reader.
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const unread = run(['--port', '0', '--report', fifo]);
    expect(unread.status).toBe(2);
    expect(unread.stderr).toMatch(/mfa-sim: --report .*fifo: it is a FIFO nobody reads/);
  });
});
