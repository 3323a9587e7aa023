/**
 * What proxy mode finds in the service's answers: each deviation a finding kind of its own (registered with the
 * client doctor's kinds, doctor/finding-kinds.ts), and what a journal entry of a forwarded request carries.
 */

/** An answer that breaks the contract (judge.ts). */
export type ContractKind =
  | 'service-not-json'
  | 'service-envelope-keys'
  | 'service-envelope-types'
  | 'service-utctime-format'
  | 'service-code-unknown'
  | 'service-status-mismatch'
  | 'service-code-scope'
  | 'service-more-info'
  | 'service-no-answer';

/** An answer other than mfa-sim's (compare.ts): the shadow comparison and the probe. */
export type DifferenceKind = 'service-differs-status' | 'service-differs-envelope' | 'service-differs-message';

/** One thing found in one answer: its kind, and what exactly, with both answers. */
export interface Deviation {
  kind: ContractKind | DifferenceKind;
  detail: string;
}

/** An answer as a journal entry of proxy mode shows mfa-sim's: its status, code and body (every secret hidden). */
export interface AnswerShown {
  http: number;
  code?: number;
  body: string;
}

/**
 * What a journal entry of a forwarded request adds: where it went, what mfa-sim would have answered, what was found.
 */
export interface Forwarding {
  /** The upstream's base URL. */
  url: string;
  /** Why the upstream gave no answer (the client got -5000 with it), when it gave none. */
  failure?: string;
  /** What mfa-sim would have answered (the shadow), when the operator gave the API user's secret. */
  mfaSim?: AnswerShown;
  deviations: Deviation[];
}
