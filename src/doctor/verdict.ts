import { codeInfo } from '../codes.js';
import { unmetCodes } from '../observers/coverage.js';
import { failingFindings, requests, type RunSummary } from './report.js';

/**
 * The run's verdict from its summary: the command line's exit status and what it prints, and the in-process
 * `verdict()`, from one place. An observer that failed wins (the figures cannot be trusted), then required codes never
 * answered, then findings at or above the severity that fails.
 */

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

export function verdictOf(s: RunSummary): Verdict {
  const unmet = s.required ? unmetCodes(s.coverage, s.required) : [];
  if (s.observerFailures.length) {
    const lines = [
      `observers: ${s.observerFailures.length} observer${s.observerFailures.length === 1 ? '' : 's'} of traffic failed, so coverage and findings may be wrong (a bug of mfa-sim's):`,
    ];
    for (const f of s.observerFailures)
      lines.push(`  ${f.observer}: ${f.count}× (${requests(f.firstSeq, f.lastSeq)}), last: ${f.message}`);
    return { status: VERDICT_STATUS.observers, lines, unmet };
  }
  // Both gates are explained when both fail; the status is coverage's (3 wins over 4).
  const lines: string[] = [];
  if (unmet.length) {
    lines.push(
      `coverage: ${unmet.length} of ${s.required!.length} required codes were never answered: ${unmet.join(', ')}`,
    );
    for (const c of unmet) lines.push(`  ${String(c).padStart(6)}  ${codeInfo(c)?.title ?? ''}`);
  }
  const failing = failingFindings(s.findings, s.failOn);
  if (failing.length) {
    lines.push(
      `the client doctor found ${failing.length} finding${failing.length === 1 ? '' : 's'} at or above ${s.failOn}:`,
    );
    for (const f of failing)
      lines.push(
        `  ${f.severity.padEnd(7)}  ${f.id} (API user ${f.apiUser}, ${requests(f.firstSeq, f.lastSeq)}, ${f.count}×)`,
      );
  }
  const status = unmet.length ? VERDICT_STATUS.coverage : failing.length ? VERDICT_STATUS.findings : VERDICT_STATUS.ok;
  return { status, lines, unmet };
}
