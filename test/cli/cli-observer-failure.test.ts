import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { remote, start } from '../cli-helpers.js';
import { expectEnvelope, send } from '../helpers.js';

/**
 * The command line as a suite runs it, when an observer of traffic fails: the request log says so at once, the
 * Markdown report shows it, and the exit status is 5 even though every required code was met. The fault is put into
 * the built CLI's process from outside (a module given to node with --require): once armed by SIGUSR2, Date.parse
 * throws, and the client doctor's findings observer is the one reader of it on a request's way in this mode.
 */
describe('the command line, with an observer that fails', () => {
  it('logs the failure when it happens, reports it, and exits 5 with the reason, the coverage met', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-observer-'));
    const preload = join(dir, 'break-date-parse.cjs');
    writeFileSync(
      preload,
      `let armed = false;
const parse = Date.parse;
Date.parse = function (text) {
  if (armed) throw new Error('Date.parse broke on purpose');
  return parse.call(this, text);
};
process.on('SIGUSR2', () => {
  armed = true;
  process.stderr.write('armed\\n');
});
`,
    );
    const report = join(dir, 'report.md');
    const s = await start(
      ['--port', '0', '--secret', 'observer-cli', '--require-coverage', '15000', '--report', report],
      { NODE_OPTIONS: `--require ${preload}` },
    );
    const sim = remote(s.url, '123456789', 'observer-cli');
    // Before the fault: a request answered and observed, nothing said.
    expectEnvelope(await send(sim, '/v1/svc/time'), 200, 15000);
    s.child.kill('SIGUSR2');
    await expect.poll(() => s.err(), { timeout: 5000 }).toContain('armed');
    // The requests are still answered, whatever an observer does.
    expectEnvelope(await send(sim, '/v1/svc/time'), 200, 15000);
    expectEnvelope(await send(sim, '/v1/svc/time'), 200, 15000);
    // Said at its first failure (1st, 10th, 100th, ...), not at every one.
    await expect
      .poll(() => s.err(), { timeout: 5000 })
      .toContain(
        'mfa-sim: the findings observer failed (1×, request 2): Date.parse broke on purpose; coverage and findings may be wrong, exit status 5\n',
      );
    expect(s.err().match(/observer failed/g)).toHaveLength(1);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(5);
    expect(s.err()).toContain(
      "mfa-sim: observers: 1 observer of traffic failed, so coverage and findings may be wrong (a bug of mfa-sim's):\n  findings: 2× (#2 to #3), last: Date.parse broke on purpose\n",
    );
    // The coverage itself was met: the status is 5 for the failure alone.
    expect(s.err()).not.toContain('never answered');
    expect(readFileSync(report, 'utf8')).toContain(
      '| Observer | Failures | Requests | Last error |\n|---|---:|---|---|\n| findings | 2 | #2 to #3 | Date.parse broke on purpose |',
    );
  });
});
