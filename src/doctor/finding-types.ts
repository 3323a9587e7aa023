/** What the client doctor reports, as reports, the control API and the package's users see it. */

export type Severity = 'info' | 'warning' | 'error';
export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'error'];
/**
 * Which requests a view covers: the whole `run` (from start, across every scenario load, what a suite is judged on)
 * or the current `scenario` (since it was loaded or reset, what one test looks at).
 */
export type Scope = 'run' | 'scenario';
export const SCOPES: readonly Scope[] = ['run', 'scenario'];

/** One thing a client did, however often. */
export interface Finding {
  /** Stable: reports and tests name findings by it. */
  id: string;
  severity: Severity;
  /** The API user whose requests showed it (`unknown` for the row of API users the simulator does not know). */
  apiUser: string;
  /** What the client did, why it matters, and the fix. */
  explanation: string;
  /** The latest figures behind it, when it has some ("1.2 s apart"). */
  detail?: string;
  firstSeq: number;
  lastSeq: number;
  count: number;
  /**
   * Made only from requests that did not prove who sent them (an API user the simulator does not know): anyone could
   * have sent them, so it is listed but never fails a run, at any `failOn`.
   */
  unsigned?: true;
}

/** A hint the doctor gave (a signature mistake, a clock off, a nonce reused), however often. */
export interface HintSeen {
  code: number;
  id: string;
  text: string;
  apiUser?: string;
  firstSeq: number;
  lastSeq: number;
  count: number;
}
