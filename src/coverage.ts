import { SERVICE_CODES } from './codes.js';

/** What `coverageReport()` returns: how often each code was answered, and which codes of the service were met. */
export interface CoverageReport {
  counts: Record<string, number>;
  met: number[];
  missing: number[];
}

/**
 * The codes `--require-coverage` demands: `all` (every code of the service) or a comma-separated list of
 * codes. Throws an Error with a sentence for anything else.
 */
export function parseRequiredCodes(spec: string): number[] {
  const text = spec.trim();
  if (text.toLowerCase() === 'all') return [...SERVICE_CODES];
  const codes = text.split(',').map((s) => s.trim());
  if (codes.length === 0 || codes.some((c) => c === '')) throw new Error('--require-coverage takes `all` or a comma-separated list of codes, e.g. 2025,-4036');
  return codes.map((c) => {
    const n = Number(c);
    if (!/^-?\d+$/.test(c) || !SERVICE_CODES.includes(n)) throw new Error(`--require-coverage: ${c.slice(0, 20)} is not a code of the service (see mfa-sim --codes)`);
    return n;
  });
}

/** The required codes the report shows were never answered, in the order required. */
export function unmetCodes(report: CoverageReport, required: readonly number[]): number[] {
  return [...new Set(required)].filter((c) => !report.counts[String(c)]);
}
