import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, remote, start } from '../cli-helpers.js';
import { send, simulator } from '../helpers.js';

/**
 * Proxy mode and the probe as a CI job runs them: the built command line, a whole run, its reports and exit status.
 */

const SECRET = 'proxy-cli-secret';
const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-proxy-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the command line in proxy mode', () => {
  it("a whole run: the upstream's deviations in --report and --junit, and --fail-on-findings exits 4", async () => {
    const upstream = await simulator({
      secret: SECRET,
      rules: [{ when: { endpoint: 'time' }, times: 1, fault: 'proxy-502' }],
    });
    const report = join(dir, 'report.md');
    const junit = join(dir, 'junit.xml');
    const run = await start([
      '--port',
      '0',
      '--upstream',
      upstream.url,
      '--secret',
      SECRET,
      '--report',
      report,
      '--junit',
      junit,
      '--fail-on-findings',
      'error',
      '--quiet',
    ]);
    await expect
      .poll(run.out)
      .toContain(
        `  proxy mode: API requests go to ${upstream.url}; each answer is judged against the contract and compared with mfa-sim's\n`,
      );
    const px = remote(run.url, '123456789', SECRET);
    expect((await send(px, '/v1/svc/time', { method: 'GET' })).status).toBe(502);
    expect((await send(px, '/v1/svc/time', { method: 'GET' })).json.code).toBe(15000);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(4);
    expect(run.err()).toMatch(
      /the client doctor found 2 findings at or above error:\n {2}error {4}service-not-json \(API user 123456789, #1, 1×\)\n {2}error {4}service-differs-status/,
    );
    const md = readFileSync(report, 'utf8');
    expect(md).toMatch(
      /\| error \| `service-not-json` \| 123456789 \| #1 \| 1 \| The service answered something that is not a JSON envelope .* \(the body is not a JSON object\. The service answered HTTP 502 text\/html; charset=utf-8 "\\<html\\>/,
    );
    expect(md).toMatch(/\| 15000 \| Current UTC time returned \| 1 \|/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(
      /<testcase classname="mfa-sim.findings" name="service-not-json \(API user 123456789\)" time="0"><failure type="error"/,
    );
  });

  it("without --secret: no generated secret printed (it is no one's), and says the answers are not compared", async () => {
    const upstream = await simulator({ secret: SECRET });
    const run = await start(['--port', '0', '--upstream', upstream.url, '--quiet']);
    await expect.poll(run.out).toContain("(give --secret to compare it with mfa-sim's too)\n");
    expect(run.out()).toMatch(/^ {2}API user 123456789\n/m);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
  });

  it('refuses what proxy mode cannot use, with exit 2', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 10_000 });
    const ftp = run('--upstream', 'ftp://example.com');
    expect(ftp.status).toBe(2);
    expect(ftp.stderr).toMatch(
      /^mfa-sim: --upstream must be an http:\/\/ or https:\/\/ base URL, without user name, password, query or fragment\.\n/,
    );
    const alone = run('--record', join(dir, 'rec'));
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/record: is an option of proxy mode: give upstream too/);
    // A folder that cannot be made where its parent exists: refused at once (Node's recursive mkdir retried for ever).
    const proc = run('--upstream', 'https://example.com', '--record', '/proc/mfa-sim-record');
    expect(proc.status).toBe(2);
    expect(proc.stderr).toMatch(/record: \/proc\/mfa-sim-record cannot be written \(ENOENT\)/);
    const ca = run('--upstream', 'https://example.com', '--upstream-ca', join(dir, 'missing.pem'));
    expect(ca.status).toBe(2);
    expect(ca.stderr).toMatch(/upstreamCa: .*missing\.pem cannot be read \(ENOENT\)/);
  });

  it('mfa-sim probe: the table, and exit 0 when the service agrees', async () => {
    const upstream = await simulator({ secret: SECRET });
    // Asynchronously: the upstream answers from this same process.
    const r = await promisify(execFile)(
      process.execPath,
      [CLI, 'probe', '--upstream', upstream.url, '--api-user', '123456789'],
      { encoding: 'utf8', timeout: 20_000, env: { ...process.env, MFA_SIM_SECRET: SECRET } },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^mfa-sim probe of http:\/\/127\.0\.0\.1:\d+: API user 123456789, token svc; mfa-sim \S+ in process\n\n# {2}step/,
    );
    expect(r.stdout).toMatch(/\n9 of 9 steps agree\.\n$/);
  });
});
