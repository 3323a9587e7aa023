import { signatureMatches, signingLines } from '../auth/signature.js';
import { answer, type Answer } from '../contract/answer.js';
import { API_USER_ID } from '../contract/api-user.js';
import { parseAuthorization } from '../auth/authorization.js';
import { nonceReuseHint, timeReuseHint } from '../doctor/replay-hints.js';
import { driftHint } from '../doctor/shapes.js';
import { monotonicMs } from '../world/monotonic.js';
import { authFail, signedRequest, type NamedChecks } from './check.js';
import type { RequestContext } from './context.js';

/**
 * The checks of who sent a request: an API user this simulator knows and may serve, a clock within the drift window,
 * the signature, and a nonce and time not used before. The last stages what a verified request leaves in the replay
 * memory; the commit step (commit.ts) writes it once the answer is decided.
 */

/** -4036 when `time` is further from `now` than `maxDrift`. */
function driftFail(ctx: RequestContext, time: number, now: number, maxDrift: number): Answer | undefined {
  const drift = time - now;
  if (Math.abs(drift) <= maxDrift) return undefined;
  const reason = `${ctx.sc.names.utctime} is ${Math.round(drift / 1000)} s from the server's time (allowed ±${Math.round(maxDrift / 1000)} s)`;
  return authFail(ctx, -4036, reason, driftHint(time, now, maxDrift));
}

export const CALLER_CHECKS: NamedChecks = [
  [
    'api-user-known',
    (ctx) => {
      // Authenticated (auth: verify), the header named the API user already. Otherwise (auth: log or off) it is
      // taken from wherever the request names one (the header is parsed here unless its check ran).
      // Stryker disable ConditionalExpression,StringLiteral: the same header parsed again gives the same parts
      const parts =
        ctx.parts === undefined ? parseAuthorization(ctx.header('authorization') ?? '', ctx.sc.token) : ctx.parts;
      // Stryker restore ConditionalExpression,StringLiteral
      const id =
        ctx.apiUserId ??
        // Stryker disable next-line StringLiteral: no text but 9 digits passes the test
        [ctx.header(ctx.sc.names.apiUser), parts?.apiuser, ctx.peek.apiUser].find((c) => API_USER_ID.test(c ?? ''));
      if (id === undefined) return answer(-1001, 'the request names no API user');
      ctx.apiUserId = id;
      ctx.apiUser = ctx.apiUserNamed(id);
      return ctx.apiUser ? undefined : answer(-1001, `API user ${id} is not known`);
    },
  ],
  [
    'api-user-usable',
    (ctx) =>
      ctx.apiUser!.state === 'active'
        ? undefined
        : answer(-1003, `API user ${ctx.apiUser!.id} is ${ctx.apiUser!.state}`),
  ],
  [
    'drift',
    (ctx) => {
      if (ctx.utctime === undefined) return undefined;
      const time = Number(ctx.utctime);
      const fail =
        driftFail(ctx, time, ctx.now, ctx.sc.maxDrift) ??
        (ctx.guard && driftFail(ctx, time, ctx.guard.now, ctx.guard.maxDrift));
      // The client doctor judges a clock only by requests its API user signed: a forger naming someone else's API
      // user must not make their findings (a right signature with a wrong clock is a real client's mistake).
      // A failure is an answer only under auth: verify, where the signature and nonce were found well-formed before
      // the drift is checked: the tests of them are for the type checker, and their mutants equivalent.
      if (fail)
        ctx.signed =
          // Stryker disable ConditionalExpression,LogicalOperator: both are set when a failure answers
          ctx.signature !== undefined &&
          ctx.nonce !== undefined &&
          signatureMatches(ctx.apiUser!.secret, signingLines(ctx.sc.names, ctx.utctime, ctx.nonce), ctx.signature);
      // Stryker restore ConditionalExpression,LogicalOperator
      return fail;
    },
  ],
  [
    'signature',
    (ctx) => {
      const sig = ctx.signature;
      if (ctx.utctime === undefined || ctx.nonce === undefined || sig === undefined) return undefined;
      const toSign = signingLines(ctx.sc.names, ctx.utctime, ctx.nonce);
      if (signatureMatches(ctx.apiUser!.secret, toSign, sig)) {
        ctx.signed = true;
        return undefined;
      }
      return authFail(ctx, -4037, undefined, ctx.doctor.refusedSignature(signedRequest(ctx, ctx.apiUser!.id)!, sig));
    },
  ],
  [
    'nonce-reuse',
    (ctx) => {
      if (ctx.nonce === undefined || !ctx.sc.replayNonces) return undefined;
      const first = ctx.world.replayFor(ctx.apiUser!.id).nonce(ctx.nonce, ctx.replayNow);
      return first && authFail(ctx, -4034, 'this nonce was used before', nonceReuseHint(first));
    },
  ],
  [
    'timestamp-reuse',
    (ctx) => {
      if (ctx.utctime === undefined) return undefined;
      const memory = ctx.world.replayFor(ctx.apiUser!.id);
      const time = Number(ctx.utctime);
      const first = ctx.sc.replayTimestamps ? memory.time(time, ctx.replayNow) : undefined;
      if (first) {
        const fail = authFail(ctx, -4035, 'this utctime was used before', timeReuseHint(first, monotonicMs()));
        if (fail) return fail;
      }
      // To be remembered now that the signature verified (docs/behaviour.md#time-drift-and-replay), committed in the
      // same synchronous step as these look-ups: of many identical requests arriving together, exactly one is first.
      const nonce = ctx.sc.replayNonces ? ctx.nonce : undefined;
      ctx.staged.replay = {
        memory,
        nonce,
        time: ctx.sc.replayTimestamps ? time : undefined,
        until: time + ctx.replayWindow,
        arrived: monotonicMs(),
      };
      ctx.verified = true;
      return undefined;
    },
  ],
];
