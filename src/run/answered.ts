import type { Hint } from '../doctor/hint.js';
import type { FindingKind } from './finding-types.js';

/** One request as the simulator saw and answered it: the answered event's record and the journal's entry. */
export interface JournalEntry {
  /** Numbers the whole run (scenario loads do not restart it); answers a caller without an id as `sim-<seq>`. */
  seq: number;
  /** Simulator (virtual) time of the request, ISO 8601. */
  at: string;
  method: string;
  path: string;
  endpoint?: string;
  operation?: string;
  type?: number;
  apiUser?: string;
  user?: string;
  /** HTTP status and code answered (undefined when a fault broke the wire). */
  http?: number;
  code?: number;
  message?: string;
  latencyMs: number;
  /** The scenario the request ran under, and the rule that decided, if any. */
  scenario: string;
  rule?: string;
  fault?: string;
  challengeId?: string;
  /** For -4037: the exact string the simulator expected to be signed (it is not secret). */
  expectedStringToSign?: string;
  /** The client doctor's diagnosis of the refusal: the likely mistake and its fix. */
  hint?: Hint;
  /** auth: log: every authentication check that would have failed, with the doctor's hint when it has one. */
  wouldFail?: { code: number; reason: string; hint?: Hint }[];
  /** A bug of the simulator's that was answered -5000. */
  internalError?: string;
  /** Sent by the simulator itself (the dashboard's explorer), not by a client: the client doctor does not count it. */
  by?: 'explorer';
  /** The headers as sent, at most MAX_HEADERS_KEPT of them. */
  request: { headers: Record<string, string | string[] | undefined>; body: string; headersLeftOut?: number };
  response?: { body: string };
  /** Proxy mode: the request was forwarded; `http`, `code` and `response` are the upstream's answer. */
  upstream?: Forwarding;
}

/** How far a request showed who sent it. */
export type Caller = 'unknown' | 'known' | 'signed';

/** One thing found in one answer of the service: its kind (a finding kind of its own), and what, with both answers. */
export interface Deviation {
  kind: Extract<FindingKind, `service-${string}`>;
  detail: string;
}

/** mfa-sim's own answer, as a journal entry of proxy mode shows it (every secret redacted). */
export interface MfaSimAnswer {
  http: number;
  code?: number;
  body: string;
}

/** What a journal entry of a forwarded request adds: where it went, what mfa-sim would have answered, what it found. */
export interface Forwarding {
  url: string;
  /** Why the upstream gave no answer (the client got -5000 with it), when it gave none. */
  failure?: string;
  /** What mfa-sim would have answered (the shadow), when the operator gave the API user's secret. */
  mfaSim?: MfaSimAnswer;
  deviations: Deviation[];
}
