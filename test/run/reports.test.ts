import { marked } from 'marked';
import { beforeAll, describe, expect, it } from 'vitest';
import { suites, validJunit } from '../junit.js';
import { SERVICE_CODES } from '../../src/contract/codes.js';
import { challengeEnvelope, send, simulator } from '../helpers.js';

/**
 * The reports a CI job shows: Markdown that renders as tables (checked with a Markdown renderer), and JUnit XML that
 * validates against the Jenkins JUnit schema CI systems read (checked with libxml2, an independent parser), from
 * `sim.report()` and `GET /__sim/report`. The command line's files: report-files.test.ts.
 */
const MAIN = { apiUser: '123456789', secret: 'report-secret' };

describe('reports', async () => {
  // A scenario name with every character XML and Markdown treat specially.
  const sim = await simulator({ name: `a&b<c>"d'|e`, apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });
  // In a hook, not while the file is collected: code run at collection counts, for a mutation run, as run by every
  // test.
  beforeAll(async () => {
    await send(sim, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser) });
    await send(sim, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser) });
    await send(sim, '/v1/svc/time', {
      method: 'GET',
      as: MAIN,
      mutate: (h) =>
        (h.Authorization = h.Authorization.replace(
          /signature=[0-9a-f]+/,
          'signature=<hmac.HMAC object at 0x7f1d4a27ff10>',
        )),
    });
  });

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
    expect(md).toMatch(/^## mfa-sim report\n\nmfa-sim \d+\.\d+\.\d+, scenario /);
    expect(md).toContain(`, scenario a\\&b\\<c\\>"d'\\|e, 3 requests answered.`);
  });

  it('Markdown: the required codes never answered, named as the command line names them (in the order required, once each)', () => {
    const md = sim.report('markdown', { required: [-4036, 2025, -4034, -4036] });
    expect(md).toContain('**2 required codes were never answered:** -4036, -4034\n');
    expect(md.match(/yes, not met/g)).toHaveLength(2);
    expect(md).toMatch(/\| -4034 \| [^|]+ \| yes, not met \|/);
    expect(sim.report('markdown', { required: [-4034] })).toContain('**1 required code was never answered:** -4034\n');
    // Every required code answered: no such line.
    expect(sim.report('markdown', { required: [2025] })).not.toContain('never answered:**');
  });

  it('JUnit: valid against the Jenkins schema; a test case per contract code and per finding', async () => {
    const xml = sim.report('junit', { required: [2025, -4036], failOn: 'warning' });
    await validJunit(xml);
    const [coverage, findings] = suites(xml);
    expect(coverage.name).toBe('mfa-sim contract coverage');
    expect(coverage.cases).toHaveLength(SERVICE_CODES.length);
    expect(coverage.tests).toBe(SERVICE_CODES.length);
    // -4036 was required and never answered: the one failure; every other code never met is skipped.
    expect(coverage.cases.filter((c) => c.failure).map((c) => c['@_name'])).toEqual([
      '-4036 utctime clock drift error',
    ]);
    expect(coverage.failures).toBe(1);
    expect(coverage.skipped).toBe(SERVICE_CODES.length - 3);
    expect(coverage.cases.find((c) => c['@_name'].startsWith('2025 '))!.failure).toBeUndefined();
    expect(findings.cases.map((c) => c['@_name'])).toEqual(['envelope-id-reused (API user 123456789)']);
    expect(findings.cases[0].failure).toMatchObject({
      '@_type': 'warning',
      '@_message': 'warning: envelope-id-reused',
    });
    // At error, a warning is noted (skipped), not failed.
    const lenient = suites(sim.report('junit', { failOn: 'error' }))[1];
    expect(lenient.failures).toBe(0);
    expect(lenient.skipped).toBe(1);
  });

  it('JUnit stays valid whatever a finding or hint holds', async () => {
    // (A name with control characters is refused where it is given: robustness/edges.test.ts.)
    const odd = await simulator({ name: `odd]]><x>&"name'`, apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });
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
      ['require=2025,nope', 'require nope is not a code of the service (see mfa-sim --codes)'],
      ['require=2025,', 'require takes `all` or a comma-separated list of codes, e.g. 2025,-4036'],
      [
        'require=all&require=2025',
        'require is given more than once: give it once (a comma-separated list where it takes several)',
      ],
      [
        'format=junit&format=junit',
        'format is given more than once: give it once (a comma-separated list where it takes several)',
      ],
      [
        'failOn=error&failOn=error',
        'failOn is given more than once: give it once (a comma-separated list where it takes several)',
      ],
      // Checked after the format was read: still a JSON answer, not JSON labelled Markdown or XML.
      ['scope=nope', 'scope must be run or scenario'],
      ['format=junit&scope=nope', 'scope must be run or scenario'],
      ['format=junit&failOn=fatal', 'failOn must be one of info, warning, error'],
    ]) {
      const r = await fetch(`${sim.url}/__sim/report?${query}`);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type'), query).toMatch(/^application\/json/);
      expect(await r.json()).toEqual({ error });
    }
  });
});
