import { codeInfo, SERVICE_CODES } from '../codes.js';
import { ControlError } from '../errors.js';
import { unmetCodes, type CoverageReport } from '../observers/coverage.js';
import type { ObserverFailure } from '../observers/failures.js';
import { SCOPES, SEVERITIES, type Finding, type HintSeen, type Scope, type Severity } from './findings.js';

/**
 * The reports a CI job shows, from one summary of the run: Markdown for a job summary (`--report`, GitHub Actions'
 * `$GITHUB_STEP_SUMMARY`) and JUnit XML for a CI's test view (`--junit`).
 */

/** What a report says: the coverage, the findings and the hints given, and what makes the run fail. */
export interface RunSummary {
  version: string;
  /** What it covers: the whole run (from start, across every scenario load) or the current scenario. */
  scope: Scope;
  /** The active scenario. */
  scenario: string;
  /** Scenario loads and resets in this run. */
  scenarioStarts: number;
  /** Requests answered in the scope. */
  requests: number;
  coverage: CoverageReport;
  /** Codes that must have been answered (`--require-coverage`); a code never met among them fails. */
  required?: readonly number[];
  findings: Finding[];
  hints: HintSeen[];
  /** Findings at or above this severity fail (`--fail-on-findings`). */
  failOn?: Severity;
  /** Observers of traffic that failed in the run: coverage and findings may then be wrong. */
  observerFailures: ObserverFailure[];
}

/** The findings at or above `failOn`: those that fail the run. */
export function failingFindings(findings: readonly Finding[], failOn: Severity | undefined): Finding[] {
  if (failOn === undefined) return [];
  const at = SEVERITIES.indexOf(failOn);
  return findings.filter((f) => SEVERITIES.indexOf(f.severity) >= at);
}

const title = (code: number) => codeInfo(code)?.title ?? '';
/** The requests a finding spans, by journal seq: `#4`, or `#4 to #9`. */
export const requests = (first: number, last: number) => (first === last ? `#${first}` : `#${first} to #${last}`);

