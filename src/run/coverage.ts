import { codeInfo, SERVICE_CODES } from '../contract/codes.js';
import type { AnsweredEvents } from './answered-events.js';

// Status coverage: an observer of "answered" counting the codes the service gave, and the `--require-coverage` gate.

/** Codes outside the code table counted at most (an upstream's, in proxy mode): the first so many of them. */
export const MAX_OTHER_CODES = 100;

/** What `coverageReport()` returns: how often each code was answered, and which codes of the service were met. */
export interface CoverageReport {
  counts: Record<string, number>;
  met: number[];
  missing: number[];
}

/** Coverage as plain data: each code's count, in the order first answered, and how many outside the table. */
export interface CoverageState {
  counts: [number, number][];
  others: number;
}

/** Status coverage, an observer of "answered". */
export class Coverage {
  private readonly counts = new Map<number, number>();
  private others = 0;

  /** Counts every answer from now on that counts as one the service gave; `name` names it when it fails. */
  observe(events: AnsweredEvents, name = 'coverage'): () => void {
    return events.subscribe(name, ({ record, counts }) => {
      if (counts && record.code !== undefined) this.count(record.code);
    });
  }

  private count(code: number): void {
    const n = this.counts.get(code);
    if (n !== undefined) return void this.counts.set(code, n + 1);
    // In proxy mode the upstream may answer any integer: only the first codes outside the table are counted.
    if (codeInfo(code) === undefined) {
      if (this.others === MAX_OTHER_CODES) return;
      this.others++;
    }
    this.counts.set(code, 1);
  }

  /** How often each code was answered, and which codes of the service were met and never met. */
  report(): CoverageReport {
    return {
      counts: Object.fromEntries(this.counts),
      met: SERVICE_CODES.filter((c) => this.counts.has(c)),
      missing: SERVICE_CODES.filter((c) => !this.counts.has(c)),
    };
  }

  clear(): void {
    this.counts.clear();
    this.others = 0;
  }

  state(): CoverageState {
    return { counts: [...this.counts], others: this.others };
  }

  restore(state: CoverageState): void {
    this.clear();
    for (const [code, n] of state.counts) this.counts.set(code, n);
    this.others = state.others;
  }
}

/** The codes `--require-coverage` demands: `all` (every code of the service) or a comma-separated list of codes. */
export function parseRequiredCodes(spec: string): number[] {
  const text = spec.trim();
  if (text.toLowerCase() === 'all') return [...SERVICE_CODES];
  const codes = text.split(',').map((s) => s.trim());
  if (codes.length === 0 || codes.some((c) => c === ''))
    throw new Error('takes `all` or a comma-separated list of codes, e.g. 2025,-4036');
  return codes.map((c) => {
    const n = Number(c);
    if (!/^-?\d+$/.test(c) || !SERVICE_CODES.includes(n))
      throw new Error(`${c.slice(0, 20)} is not a code of the service (see mfa-sim --codes)`);
    return n;
  });
}

/** The required codes the report shows were never answered, in the order required. */
export function unmetCodes(report: CoverageReport, required: readonly number[]): number[] {
  return [...new Set(required)].filter((c) => !report.counts[String(c)]);
}
