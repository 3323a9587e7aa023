import { codeInfo, SERVICE_CODES } from '../codes.js';
import { ControlError } from '../errors.js';
import { unmetCodes, type CoverageReport } from '../observers/coverage.js';
import type { ObserverFailure } from '../observers/failures.js';
import { markdownCode, markdownText } from '../output/markdown.js';
import { xmlText } from '../output/xml.js';
import { SCOPES, SEVERITIES, type Finding, type HintSeen, type Scope, type Severity } from './finding-types.js';

/**
 * The reports a CI job shows, from one summary of the run: Markdown for a job summary (`--report`, GitHub Actions'
 * `$GITHUB_STEP_SUMMARY`) and JUnit XML for a CI's test view (`--junit`).
 */

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

/**
 * The findings at or above `failOn` that a signed request showed: those that fail the run (anyone can send a request
 * that proves nothing, and a forger must not fail a build).
 */
export function failingFindings(findings: readonly Finding[], failOn: Severity | undefined): Finding[] {
  if (failOn === undefined) return [];
  const at = SEVERITIES.indexOf(failOn);
  return findings.filter((f) => !f.unsigned && SEVERITIES.indexOf(f.severity) >= at);
}

/** A finding's explanation as the reports give it: saying so when no signed request showed it. */
function explained(f: Finding): string {
  return f.unsigned
    ? `${f.explanation} None of the requests that showed it was signed: anyone could have sent them, so it fails no run.`
    : f.explanation;
}

const title = (code: number) => codeInfo(code)?.title ?? '';
/** The requests a finding spans, by journal seq: `#4`, or `#4 to #9`. */
export const requests = (first: number, last: number) => (first === last ? `#${first}` : `#${first} to #${last}`);

/**
 * Each report is at most this many bytes, whatever the traffic: GitHub takes at most 1 MiB of a step's job summary
 * (more fails the upload), and a CI's test view reads JUnit files whole. Findings are listed worst first and hints
 * most frequent first, so what is left out past the bound is the least of each; the report says how much.
 */
export const MAX_REPORT_BYTES = 1_000_000;

/** Room kept for what follows the rows (the line that says what was left out, the end of the document). */
const CLOSING_BYTES = 4096;

/**
 * The first rows that fit in `budget` bytes, each written with `around` more (its line break and indent), and how
 * many did not: none past the first that does not fit, so what is shown keeps its order.
 */
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

/**
 * The Markdown report: a heading, the coverage, the findings and the hints, each a table. The code table's titles and
 * the findings' explanations are the simulator's own Markdown, written for it; everything a client or a test set-up
 * could have chosen (the scenario name, a finding's figures, a hint quoting a value, an API user) passes markdownText.
 */