/** Text in a Markdown table cell: one line, pipes escaped, angle brackets shown as text rather than read as HTML. */
function cell(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/** The Markdown report: a heading, the coverage, the findings and the hints, each a table. */
export function markdownReport(s: RunSummary): string {
  const { coverage } = s;
  const required = new Set(s.required ?? []);
  // The same list, in the same order, as the command line's exit message names.
  const missingRequired = unmetCodes(coverage, s.required ?? []);
  const failing = failingFindings(s.findings, s.failOn);
  const lines: string[] = [
    '## mfa-sim report',
    '',
    `mfa-sim ${s.version}, scenario ${cell(s.scenario)}, ${s.requests} request${s.requests === 1 ? '' : 's'} answered.`,
    '',
    scopeLine(s),
    '',
  ];
  if (s.observerFailures.length) {
    lines.push(`### Observer failures: the figures below may be wrong`, '', '| Observer | Failures | Requests | Last error |', '|---|---:|---|---|');
    for (const f of s.observerFailures) lines.push(`| ${cell(f.observer)} | ${f.count} | ${requests(f.firstSeq, f.lastSeq)} | ${cell(f.message)} |`);
    lines.push('');
  }
  lines.push(`### Contract coverage: ${coverage.met.length} of ${SERVICE_CODES.length} codes met`, '');
  if (missingRequired.length) lines.push(`**${missingRequired.length} required code${missingRequired.length === 1 ? ' was' : 's were'} never answered:** ${missingRequired.join(', ')}`, '');
  if (coverage.met.length) {
    lines.push('| Code | Meaning | Answered |', '|---:|---|---:|');
    for (const c of coverage.met) lines.push(`| ${c} | ${cell(title(c))} | ${coverage.counts[String(c)]} |`);
    lines.push('');
  }
  if (coverage.missing.length) {
    lines.push(`<details><summary>${coverage.missing.length} codes never met</summary>`, '', '| Code | Meaning | Required |', '|---:|---|---|');
    for (const c of coverage.missing) lines.push(`| ${c} | ${cell(title(c))} | ${required.has(c) ? 'yes, not met' : ''} |`);
    lines.push('', '</details>', '');
  }
  lines.push(`### Client findings: ${s.findings.length}${s.failOn ? ` (${failing.length} at or above ${s.failOn}, which fail the run)` : ''}`, '');
  if (s.findings.length === 0) lines.push('None: nothing the client did would be refused or merely tolerated by the service.', '');
  else {
    lines.push('| Severity | Finding | API user | Requests | Count | What it means and the fix |', '|---|---|---|---|---:|---|');
    for (const f of s.findings) {
      lines.push(`| ${f.severity} | \`${f.id}\` | ${f.apiUser} | ${requests(f.firstSeq, f.lastSeq)} | ${f.count} | ${cell(f.explanation)}${f.detail ? ` (${cell(f.detail)})` : ''} |`);
    }
    lines.push('');
  }
  lines.push(`### Hints given: ${s.hints.length}`, '');
  if (s.hints.length === 0) lines.push('None: no refusal the doctor could explain.', '');
  else {
    lines.push('| Code | Mistake | API user | Requests | Count | Hint |', '|---:|---|---|---|---:|---|');
    for (const h of s.hints) lines.push(`| ${h.code} | \`${h.id}\` | ${h.apiUser ?? ''} | ${requests(h.firstSeq, h.lastSeq)} | ${h.count} | ${cell(h.text)} |`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/** What the report covers, in one sentence. */
function scopeLine(s: RunSummary): string {
  const loads = `${s.scenarioStarts} scenario load${s.scenarioStarts === 1 ? '' : 's'} or reset${s.scenarioStarts === 1 ? '' : 's'}`;
  return s.scope === 'run'
    ? `The whole run: every request since the simulator started (or since the last new run), across ${loads}.`
    : `The current scenario only: the requests since it was last loaded or reset (the run had ${loads}).`;
}

/** Text fit for XML: the five special characters escaped, and characters XML 1.0 cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/**
 * JUnit XML: a suite of one test case per code of the contract (met passes; never met is skipped, or fails when
 * required) and a suite of one test case per finding (failing at or above `failOn`, else skipped with its severity).
 */
export function junitReport(s: RunSummary, timestamp: string): string {
  const required = new Set(s.required ?? []);
  const codeCases = SERVICE_CODES.map((c) => {
    const name = `${c} ${title(c)}`;
    const n = s.coverage.counts[String(c)];
    if (n) return { name, xml: `<testcase classname="mfa-sim.coverage" name="${xml(name)}" time="0"><system-out>${xml(`answered ${n} time${n === 1 ? '' : 's'}`)}</system-out></testcase>` };
    if (required.has(c)) return { name, failed: true, xml: `<testcase classname="mfa-sim.coverage" name="${xml(name)}" time="0"><failure type="coverage" message="${xml(`${c} was never answered; --require-coverage demands it`)}"/></testcase>` };
    return { name, skipped: true, xml: `<testcase classname="mfa-sim.coverage" name="${xml(name)}" time="0"><skipped/></testcase>` };
  });
  const failing = new Set(failingFindings(s.findings, s.failOn));
  const findingCases = s.findings.map((f) => {
    const name = `${f.id} (API user ${f.apiUser})`;
    const body = `${f.explanation}${f.detail ? ` (${f.detail})` : ''}\nRequests ${requests(f.firstSeq, f.lastSeq)}, ${f.count} time${f.count === 1 ? '' : 's'}.`;
    if (failing.has(f)) return { failed: true, xml: `<testcase classname="mfa-sim.findings" name="${xml(name)}" time="0"><failure type="${f.severity}" message="${xml(`${f.severity}: ${f.id}`)}">${xml(body)}</failure></testcase>` };
    return { skipped: true, xml: `<testcase classname="mfa-sim.findings" name="${xml(name)}" time="0"><skipped/><system-out>${xml(`${f.severity}: ${body}`)}</system-out></testcase>` };
  });
  const suite = (name: string, cases: { failed?: boolean; skipped?: boolean; xml: string }[]) => {
    const failures = cases.filter((c) => c.failed).length;
    const skipped = cases.filter((c) => c.skipped).length;
    return { failures, skipped, tests: cases.length, xml: `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="0" timestamp="${xml(timestamp)}">\n${cases.map((c) => `    ${c.xml}`).join('\n')}\n  </testsuite>` };
  };
  const observerCases = s.observerFailures.map((f) => ({
    failed: true,
    xml: `<testcase classname="mfa-sim.observers" name="${xml(f.observer)}" time="0"><failure type="observer" message="${xml(`the ${f.observer} observer failed ${f.count} time${f.count === 1 ? '' : 's'}: coverage and findings may be wrong`)}">${xml(`${f.message}\nRequests ${requests(f.firstSeq, f.lastSeq)}.`)}</failure></testcase>`,
  }));
  const suites = [suite('mfa-sim contract coverage', codeCases), suite('mfa-sim client findings', findingCases)];
  if (observerCases.length) suites.push(suite('mfa-sim observers', observerCases));
  const total = (k: 'failures' | 'tests') => suites.reduce((n, x) => n + x[k], 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mfa-sim ${xml(s.version)}" tests="${total('tests')}" failures="${total('failures')}" errors="0" time="0">\n${suites.map((x) => x.xml).join('\n')}\n</testsuites>\n`;
}

/** The formats a report is written in. */
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
  if (failOn !== undefined && !SEVERITIES.includes(failOn as Severity)) throw new ControlError(400, `failOn must be one of ${SEVERITIES.join(', ')}`);
  if (required !== undefined && (!Array.isArray(required) || required.some((c) => !SERVICE_CODES.includes(c as number)))) {
    throw new ControlError(400, 'required must be a list of codes of the service (see mfa-sim --codes)');
  }
}

/** A report in either format (JUnit needs the time it was made, as its timestamp). */
export function renderReport(s: RunSummary, format: ReportFormat, at = new Date()): string {
  return format === 'junit' ? junitReport(s, at.toISOString()) : markdownReport(s);
}
