import { codeInfo, type CheckName } from '../codes.js';
import { answer, type Answer } from '../contract/answer.js';
import type { Hint } from '../doctor/hint.js';
import type { SignedRequest } from '../doctor/signature.js';
import type { RequestContext } from './context.js';

/**
 * What every check of a request is (checks.ts lists them in order): a small function from what is known so far to
 * "go on" (undefined) or an answer, under the name of its row in the code table. Rejections are values; an exception
 * is a bug (the request path answers it -5000).
 */
export type Check = (ctx: RequestContext) => Answer | undefined;
export type NamedChecks = readonly (readonly [CheckName, Check])[];

/**
 * An authentication failure, with the client doctor's hint when it has one: in `verify` mode it answers; in `log`
 * mode it is written down for the journal and the request goes on.
 */
export function authFail(ctx: RequestContext, code: number, reason?: string, hint?: Hint): Answer | undefined {
  if (ctx.sc.auth === 'verify') {
    ctx.hint = hint;
    return answer(code, reason);
  }
  (ctx.wouldFail ??= []).push(
    hint ? { code, reason: reason ?? codeInfo(code)!.title, hint } : { code, reason: reason ?? codeInfo(code)!.title },
  );
  return undefined;
}

/** What the signature doctor needs: the request's signing headers and the secret of the API user they name. */
export function signedRequest(ctx: RequestContext, apiUserId: string | undefined): SignedRequest | undefined {
  // The world knows API users by their 9-digit ids only: any other text finds no one.
  // Stryker disable next-line ConditionalExpression: for the type checker; no one is named undefined either
  const user = apiUserId === undefined ? undefined : ctx.apiUserNamed(apiUserId);
  if (!user || ctx.utctime === undefined || ctx.nonce === undefined) return undefined;
  const { method, url: path, body } = ctx.req;
  return {
    secret: user.secret,
    apiUser: user.id,
    token: ctx.sc.token,
    utctime: ctx.utctime,
    nonce: ctx.nonce,
    method,
    path,
    body,
  };
}
