import { codeInfo, SERVICE_CODES } from '../contract/codes.js';
import { ControlError } from '../contract/errors.js';
import { unmetCodes, type CoverageReport } from './coverage.js';
import type { ObserverFailure } from './failures.js';
import { markdownCode, markdownText } from '../output/markdown.js';
import { xmlText } from '../output/xml.js';
import { SCOPES, SEVERITIES, type Finding, type HintSeen, type Scope, type Severity } from './finding-types.js';

/** What a report or a verdict judges, and of which requests. */
export interface ReportOptions {
  /** The run is over (at exit): a challenge still waiting was left open. */
  final?: boolean;
  /** Codes that must have been answered (`--require-coverage`). */
  required?: readonly number[];
  /** Findings at or above this severity fail (`--fail-on-findings`). */
  failOn?: Severity;
  /** The whole run (default) or the current scenario. */
  scope?: Scope;
}

/** What a report says: the coverage, the findings and the hints given, and what makes the run fail. */
export interface RunSummary {
  version: string;
  scope: Scope;
  scenario: string;
  /** Scenario loads and resets in this run. */
  scenarioStarts: number;
  /** Requests answered in the scope. */
  requests: number;
  coverage: CoverageReport;
  required?: readonly number[];
  findings: Finding[];
  hints: HintSeen[];
  failOn?: Severity;
  /** Observers of traffic that failed in the run: coverage and findings may then be wrong. */
  observerFailures: ObserverFailure[];
}

/** The findings at or above `failOn` that a signed request showed (a forger must not fail a build). */
function failingFindings(findings: readonly Finding[], failOn: Severity | undefined): Finding[] {
  if (failOn === undefined) return [];
  const at = SEVERITIES.indexOf(failOn);
  return findings.filter((f) => !f.unsigned && SEVERITIES.indexOf(f.severity) >= at);
}

/** A finding's explanation and detail as the reports give them, saying so when no signed request showed it. */
function explained(f: Finding, text = (t: string) => t): string {
  const said = f.unsigned
    ? `${f.explanation} None of the requests that showed it was signed: anyone could have sent them, so it fails no run.`
    : f.explanation;
  return f.detail ? `${said} (${text(f.detail)})` : said;
}

const title = (code: number) => codeInfo(code)?.title ?? '';
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** The requests a finding spans, by journal seq: `#4`, or `#4 to #9`. */
const requests = ({ firstSeq: a, lastSeq: b }: { firstSeq: number; lastSeq: number }) =>
  a === b ? `#${a}` : `#${a} to #${b}`;
