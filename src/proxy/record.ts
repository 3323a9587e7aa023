import { CHECKS, codeInfo, type Operation } from '../codes.js';
import { clipText, MAX_MESSAGE_CHARS } from '../contract/answer.js';
import { peek } from '../contract/envelope.js';
import { endpointOf, endpointTypes, TYPE_OPERATION } from '../contract/operations.js';
import { isoTime } from '../contract/response.js';
import type { AnsweredRequest, JournalEntry } from '../observers/answered.js';
import type { ApiRequest } from '../request/context.js';
import { bodyAsKept } from '../request/record.js';
import type { Simulator } from '../simulator.js';
import { monotonicMs } from '../world/monotonic.js';
import type { Forwarding } from './deviation.js';
import { challengeIdOf } from './shadow.js';

/**
 * The journal record of a forwarded request: what every observer of "answered" reads (journal, coverage, the client
 * doctor's findings), as the request path records its own, with the upstream's answer in place of mfa-sim's. What
 * the request shows of itself (endpoint, operation, API user) and the doctor's hint come from the shadow's decision;
 * the hint only when the service refused the request with the same code, and, without the API user's secret, only
 * for refusals the doctor judges without it (the header checks, before the API user is known).
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

export function forwardedRecord(sim: Simulator, seq: number, req: ApiRequest, startedAt: number, answer: ForwardedAnswer, shadow: JournalEntry | undefined, comparing: boolean): AnsweredRequest {
  const hide = (text: string) => sim.redact(text);
  const token = sim.token;
  const looked = peek(req.body, `${token}User`, false);
  const endpoint = endpointOf(req.url);
  const message = answer.envelope?.message;
  const sameCode = answer.code !== undefined && shadow?.code === answer.code;
  const diagnosed = sameCode && (comparing || CHECKS.indexOf(codeInfo(answer.code!)!.check) < NEEDS_SECRET);
  const nonce = req.headers[`x-${token}-cnonce`];
  return {
    seq,
    at: serverTime(answer.envelope, sim),
    method: req.method,
    path: req.url,
    endpoint,
    operation: shadow?.operation ?? operationOf(endpoint, looked.type, sim.scenario.strict),
    type: shadow?.type ?? looked.type,
    apiUser: shadow?.apiUser,
    user: shadow?.user,
    http: answer.http,
    code: answer.code,
    message: typeof message === 'string' ? shownMessage(message, answer.code, hide) : answer.forwarding.failure,
    latencyMs: Math.round((monotonicMs() - startedAt) * 100) / 100,
    scenario: sim.scenario.name,
    // No answer from the upstream is, to the client, a failure on the way (as a fault of a rule is).
    fault: answer.forwarding.failure === undefined ? undefined : 'upstream',
    challengeId: answer.code === 2025 ? challengeIdOf(message) : undefined,
    expectedStringToSign: diagnosed ? shadow!.expectedStringToSign : undefined,
    hint: diagnosed ? shadow!.hint : undefined,
    by: sim.sentItself(typeof nonce === 'string' ? nonce : undefined) ? 'explorer' : undefined,
    request: { headers: req.headers, body: bodyAsKept(req.body, hide) },
    response: { body: bodyAsKept(answer.body, hide) },
    upstream: answer.forwarding,
  };
}

/** A message as the journal keeps it: an error's cut as the request path cuts its own, a success's (a new challenge's QR code) as a body. */
function shownMessage(message: string, code: number | undefined, hide: (text: string) => string): string {
  return code !== undefined && code >= 0 ? bodyAsKept(message, hide) : clipText(hide(message), MAX_MESSAGE_CHARS);
}

/** The operation a request asks for, as far as its endpoint and `type` tell (the shadow knows it once the envelope is judged). */
export function operationOf(endpoint: ReturnType<typeof endpointOf>, type: number | undefined, strict: boolean): Operation | undefined {
  if (!endpoint) return undefined;
  const types = endpointTypes(endpoint, strict);
  if (types.length === 1) return TYPE_OPERATION.get(types[0]!);
  return type !== undefined && types.includes(type) ? TYPE_OPERATION.get(type) : undefined;
}

/** The service's time as its answer gives it (the client doctor measures a client's clock against it), else the simulator's. */
function serverTime(envelope: Record<string, unknown> | undefined, sim: Simulator): string {
  const time = envelope?.utctime ?? envelope?.utcTime;
  const ms = typeof time === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(time) ? Date.parse(time) : NaN;
  return isoTime(Number.isNaN(ms) ? sim.now() : ms);
}