export function markdownReport(s: RunSummary): string {
  const { coverage } = s;
  const required = new Set(s.required ?? []);
  // The same list, in the same order, as the command line's exit message names.
  const missingRequired = unmetCodes(coverage, s.required ?? []);
  const failing = failingFindings(s.findings, s.failOn);
  const lines: string[] = [
    '## mfa-sim report',
    '',
    `mfa-sim ${s.version}, scenario ${markdownText(s.scenario)}, ${s.requests} request${s.requests === 1 ? '' : 's'} answered.`,
    '',
    scopeLine(s),
    '',
  ];
  if (s.observerFailures.length) {
    lines.push(
      `### Observer failures: the figures below may be wrong`,
      '',
      '| Observer | Failures | Requests | Last error |',
      '|---|---:|---|---|',
    );
    for (const f of s.observerFailures)
      lines.push(
        `| ${markdownText(f.observer)} | ${f.count} | ${requests(f.firstSeq, f.lastSeq)} | ${markdownText(f.message)} |`,
      );
    lines.push('');
  }
  lines.push(`### Contract coverage: ${coverage.met.length} of ${SERVICE_CODES.length} codes met`, '');
  if (missingRequired.length)
    lines.push(
      `**${missingRequired.length} required code${missingRequired.length === 1 ? ' was' : 's were'} never answered:** ${missingRequired.join(', ')}`,
      '',
    );
  if (coverage.met.length) {
    lines.push('| Code | Meaning | Answered |', '|---:|---|---:|');
    for (const c of coverage.met) lines.push(`| ${c} | ${title(c)} | ${coverage.counts[String(c)]} |`);
    lines.push('');
  }
  if (coverage.missing.length) {
    lines.push(
      `<details><summary>${coverage.missing.length} codes never met</summary>`,
      '',
      '| Code | Meaning | Required |',
      '|---:|---|---|',
    );
    for (const c of coverage.missing) lines.push(`| ${c} | ${title(c)} | ${required.has(c) ? 'yes, not met' : ''} |`);
    lines.push('', '</details>', '');
  }
  // The coverage above is bounded by the code table; the findings and hints share what is left, findings first.
  let budget = MAX_REPORT_BYTES - CLOSING_BYTES - Buffer.byteLength(lines.join('\n'));
  const table = (head: string[], rows: string[], what: string, where: string) => {
    const { shown, left } = fitting(rows, budget - head.join('\n').length);
    lines.push(...head, ...shown, '');
    if (left)
      lines.push(
        `**${left} of the ${rows.length} ${what} are left out** to keep this report under ${MAX_REPORT_BYTES} bytes (a job summary takes 1 MiB at most): ${where} has them all.`,
        '',
      );
    budget -= Buffer.byteLength([...head, ...shown].join('\n'));
  };
  lines.push(
    `### Client findings: ${s.findings.length}${s.failOn ? ` (${failing.length} at or above ${s.failOn}, which fail the run)` : ''}`,
    '',
  );
  if (s.findings.length === 0)
    lines.push('None: nothing the client did would be refused or merely tolerated by the service.', '');
  else {
    const rows = s.findings.map(
      (f) =>
        `| ${f.severity} | ${markdownCode(f.id)} | ${markdownText(f.apiUser)} | ${requests(f.firstSeq, f.lastSeq)} | ${f.count} | ${explained(f)}${f.detail ? ` (${markdownText(f.detail)})` : ''} |`,
    );
    table(
      [
        '| Severity | Finding | API user | Requests | Count | What it means and the fix |',
        '|---|---|---|---|---:|---|',
      ],
      rows,
      'findings',
      '`GET /__sim/findings`',
    );
  }
  lines.push(`### Hints given: ${s.hints.length}`, '');
  if (s.hints.length === 0) lines.push('None: no refusal the doctor could explain.', '');
  else {
    const rows = s.hints.map(
      (h) =>
        `| ${h.code} | ${markdownCode(h.id)} | ${markdownText(h.apiUser ?? '')} | ${requests(h.firstSeq, h.lastSeq)} | ${h.count} | ${markdownText(h.text)} |`,
    );
    table(
      ['| Code | Mistake | API user | Requests | Count | Hint |', '|---:|---|---|---|---:|---|'],
      rows,
      'hints',
      '`GET /__sim/findings`',
    );
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

/**
 * JUnit XML: a suite of one test case per code of the contract (met passes; never met is skipped, or fails when
 * required) and a suite of one test case per finding (failing at or above `failOn`, else skipped with its severity).
 */
export function junitReport(s: RunSummary, timestamp: string): string {
  const required = new Set(s.required ?? []);
  const codeCases = SERVICE_CODES.map((c) => {
    const name = `${c} ${title(c)}`;
    const n = s.coverage.counts[String(c)];
    if (n)
      return {
        name,
        xml: `<testcase classname="mfa-sim.coverage" name="${xmlText(name)}" time="0"><system-out>${xmlText(`answered ${n} time${n === 1 ? '' : 's'}`)}</system-out></testcase>`,
      };
    if (required.has(c))
      return {
        name,
        failed: true,
        xml: `<testcase classname="mfa-sim.coverage" name="${xmlText(name)}" time="0"><failure type="coverage" message="${xmlText(`${c} was never answered; --require-coverage demands it`)}"/></testcase>`,
      };
    return {
      name,
      skipped: true,
      xml: `<testcase classname="mfa-sim.coverage" name="${xmlText(name)}" time="0"><skipped/></testcase>`,
    };
  });
  const failing = new Set(failingFindings(s.findings, s.failOn));
  const allFindingCases = s.findings.map((f) => {
    const name = `${f.id} (API user ${f.apiUser})`;
    const body = `${explained(f)}${f.detail ? ` (${f.detail})` : ''}\nRequests ${requests(f.firstSeq, f.lastSeq)}, ${f.count} time${f.count === 1 ? '' : 's'}.`;
    if (failing.has(f))
      return {
        failed: true,
        xml: `<testcase classname="mfa-sim.findings" name="${xmlText(name)}" time="0"><failure type="${f.severity}" message="${xmlText(`${f.severity}: ${f.id}`)}">${xmlText(body)}</failure></testcase>`,
      };
    return {
      skipped: true,
      xml: `<testcase classname="mfa-sim.findings" name="${xmlText(name)}" time="0"><skipped/><system-out>${xmlText(`${f.severity}: ${body}`)}</system-out></testcase>`,
    };
  });
  // Past the bound, one test case stands for the findings left out: failing when any of them fails the run (findings
  // come worst first, so those that fail are shown first).
  const coverageBytes = codeCases.reduce((n, c) => n + Buffer.byteLength(c.xml) + 5, 0);
  const { shown, left } = fitting(
    allFindingCases.map((c) => c.xml),
    MAX_REPORT_BYTES - CLOSING_BYTES - coverageBytes,
    '\n    '.length,
  );
  const findingCases: { failed?: boolean; skipped?: boolean; xml: string }[] = allFindingCases.slice(0, shown.length);
  if (left) {
    const failingLeft = allFindingCases.slice(shown.length).filter((c) => c.failed).length;
    const name = `${left} more findings left out${s.failOn ? ` (${failingLeft} at or above ${s.failOn})` : ''} to keep this file under ${MAX_REPORT_BYTES} bytes: GET /__sim/findings has them all`;
    findingCases.push(
      failingLeft
        ? {
            failed: true,
            xml: `<testcase classname="mfa-sim.findings" name="${xmlText(name)}" time="0"><failure type="${s.failOn}" message="${xmlText(`${failingLeft} findings left out fail the run`)}"/></testcase>`,
          }
        : {
            skipped: true,
            xml: `<testcase classname="mfa-sim.findings" name="${xmlText(name)}" time="0"><skipped/></testcase>`,
          },
    );
  }
  const suite = (name: string, cases: { failed?: boolean; skipped?: boolean; xml: string }[]) => {
    const failures = cases.filter((c) => c.failed).length;
    const skipped = cases.filter((c) => c.skipped).length;
    return {
      failures,
      skipped,
      tests: cases.length,
      xml: `  <testsuite name="${xmlText(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="0" timestamp="${xmlText(timestamp)}">\n${cases.map((c) => `    ${c.xml}`).join('\n')}\n  </testsuite>`,
    };
  };
  const observerCases = s.observerFailures.map((f) => ({
    failed: true,
    xml: `<testcase classname="mfa-sim.observers" name="${xmlText(f.observer)}" time="0"><failure type="observer" message="${xmlText(`the ${f.observer} observer failed ${f.count} time${f.count === 1 ? '' : 's'}: coverage and findings may be wrong`)}">${xmlText(`${f.message}\nRequests ${requests(f.firstSeq, f.lastSeq)}.`)}</failure></testcase>`,
  }));
  const suites = [suite('mfa-sim contract coverage', codeCases), suite('mfa-sim client findings', findingCases)];
  if (observerCases.length) suites.push(suite('mfa-sim observers', observerCases));
  const total = (k: 'failures' | 'tests') => suites.reduce((n, x) => n + x[k], 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mfa-sim ${xmlText(s.version)}" tests="${total('tests')}" failures="${total('failures')}" errors="0" time="0">\n${suites.map((x) => x.xml).join('\n')}\n</testsuites>\n`;
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
  if (failOn !== undefined && !SEVERITIES.includes(failOn as Severity))
    throw new ControlError(400, `failOn must be one of ${SEVERITIES.join(', ')}`);
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((c) => !SERVICE_CODES.includes(c as number)))
  ) {
    throw new ControlError(400, 'required must be a list of codes of the service (see mfa-sim --codes)');
  }
}

/** A report in either format (JUnit needs the time it was made, as its timestamp). */
export function renderReport(s: RunSummary, format: ReportFormat, at = new Date()): string {
  return format === 'junit' ? junitReport(s, at.toISOString()) : markdownReport(s);
}