const row = (...cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

/** Each report is at most this many bytes, whatever the traffic. */
export const MAX_REPORT_BYTES = 1_000_000;
/** Room kept for what follows the rows (the line that says what was left out, the end of the document). */
const CLOSING_BYTES = 4096;

/** The first rows that fit in `budget` bytes, each with `around` more (its line break and indent), and how many not. */
function fitting(rows: readonly string[], budget: number, around = 1): { shown: string[]; left: number } {
  const shown: string[] = [];
  let used = 0;
  for (const row of rows) {
    used += Buffer.byteLength(row) + around;
    if (used > budget) break;
    shown.push(row);
  }
  return { shown, left: rows.length - shown.length };
}

/** The Markdown report: the simulator's own text is Markdown; all a client or set-up could choose is escaped. */
export function markdownReport(s: RunSummary): string {
  const { coverage } = s;
  const required = new Set(s.required ?? []);
  // The same list, in the same order, as the command line's exit message names.
  const unmet = unmetCodes(coverage, s.required ?? []);
  const failing = failingFindings(s.findings, s.failOn);
  const loads = `${plural(s.scenarioStarts, 'scenario load')} or reset${s.scenarioStarts === 1 ? '' : 's'}`;
  const lines = [
    '## mfa-sim report',
    '',
    `mfa-sim ${s.version}, scenario ${markdownText(s.scenario)}, ${plural(s.requests, 'request')} answered.`,
    '',
    s.scope === 'run'
      ? `The whole run: every request since the simulator started (or since the last new run), across ${loads}.`
      : `The current scenario only: the requests since it was last loaded or reset (the run had ${loads}).`,
    '',
  ];
  if (s.observerFailures.length) {
    lines.push(`### Observer failures: the figures below may be wrong`, '');
    lines.push('| Observer | Failures | Requests | Last error |', '|---|---:|---|---|');
    for (const f of s.observerFailures)
      lines.push(row(markdownText(f.observer), f.count, requests(f), markdownText(f.message)));
    lines.push('');
  }
  lines.push(`### Contract coverage: ${coverage.met.length} of ${SERVICE_CODES.length} codes met`, '');
  if (unmet.length)
    lines.push(
      `**${unmet.length} required code${unmet.length === 1 ? ' was' : 's were'} never answered:** ${unmet.join(', ')}`,
      '',
    );
  if (coverage.met.length) {
    lines.push('| Code | Meaning | Answered |', '|---:|---|---:|');
    for (const c of coverage.met) lines.push(row(c, title(c), coverage.counts[String(c)]));
    lines.push('');
  }
  if (coverage.missing.length) {
    lines.push(`<details><summary>${coverage.missing.length} codes never met</summary>`, '');
    lines.push('| Code | Meaning | Required |', '|---:|---|---|');
    for (const c of coverage.missing) lines.push(row(c, title(c), required.has(c) ? 'yes, not met' : ''));
    lines.push('', '</details>', '');
  }
  // The coverage above is bounded by the code table; the findings and hints share what is left, findings first.
  let budget = MAX_REPORT_BYTES - CLOSING_BYTES - Buffer.byteLength(lines.join('\n'));
  const section = (heading: string, none: string, head: string, align: string, rows: string[], what: string) => {
    lines.push(heading, '');
    if (rows.length === 0) return void lines.push(none, '');
    const { shown, left } = fitting(rows, budget - `${head}\n${align}`.length);
    lines.push(head, align, ...shown, '');
    if (left)
      lines.push(
        `**${left} of the ${rows.length} ${what} are left out** to keep this report under ${MAX_REPORT_BYTES} bytes (a job summary takes 1 MiB at most): \`GET /__sim/findings\` has them all.`,
        '',
      );
    budget -= Buffer.byteLength([head, align, ...shown].join('\n'));
  };
  section(
    `### Client findings: ${s.findings.length}${s.failOn ? ` (${failing.length} at or above ${s.failOn}, which fail the run)` : ''}`,
    'None: nothing the client did would be refused or merely tolerated by the service.',
    '| Severity | Finding | API user | Requests | Count | What it means and the fix |',
    '|---|---|---|---|---:|---|',
    s.findings.map((f) =>
      row(f.severity, markdownCode(f.id), markdownText(f.apiUser), requests(f), f.count, explained(f, markdownText)),
    ),
    'findings',
  );
  section(
    `### Hints given: ${s.hints.length}`,
    'None: no refusal the doctor could explain.',
    '| Code | Mistake | API user | Requests | Count | Hint |',
    '|---:|---|---|---|---:|---|',
    s.hints.map((h) =>
      row(h.code, markdownCode(h.id), markdownText(h.apiUser ?? ''), requests(h), h.count, markdownText(h.text)),
    ),
    'hints',
  );
  return `${lines.join('\n')}\n`;
}

/** A JUnit test case, as a suite counts it. */
type Case = { xml: string; failed?: true; skipped?: true };

const testcase = (group: string, name: string, inner: string) =>
  `<testcase classname="mfa-sim.${group}" name="${xmlText(name)}" time="0">${inner}</testcase>`;
const out = (text?: string) => (text === undefined ? '' : `<system-out>${xmlText(text)}</system-out>`);
const skipped = (group: string, name: string, text?: string): Case => ({
  skipped: true,
  xml: testcase(group, name, `<skipped/>${out(text)}`),
});
function failed(group: string, name: string, type: string, message: string, body?: string): Case {
  const failure = `<failure type="${type}" message="${xmlText(message)}"`;
  const inner = body === undefined ? `${failure}/>` : `${failure}>${xmlText(body)}</failure>`;
  return { failed: true, xml: testcase(group, name, inner) };
}

/** JUnit XML: a suite of one test case per code of the contract. */
export function junitReport(s: RunSummary, timestamp: string): string {
  const required = new Set(s.required ?? []);
  const codeCases = SERVICE_CODES.map((c): Case => {
    const name = `${c} ${title(c)}`;
    const n = s.coverage.counts[String(c)];
    if (n) return { xml: testcase('coverage', name, out(`answered ${plural(n, 'time')}`)) };
    if (required.has(c))
      return failed('coverage', name, 'coverage', `${c} was never answered; --require-coverage demands it`);
    return skipped('coverage', name);
  });
  const failing = new Set(failingFindings(s.findings, s.failOn));
  const findingCases = s.findings.map((f) => {
    const name = `${f.id} (API user ${f.apiUser})`;
    const body = `${explained(f)}\nRequests ${requests(f)}, ${plural(f.count, 'time')}.`;
    if (failing.has(f)) return failed('findings', name, f.severity, `${f.severity}: ${f.id}`, body);
    return skipped('findings', name, `${f.severity}: ${body}`);
  });
  // Past the bound, one test case stands for the findings left out.
  const coverageBytes = codeCases.reduce((n, c) => n + Buffer.byteLength(c.xml) + 5, 0);
  const budget = MAX_REPORT_BYTES - CLOSING_BYTES - coverageBytes;
  const { left } = fitting(
    findingCases.map((c) => c.xml),
    budget,
    '\n    '.length,
  );
  const leftOut = findingCases.splice(findingCases.length - left);
  if (left) {
    const failingLeft = leftOut.filter((c) => c.failed).length;
    const name = `${left} more findings left out${s.failOn ? ` (${failingLeft} at or above ${s.failOn})` : ''} to keep this file under ${MAX_REPORT_BYTES} bytes: GET /__sim/findings has them all`;
    findingCases.push(
      failingLeft
        ? failed('findings', name, s.failOn!, `${failingLeft} findings left out fail the run`)
        : skipped('findings', name),
    );
  }
  const suites: [string, Case[]][] = [
    ['mfa-sim contract coverage', codeCases],
    ['mfa-sim client findings', findingCases],
  ];
  if (s.observerFailures.length) {
    const observerCases = s.observerFailures.map((f) => {
      const message = `the ${f.observer} observer failed ${plural(f.count, 'time')}: coverage and findings may be wrong`;
      return failed('observers', f.observer, 'observer', message, `${f.message}\nRequests ${requests(f)}.`);
    });
    suites.push(['mfa-sim observers', observerCases]);
  }
  const counted = (cases: Case[], what: 'failed' | 'skipped') => cases.filter((c) => c[what]).length;
  const xml = suites.map(
    ([name, cases]) =>
      `  <testsuite name="${xmlText(name)}" tests="${cases.length}" failures="${counted(cases, 'failed')}" errors="0" skipped="${counted(cases, 'skipped')}" time="0" timestamp="${xmlText(timestamp)}">\n${cases.map((c) => `    ${c.xml}`).join('\n')}\n  </testsuite>`,
  );
  const all = suites.flatMap(([, cases]) => cases);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mfa-sim ${xmlText(s.version)}" tests="${all.length}" failures="${counted(all, 'failed')}" errors="0" time="0">\n${xml.join('\n')}\n</testsuites>\n`;
}

export type ReportFormat = 'markdown' | 'junit';

/** The format a caller asked for; a ControlError (400) for any other (in-process callers pass anything). */
export function reportFormat(format: unknown): ReportFormat {
  if (format !== 'markdown' && format !== 'junit') throw new ControlError(400, 'format must be markdown or junit');
  return format;
}

/** The scope a caller asked for; a ControlError (400) for any other (in-process callers pass anything). */
export function checkScope(scope: unknown): Scope {
  if (!SCOPES.includes(scope as Scope)) throw new ControlError(400, `scope must be ${SCOPES.join(' or ')}`);
  return scope as Scope;
}

/** The gates a caller gives a report; a ControlError (400) names the first that is wrong. */
export function checkReportGates(required: unknown, failOn: unknown): void {
  if (failOn !== undefined && !SEVERITIES.includes(failOn as Severity))
    throw new ControlError(400, `failOn must be one of ${SEVERITIES.join(', ')}`);
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((c) => !SERVICE_CODES.includes(c as number)))
  )
    throw new ControlError(400, 'required must be a list of codes of the service (see mfa-sim --codes)');
}

