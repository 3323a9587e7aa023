import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_REPORT_BYTES } from '../../src/run/report.js';
import { signedHeaders } from '../../src/index.js';
import { start } from '../cli-helpers.js';
import { challengeEnvelope, raw, simulator } from '../helpers.js';
import { suites, validJunit } from '../junit.js';
import { flood as floodOf, keepAlive, type FloodRequest } from './support.js';

/**
 * Class: traffic that bloats the CI reports. Findings and hints are about API users the simulator knows, made from
 * what their API user signed: requests naming 1,000 unknown API users are one `unknown-api-user` row, forgeries naming
 * a known API user make no finding, so no forger fails a build with `--fail-on-findings`. And whatever the traffic, the
 * Markdown report (a GitHub job summary takes 1 MiB) and the JUnit file stay under MAX_REPORT_BYTES, saying what they
 * left out.
 */

const agent = keepAlive();
type Request = FloodRequest;
const flood = (url: string, count: number, make: (i: number) => Request) => floodOf(url, agent, count, make);

const JSON_TYPE: [string, string] = ['content-type', 'application/json'];

/**
 * A request without the secret, naming `apiUser`: two in three a new challenge with a stale envelope, an id used
 * before and a body as a JSON string; one in three a time request with a Bearer header (-4001, with a hint).
 */
function forged(apiUser: string, i: number): Request {
  const headers: [string, string][] = [
    ['x-svc-apiuser', apiUser],
    ['x-svc-utctime', String(Date.now())],
    ['x-svc-cnonce', randomUUID()],
    [
      'authorization',
      `svc-hmac: apiuser=${apiUser},signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=${'0'.repeat(128)}`,
    ],
    JSON_TYPE,
  ];
  const body = JSON.stringify({
    ...challengeEnvelope(apiUser),
    id: 'same-every-time',
    utctime: '1000000000000',
    body: JSON.stringify(challengeEnvelope(apiUser).body),
  });
  return i % 3 === 2
    ? ['GET', '/v1/svc/time', [headers[0], ['authorization', 'Bearer forged']]]
    : ['POST', '/v1/svc/challenge', headers, body];
}

