import { signingLines } from '../auth/signature.js';
import { mustCode } from '../contract/codes.js';
import { clipText, type Answer } from '../contract/answer.js';
import { isoTime } from '../contract/response.js';
import type { AnsweredRequest } from '../run/answered.js';
import { clip, JOURNAL_BODY_CHARS } from '../run/journal.js';
import type { RequestContext } from './context.js';

/**
 * The record of one answered request, as every observer receives it: built from what the checks learned, kept as it
 * came (the journal hides its secrets as it keeps it), except where it is cut to size, which hides secrets first.
 */
export function recordOf(
  ctx: RequestContext,
  seq: number,
  result: Answer | undefined,
  sent: string | undefined,
  latencyMs: number,
  hide: (text: string) => string,
): AnsweredRequest {
  return {
    seq,
    at: isoTime(ctx.now),
    method: ctx.req.method,
    path: ctx.req.url,
    endpoint: ctx.endpointByPath,
    operation: ctx.env?.op,
    type: ctx.env?.type,
    apiUser: ctx.apiUser?.id ?? ctx.apiUserId ?? headerAsKept(ctx.header(ctx.sc.names.apiUser), hide),
    user: (ctx.body as { user?: string } | undefined)?.user,
    http: result ? mustCode(result.code).http : undefined,
    code: result?.code,
    message: result?.message,
    latencyMs: Math.round(latencyMs * 100) / 100,
    scenario: ctx.sc.name,
    rule: ctx.rule?.label,
    fault: ctx.rule?.fault,
    challengeId: ctx.challenge?.id,
    expectedStringToSign:
      result?.code === -4037 || ctx.wouldFail?.some((w) => w.code === -4037) ? stringToSignOf(ctx) : undefined,
    // Only the checks give a hint: a request stopped by a fault before the service (no answer) has none.
    hint: ctx.hint,
    wouldFail: ctx.wouldFail,
    internalError: ctx.internalError,
    by: ctx.actor === 'explorer' ? 'explorer' : undefined,
    request: requestAsKept(ctx.req, hide),
    response: sent === undefined ? undefined : { body: bodyAsKept(sent, hide) },
  };
}

/**
 * For -4037: the string the request's signing headers make, the one the signature check expected to be signed (also
 * for a -4037 a rule forced, where the check did not run); none when the request did not send both headers well-formed.
 */
function stringToSignOf(ctx: RequestContext): string | undefined {
  return ctx.utctime === undefined || ctx.nonce === undefined
    ? undefined
    : signingLines(ctx.sc.names, ctx.utctime, ctx.nonce);
}

/** A journal entry keeps at most this many of a request's headers: a client sends a dozen; Node reads 1,000. */
const MAX_HEADERS_KEPT = 100;

/**
 * The request as the journal keeps it: its first MAX_HEADERS_KEPT headers, and its body cut to size (also a request
 * proxy mode forwarded).
 */
export function requestAsKept(req: RequestContext['req'], hide: (text: string) => string): AnsweredRequest['request'] {
  const body = bodyAsKept(req.body, hide);
  const names = Object.keys(req.headers);
  if (names.length <= MAX_HEADERS_KEPT) return { headers: req.headers, body };
  const headers = Object.create(null) as AnsweredRequest['request']['headers'];
  for (const name of names.slice(0, MAX_HEADERS_KEPT)) headers[name] = req.headers[name];
  return { headers, body, headersLeftOut: names.length - MAX_HEADERS_KEPT };
}

/** An API user header the request did not authenticate with, as the journal keeps it: 32 characters at most. */
function headerAsKept(value: string | undefined, hide: (text: string) => string): string | undefined {
  return value === undefined || value.length <= 32 ? value : clipText(hide(value), 32);
}

/**
 * A body as the journal keeps it: 8 KiB at most. A longer one has its secrets hidden now, before it is cut (the
 * journal hides secrets when an entry is first read; cut first, a secret across the cut would show in part).
 */
export function bodyAsKept(body: string, hide: (text: string) => string): string {
  return body.length <= JOURNAL_BODY_CHARS
    ? body
    : clip(hide(body.slice(0, JOURNAL_BODY_CHARS * 2)), JOURNAL_BODY_CHARS, body.length);
}