/** A report in either format (JUnit needs the time it was made, as its timestamp). */
export function renderReport(s: RunSummary, format: ReportFormat, at = new Date()): string {
  return format === 'junit' ? junitReport(s, at.toISOString()) : markdownReport(s);
}

/** The exit statuses a run can end with (the command line adds 1, could not run, and 2, bad flag or scenario). */
export const VERDICT_STATUS = { ok: 0, coverage: 3, findings: 4, observers: 5 } as const;

/** A run's verdict: the exit status, and why. */
export interface Verdict {
  /** 0 passed; 3 a required code never answered; 4 findings that fail the run; 5 an observer of traffic failed. */
  status: (typeof VERDICT_STATUS)[keyof typeof VERDICT_STATUS];
  /** Why it failed, as the command line prints it: one line per reason; empty when it passed. */
  lines: string[];
  /** The required codes never answered, in the order required. */
  unmet: number[];
}

/** The verdict of the command line's exit and of the in-process `verdict()`. */
export function verdictOf(s: RunSummary): Verdict {
  const unmet = s.required ? unmetCodes(s.coverage, s.required) : [];
  const lines: string[] = [];
  if (s.observerFailures.length) {
    lines.push(
      `observers: ${plural(s.observerFailures.length, 'observer')} of traffic failed, so coverage and findings may be wrong (a bug of mfa-sim's):`,
    );
    for (const f of s.observerFailures) lines.push(`  ${f.observer}: ${f.count}× (${requests(f)}), last: ${f.message}`);
    return { status: VERDICT_STATUS.observers, lines, unmet };
  }
  // Both gates are explained when both fail; the status is coverage's (3 wins over 4).
  if (unmet.length) {
    lines.push(
      `coverage: ${unmet.length} of ${s.required!.length} required codes were never answered: ${unmet.join(', ')}`,
    );
    for (const c of unmet) lines.push(`  ${String(c).padStart(6)}  ${title(c)}`);
  }
  const failing = failingFindings(s.findings, s.failOn);
  if (failing.length) {
    lines.push(`the client doctor found ${plural(failing.length, 'finding')} at or above ${s.failOn}:`);
    for (const f of failing)
      lines.push(`  ${f.severity.padEnd(7)}  ${f.id} (API user ${f.apiUser}, ${requests(f)}, ${f.count}×)`);
  }
  const status = unmet.length ? VERDICT_STATUS.coverage : failing.length ? VERDICT_STATUS.findings : VERDICT_STATUS.ok;
  return { status, lines, unmet };
}