describe('reports are bounded and about known callers', () => {
  it('3,000 forged requests over 1,000 unknown API user ids: one finding row, hints without an API user', async () => {
    const sim = await simulator();
    await flood(sim.url, 3000, (i) => forged(String(900_000_000 + (i % 1000)), i));
    const findings = sim.findings(true);
    expect(findings.map((f) => [f.id, f.apiUser, f.count])).toEqual([['unknown-api-user', 'unknown', 2000]]);
    expect(findings[0].detail).toMatch(/^the last named 9\d{8}$/);
    expect(sim.hints().map((h) => [h.code, h.id, h.apiUser, h.count])).toEqual([
      [-4001, 'other-scheme', undefined, 1000],
    ]);
    expect(sim.report('markdown', { failOn: 'warning' })).toContain(
      '### Client findings: 1 (0 at or above warning, which fail the run)',
    );
  });

  it('forged requests naming the API user the simulator knows make no finding; its signed requests do', async () => {
    const sim = await simulator();
    await flood(sim.url, 300, (i) => forged(sim.apiUser.id, i));
    expect(sim.findings(true)).toEqual([]);
    const signed = (id: string): Request => [
      'POST',
      '/v1/svc/challenge',
      [
        ...Object.entries(
          signedHeaders({
            apiUser: sim.apiUser.id,
            secret: sim.apiUser.secret,
            time: Date.now() + Math.floor(Math.random() * 1000),
            nonce: randomUUID(),
          }),
        ),
        JSON_TYPE,
      ],
      JSON.stringify(challengeEnvelope(sim.apiUser.id, {}, { id })),
    ];
    await flood(sim.url, 2, () => signed('twice'));
    expect(sim.findings().map((f) => f.id)).toEqual(['envelope-id-reused']);
  });

  it("a retry is the client's only when signed: a forgery reusing the nonce of an attempt that failed makes no finding", async () => {
    const sim = await simulator({ rules: [{ name: 'drop', when: { headers: { 'x-drop': '*' } }, fault: 'reset' }] });
    const nonce = randomUUID();
    let t = Date.now();
    const headers = (secret: string, extra: [string, string][] = []) => [
      ...Object.entries(signedHeaders({ apiUser: sim.apiUser.id, secret, time: ++t, nonce })),
      ...extra,
    ];
    await raw(sim.url, 'GET', '/v1/svc/time', headers(sim.apiUser.secret, [['x-drop', '1']])).catch(() => undefined);
    expect((await raw(sim.url, 'GET', '/v1/svc/time', headers('not-the-secret'))).json.code).toBe(-4037);
    expect(sim.findings()).toEqual([]);
    expect((await raw(sim.url, 'GET', '/v1/svc/time', headers(sim.apiUser.secret))).json.code).toBe(15000);
    expect(sim.findings().map((f) => f.id)).toEqual(['retry-not-resigned']);
  });

  it('-1001 for a request that names no API user at all (auth: off) is no unknown API user', async () => {
    const sim = await simulator({ auth: 'off' });
    expect((await raw(sim.url, 'GET', '/v1/svc/time', [])).json.code).toBe(-1001);
    expect((await raw(sim.url, 'GET', '/v1/svc/time', [['x-svc-apiuser', '987654321']])).json.code).toBe(-1001);
    expect(sim.findings().map((f) => [f.id, f.count, f.detail])).toEqual([
      ['unknown-api-user', 1, 'the last named 987654321'],
    ]);
  });

  it(`whatever the traffic, the Markdown report and the JUnit file stay under ${MAX_REPORT_BYTES} bytes and say what they left out`, async () => {
    // 1,000 API users the simulator knows, each with a stale envelope, an id sent twice and a body as a JSON string.
    const users = Array.from({ length: 1000 }, (_, i) => ({ id: String(100_000_000 + i), secret: `secret-${i}` }));
    const sim = await simulator({ name: 'many', apiUsers: users });
    let t = Date.now();
    await flood(sim.url, 2000, (i): Request => {
      const u = users[i % users.length];
      const time = ++t;
      return [
        'POST',
        '/v1/svc/challenge',
        [...Object.entries(signedHeaders({ apiUser: u.id, secret: u.secret, time, nonce: randomUUID() })), JSON_TYPE],
        JSON.stringify({
          ...challengeEnvelope(u.id),
          id: 'again',
          utctime: String(time - 60_000),
          body: JSON.stringify(challengeEnvelope(u.id).body),
        }),
      ];
    });
    // And a refused signature from each: 1,000 rows of hints.
    await flood(sim.url, 1000, (i): Request => [
      'GET',
      '/v1/svc/time',
      Object.entries(signedHeaders({ apiUser: users[i].id, secret: 'not-the-secret', time: ++t, nonce: randomUUID() })),
    ]);
    const findings = sim.findings(true);
    expect(findings.length).toBeGreaterThanOrEqual(4000);
    expect(sim.hints()).toHaveLength(1000);
    const md = sim.report('markdown', { failOn: 'warning', final: true });
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(MAX_REPORT_BYTES);
    expect(md).toContain(`### Client findings: ${findings.length} (`);
    const left =
      /\*\*(\d+) of the (\d+) findings are left out\*\* to keep this report under 1000000 bytes \(a job summary takes 1 MiB at most\): `GET \/__sim\/findings` has them all\./.exec(
        md,
      );
    expect(left, md.slice(-2000)).not.toBeNull();
    expect(Number(left![2])).toBe(findings.length);
    expect(md.match(/^\| (error|warning|info) \|/gm)!.length + Number(left![1])).toBe(findings.length);
    // The findings took the room: the hints that did not fit are counted too.
    const hintsLeft =
      /\*\*(\d+) of the 1000 hints are left out\*\* to keep this report under 1000000 bytes \(a job summary takes 1 MiB at most\): `GET \/__sim\/findings` has them all\./.exec(
        md,
      );
    expect(hintsLeft, md.slice(-2000)).not.toBeNull();
    expect(md.match(/^\| -4037 \| `no-known-mistake` \|/gm)?.length ?? 0).toBe(1000 - Number(hintsLeft![1]));

    for (const failOn of ['warning', 'info'] as const) {
      const xml = sim.report('junit', { failOn, final: true });
      expect(Buffer.byteLength(xml)).toBeLessThanOrEqual(MAX_REPORT_BYTES);
      await validJunit(xml);
      const [, findingSuite] = suites(xml);
      const leftOut = findingSuite.cases.at(-1)!;
      const [, count, failingLeft] = /^(\d+) more findings left out \((\d+) at or above \w+\)/
        .exec(leftOut['@_name'])!
        .map(Number);
      expect(findingSuite.cases.length - 1 + count).toBe(findings.length);
      // The findings left out that fail the run fail in the one test case that stands for them.
      const failingShown = findingSuite.cases.slice(0, -1).filter((c) => c.failure).length;
      expect(failingShown + failingLeft, failOn).toBe(
        findings.filter((f) => failOn === 'info' || f.severity !== 'info').length,
      );
      expect(leftOut.failure !== undefined, failOn).toBe(failingLeft > 0);
      expect(findingSuite.failures).toBe(failingShown + (failingLeft > 0 ? 1 : 0));
      expect(findingSuite.skipped).toBe(findingSuite.cases.filter((c) => c.skipped !== undefined).length);
      expect(findingSuite.skipped + findingSuite.failures).toBe(findingSuite.cases.length);
    }
  }, 60_000);

  it('the command line: a forger fails no build with --fail-on-findings warning, and the files stay small', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-forged-'));
    const report = join(dir, 'summary.md');
    const junit = join(dir, 'junit.xml');
    const s = await start([
      '--port',
      '0',
      '--quiet',
      '--fail-on-findings',
      'warning',
      '--report',
      report,
      '--junit',
      junit,
    ]);
    const known = /API user (\d{9})/.exec(s.out())![1];
    await flood(s.url, 3000, (i) => forged(i % 10 === 0 ? known : String(900_000_000 + (i % 1000)), i));
    s.child.kill('SIGTERM');
    expect(await s.exit, s.err()).toBe(0);
    expect(statSync(report).size).toBeLessThan(20_000);
    expect(readFileSync(report, 'utf8')).toContain('`unknown-api-user`');
    await validJunit(readFileSync(junit, 'utf8'));
  }, 60_000);
});
