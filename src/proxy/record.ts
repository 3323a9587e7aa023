import { CHECKS, codeInfo } from '../codes.js';
import { clipText, MAX_MESSAGE_CHARS, own } from '../contract/answer.js';
import { endpointOf } from '../contract/operations.js';
import { isoTime } from '../contract/response.js';
import type { AnsweredRequest, JournalEntry } from '../observers/answered.js';
import type { ApiRequest } from '../request/context.js';
import { bodyAsKept, requestAsKept } from '../request/record.js';
import type { Simulator } from '../simulator.js';
import { monotonicMs } from '../world/monotonic.js';
import type { Forwarding } from './deviation.js';
import { isIsoUtc } from './judge.js';
import { challengeIdOf } from './shadow.js';

/**
 * The journal record of a forwarded request: what every observer of "answered" reads (journal, coverage, the client
 * doctor's findings), as the request path records its own, with the upstream's answer in place of mfa-sim's. What
 * the request shows of itself (operation, type, API user, user), as the checks learned it, and the doctor's hint come
 * from the shadow's decision: the hint only when the service refused the request with the same code, and, without the
 * API user's secret, only for refusals the doctor judges without it (the header checks, before the API user is known).
 */

/** The checks from here on need the API user's secret (or are the service's own decisions). */
const NEEDS_SECRET = CHECKS.indexOf('api-user-known');

/** What a forwarded request came to. */
export interface ForwardedAnswer {
  /** What the client got: the upstream's status and body, or mfa-sim's -5000 when the upstream gave none. */
  http: number;
  body: string;
  /** The upstream's envelope, code and message, when it answered one. */
  envelope?: Record<string, unknown>;
  code?: number;
  forwarding: Forwarding;
}

export function forwardedRecord(
  sim: Simulator,
  seq: number,
  req: ApiRequest,
  startedAt: number,
  answer: ForwardedAnswer,
  shadow: JournalEntry | undefined,
  comparing: boolean,
): AnsweredRequest {
  const hide = (text: string) => sim.redact(text);
  const message = answer.envelope === undefined ? undefined : own(answer.envelope, 'message');
  const sameCode = answer.code !== undefined && shadow?.code === answer.code;
  const diagnosed = sameCode && (comparing || CHECKS.indexOf(codeInfo(answer.code!)!.check) < NEEDS_SECRET);
  const nonce = req.headers[sim.scenario.names.nonce];
  return {
    seq,
    at: serverTime(answer.envelope, sim),
    method: req.method,
    path: req.url,
    endpoint: endpointOf(req.url, sim.token),
    operation: shadow?.operation,
    type: shadow?.type,
    apiUser: shadow?.apiUser,
    user: shadow?.user,
    http: answer.http,
    code: answer.code,
    message: typeof message === 'string' ? shownMessage(message, answer.code, hide) : answer.forwarding.failure,
    latencyMs: Math.round((monotonicMs() - startedAt) * 100) / 100,
    scenario: sim.scenario.name,
    // No answer from the upstream is, to the client, a failure on the way (as a fault of a rule is).
    fault: answer.forwarding.failure === undefined ? undefined : 'upstream',
    // The challenge the service's answer names (a new one's, a status's).
    challengeId: challengeIdOf(message),
    expectedStringToSign: diagnosed ? shadow.expectedStringToSign : undefined,
    hint: diagnosed ? shadow.hint : undefined,
    by: sim.doctor.sentItself(typeof nonce === 'string' ? nonce : undefined) ? 'explorer' : undefined,
    request: requestAsKept(req, hide),
    response: { body: bodyAsKept(answer.body, hide) },
    upstream: answer.forwarding,
  };
}

/**
 * A message as the journal keeps it: an error's cut as the request path cuts its own, a success's (a new challenge's QR
 * code) as a body.
 */
function shownMessage(message: string, code: number | undefined, hide: (text: string) => string): string {
  return code !== undefined && code >= 0 ? bodyAsKept(message, hide) : clipText(hide(message), MAX_MESSAGE_CHARS);
}

/**
 * The service's time as its answer gives it (the client doctor measures a client's clock against it), else the
 * simulator's.
 */
function serverTime(envelope: Record<string, unknown> | undefined, sim: Simulator): string {
  const time = envelope === undefined ? undefined : (own(envelope, 'utctime') ?? own(envelope, 'utcTime'));
  return isoTime(typeof time === 'string' && isIsoUtc(time) ? Date.parse(time) : sim.now());
}
