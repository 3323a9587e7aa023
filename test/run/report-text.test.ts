import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeInfo, SERVICE_CODES } from '../../src/contract/codes.js';
import { FINDING_KINDS } from '../../src/run/finding-types.js';
import { expectEnvelope, send, simulator } from '../helpers.js';

/**
 * The reports word for word, after a run of known requests: every line of the Markdown report, and the JUnit report's
 * suites and test cases, singular and plural, a range of requests and a single one, the required code never met,
 * the findings that fail and those that do not. Their shape (renders as tables, validates against the schema):
 * reports.test.ts.
 */
const MAIN = { apiUser: '123456789', secret: 'report-text-secret' };
const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  version: string;
};
const T = Date.UTC(2026, 0, 15, 12, 0, 0);
const title = (c: number) => codeInfo(c)!.title;

describe('the reports, word for word', async () => {
  const sim = await simulator({
    name: 'report-text',
    apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
    clock: { frozenAt: T },
  });
  const challenge = (t: number, id: string, body: unknown) =>
    send(sim, '/v1/svc/challenge', {
      as: MAIN,
      time: t,
      body: { id, utctime: String(t), apiUser: MAIN.apiUser, type: 150, body },
    });
  const userBody = { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern' };
  const wrongSecret = (t: number) =>
    send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: MAIN.apiUser, secret: 'not-it' }, time: t });

  /** #1 a body sent as a JSON string; #2 to #4 one envelope id three times; #5 a time; #6 and #7 a wrong secret. */
  async function run(): Promise<string> {
    sim.newRun();
    sim.freeze(T);
    expectEnvelope(await challenge(T + 1, 'a', JSON.stringify(userBody)), 202, 2025);
    for (let i = 2; i <= 4; i++) expectEnvelope(await challenge(T + i, 'b', userBody), 202, 2025);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: T + 5 }), 200, 15000);
    expectEnvelope(await wrongSecret(T + 6), 400, -4037);
    expectEnvelope(await wrongSecret(T + 7), 400, -4037);
    const [hint] = sim.hints();
    // A hint is text in its table cell: what can start markup in it (its colons, its backslashes) is escaped.
    expect(hint.text).not.toMatch(/[|<>&\r\n]/);
    return hint.text.replace(/[:\\]/g, '\\$&');
  }

  it('Markdown: every line', async () => {
    const hint = await run();
    const met = [-4037, 2025, 15000].sort((a, b) => SERVICE_CODES.indexOf(a) - SERVICE_CODES.indexOf(b));
    const missing = SERVICE_CODES.filter((c) => !met.includes(c));
    for (const c of SERVICE_CODES) expect(title(c)).not.toMatch(/[|<>&\r\n]/);
    const counts: Record<number, number> = { [-4037]: 2, 2025: 4, 15000: 1 };
    expect(sim.report('markdown', { required: [-4036, 2025, -4034], failOn: 'warning' }).split('\n')).toEqual([
      '## mfa-sim report',
      '',
      `mfa-sim ${version}, scenario report-text, 7 requests answered.`,
      '',
      'The whole run: every request since the simulator started (or since the last new run), across 0 scenario loads or resets.',
      '',
      `### Contract coverage: 3 of ${SERVICE_CODES.length} codes met`,
      '',
      '**2 required codes were never answered:** -4036, -4034',
      '',
      '| Code | Meaning | Answered |',
      '|---:|---|---:|',
      ...met.map((c) => `| ${c} | ${title(c)} | ${counts[c]} |`),
      '',
      `<details><summary>${missing.length} codes never met</summary>`,
      '',
      '| Code | Meaning | Required |',
      '|---:|---|---|',
      ...missing.map((c) => `| ${c} | ${title(c)} | ${c === -4036 || c === -4034 ? 'yes, not met' : ''} |`),
      '',
      '</details>',
      '',
      '### Client findings: 2 (1 at or above warning, which fail the run)',
      '',
      '| Severity | Finding | API user | Requests | Count | What it means and the fix |',
      '|---|---|---|---|---:|---|',
      `| warning | \`envelope-id-reused\` | ${MAIN.apiUser} | #3 to #4 | 2 | ${FINDING_KINDS['envelope-id-reused'].explanation} (request 3 sent the same id) |`,
      `| info | \`body-as-string\` | ${MAIN.apiUser} | #1 | 1 | ${FINDING_KINDS['body-as-string'].explanation} |`,
      '',
      '### Hints given: 1',
      '',
      '| Code | Mistake | API user | Requests | Count | Hint |',
      '|---:|---|---|---|---:|---|',
      `| -4037 | \`no-known-mistake\` | ${MAIN.apiUser} | #6 to #7 | 2 | ${hint} |`,
      '',
      '',
    ]);
  });

  it('Markdown: one request, nothing found, no hint, every required code met, no severity that fails', async () => {
    sim.newRun();
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: T + 10 }), 200, 15000);
    const lines = sim.report('markdown', { required: [15000] }).split('\n');
    expect(lines.slice(0, 9)).toEqual([
      '## mfa-sim report',
      '',
      `mfa-sim ${version}, scenario report-text, 1 request answered.`,
      '',
      'The whole run: every request since the simulator started (or since the last new run), across 0 scenario loads or resets.',
      '',
      `### Contract coverage: 1 of ${SERVICE_CODES.length} codes met`,
      '',
      '| Code | Meaning | Answered |',
    ]);
    expect(lines.slice(-9)).toEqual([
      '### Client findings: 0',
      '',
      'None: nothing the client did would be refused or merely tolerated by the service.',
      '',
      '### Hints given: 0',
      '',
      'None: no refusal the doctor could explain.',
      '',
      '',
    ]);
  });

  it('JUnit: the suites, a code met once and more often, the required code never met, findings failing and not', async () => {
    await run();
    const xml = sim.report('junit', { required: [-4036], failOn: 'warning' });
    const lines = xml.split('\n');
    const n = SERVICE_CODES.length;
    expect(lines[0]).toBe('<?xml version="1.0" encoding="UTF-8"?>');
    expect(lines[1]).toBe(`<testsuites name="mfa-sim ${version}" tests="${n + 2}" failures="2" errors="0" time="0">`);
    expect(lines[2]).toMatch(
      new RegExp(
        `^  <testsuite name="mfa-sim contract coverage" tests="${n}" failures="1" errors="0" skipped="${n - 4}" time="0" timestamp="\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z">$`,
      ),
    );
    const at = (c: number) => lines[3 + SERVICE_CODES.indexOf(c)];
    expect(at(2025)).toBe(
      `    <testcase classname="mfa-sim.coverage" name="2025 ${title(2025)}" time="0"><system-out>answered 4 times</system-out></testcase>`,
    );
    expect(at(15000)).toBe(
      `    <testcase classname="mfa-sim.coverage" name="15000 ${title(15000)}" time="0"><system-out>answered 1 time</system-out></testcase>`,
    );
    expect(at(-4036)).toBe(
      `    <testcase classname="mfa-sim.coverage" name="-4036 ${title(-4036)}" time="0"><failure type="coverage" message="-4036 was never answered; --require-coverage demands it"/></testcase>`,
    );
    expect(at(-4034)).toBe(
      `    <testcase classname="mfa-sim.coverage" name="-4034 ${title(-4034)}" time="0"><skipped/></testcase>`,
    );
    const rest = lines.slice(3 + n);
    expect(rest[0]).toBe('  </testsuite>');
    expect(rest[1]).toMatch(
      /^ {2}<testsuite name="mfa-sim client findings" tests="2" failures="1" errors="0" skipped="1" time="0" timestamp="[^"]+">$/,
    );
    const reused = FINDING_KINDS['envelope-id-reused'].explanation.replace(/'/g, '&apos;');
    expect(rest[2]).toBe(
      `    <testcase classname="mfa-sim.findings" name="envelope-id-reused (API user ${MAIN.apiUser})" time="0"><failure type="warning" message="warning: envelope-id-reused">${reused} (request 3 sent the same id)`,
    );
    expect(rest[3]).toBe('Requests #3 to #4, 2 times.</failure></testcase>');
    expect(rest[4]).toBe(
      `    <testcase classname="mfa-sim.findings" name="body-as-string (API user ${MAIN.apiUser})" time="0"><skipped/><system-out>info: ${FINDING_KINDS['body-as-string'].explanation}`,
    );
    expect(rest[5]).toBe('Requests #1, 1 time.</system-out></testcase>');
    expect(rest.slice(6)).toEqual(['  </testsuite>', '</testsuites>', '']);
    // Without a severity that fails, every finding is skipped.
    expect(sim.report('junit').match(/<failure/g)).toBeNull();
  });

  it('a hint quoting what the client sent is text in its table cell: a pipe, an ampersand, an angle bracket, a backtick', async () => {
    // One API user for each character: a hint is kept once per code, kind and API user.
    const quoted = ['|', '&', '<', '`'];
    const users = quoted.map((_, i) => ({ apiUser: `90000000${i}`, secret: `report-cell-secret-${i}` }));
    const own = await simulator({
      name: 'report-cells',
      apiUsers: users.map((u) => ({ id: u.apiUser, secret: u.secret })),
      clock: { frozenAt: T },
    });
    // 128 characters whose first one is not hexadecimal: the hint quotes that character (-4027, not-hex).
    for (const [i, ch] of quoted.entries()) {
      const r = await send(own, '/v1/svc/time', {
        method: 'GET',
        as: users[i],
        time: T + 1 + i,
        mutate: (h) =>
          (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature=${ch}${'a'.repeat(127)}`)),
      });
      expectEnvelope(r, 400, -4027);
    }
    // Quoted as a code span that holds any character: a backtick in one of two backticks, with spaces.
    expect(own.hints().map((h) => h.text)).toEqual(
      ['`|`', '`&`', '`<`', '`` ` ``'].map((q) => `128 characters, but ${q} at position 1 is not hexadecimal`),
    );
    const rows = own
      .report('markdown')
      .split('\n')
      .filter((line) => line.startsWith('| -4027 | `not-hex`'));
    expect(rows).toEqual([
      `| -4027 | \`not-hex\` | ${users[0].apiUser} | #1 | 1 | 128 characters, but \\\`\\|\\\` at position 1 is not hexadecimal |`,
      `| -4027 | \`not-hex\` | ${users[1].apiUser} | #2 | 1 | 128 characters, but \\\`\\&\\\` at position 1 is not hexadecimal |`,
      `| -4027 | \`not-hex\` | ${users[2].apiUser} | #3 | 1 | 128 characters, but \\\`\\<\\\` at position 1 is not hexadecimal |`,
      `| -4027 | \`not-hex\` | ${users[3].apiUser} | #4 | 1 | 128 characters, but \\\`\\\` \\\` \\\`\\\` at position 1 is not hexadecimal |`,
    ]);
  });
});
