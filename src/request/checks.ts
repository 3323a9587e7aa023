import { parseAuthorization } from '../auth/authorization.js';
import { signatureMatches, signingLines } from '../auth/signature.js';
import { codeInfo, type CheckName } from '../codes.js';
import { answer, type Answer } from '../contract/answer.js';
import { API_USER_ID } from '../contract/api-user.js';
import { judgeBody, judgeEnvelope, type BlockedBody, type ChallengeBody } from '../contract/bodies.js';
import { endpointMethods, endpointOf, endpointTypes, TYPE_OPERATION } from '../contract/operations.js';
import { nonceReuseHint, timeReuseHint } from '../doctor/first-uses.js';
import type { Hint } from '../doctor/hint.js';
import { authorizationShape, driftHint, nonceShape, timeShape } from '../doctor/shapes.js';
import { algorithmToken, bodyUserToken, headerToken, pathToken, signedHeadersToken } from '../doctor/other-token.js';
import type { SignedRequest } from '../doctor/signature.js';
import type { RequestContext } from './context.js';
import { monotonicMs } from '../world/monotonic.js';

/**
 * The checks of a request, in the order of docs/behaviour.md#order-of-checks, each named after its row in the code
 * table: a small function from what is known so far to "go on" (undefined) or an answer. Rejections are values; an
 * exception is a bug (the request path answers it -5000). A code a scenario rule forces answers at its own check.
 */

/**
 * The shapes the checks hold a request's values to (also the benchmark's one-function server,
 * bench/checks-baseline.ts).
 */
export const UTCTIME = /^\d{1,16}$/;
export const NONCE = /^[A-Za-z0-9_-]{8,128}$/;
export const HEX128 = /^[0-9a-fA-F]{128}$/;

type Check = (ctx: RequestContext) => Answer | undefined;

const isAuthChecked = (ctx: RequestContext) => ctx.sc.auth !== 'off';

/**
 * An authentication failure, with the client doctor's hint when it has one: in `verify` mode it answers; in `log`
 * mode it is written down for the journal and the request goes on.
 */
function authFail(ctx: RequestContext, code: number, reason?: string, hint?: Hint): Answer | undefined {
  if (ctx.sc.auth === 'verify') {
    ctx.hint = hint;
    return answer(code, reason);
  }
  (ctx.wouldFail ??= []).push(
    hint ? { code, reason: reason ?? codeInfo(code)!.title, hint } : { code, reason: reason ?? codeInfo(code)!.title },
  );
  return undefined;
}

/** -4036 when `time` is further from `now` than `maxDrift`. */
function driftFail(ctx: RequestContext, time: number, now: number, maxDrift: number): Answer | undefined {
  const drift = time - now;
  if (Math.abs(drift) <= maxDrift) return undefined;
  const reason = `${ctx.sc.names.utctime} is ${Math.round(drift / 1000)} s from the server's time (allowed ±${Math.round(maxDrift / 1000)} s)`;
  return authFail(ctx, -4036, reason, driftHint(time, now, maxDrift));
}

/** What the signature doctor needs: the request's signing headers and the secret of the API user they name. */
function signedRequest(ctx: RequestContext, apiUserId: string | undefined): SignedRequest | undefined {
  const user = apiUserId !== undefined && API_USER_ID.test(apiUserId) ? ctx.apiUserNamed(apiUserId) : undefined;
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

/**
 * The checks before the operation, in the order of docs/behaviour.md#order-of-checks; each name is a check of the code
 * table, so a code forced by a scenario rule answers exactly where the real check would have failed.
 */
export const CHECKS: readonly (readonly [CheckName, Check])[] = [
  [
    'transport',
    (ctx) =>
      ctx.req.tooLarge !== undefined ? answer(-413, `the body is larger than ${ctx.req.tooLarge} bytes`) : undefined,
  ],
  ['internal', () => undefined],
  [
    'route',
    (ctx) => {
      const endpoint = endpointOf(ctx.req.url, ctx.sc.token);
      if (!endpoint) {
        ctx.hint = pathToken(ctx.req.url, ctx.sc.token);
        return answer(-404, `no endpoint at ${ctx.req.url.split('?')[0]}`);
      }
      if (!endpointMethods(endpoint).includes(ctx.req.method))
        return answer(-405, `${ctx.req.method} is not allowed on /v1/svc/${endpoint}`);
      ctx.endpoint = endpoint;
      return undefined;
    },
  ],
  [
    'authorization-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const value = ctx.header('authorization');
      if (!value) return authFail(ctx, -4000);
      ctx.parts = parseAuthorization(value, ctx.sc.token) ?? null;
      if (ctx.parts) return undefined;
      return authFail(
        ctx,
        -4001,
        `expected \`${ctx.sc.token}-hmac: apiuser=...,signedheaders=...,algorithm=...,signature=...\``,
        authorizationShape(value, ctx.sc.token),
      );
    },
  ],
  [
    'utctime-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const name = ctx.sc.names.utctime;
      const v = ctx.header(name);
      if (!v) return authFail(ctx, -4004, undefined, headerToken(ctx.req.headers, ctx.sc.token));
      if (!UTCTIME.test(v)) return authFail(ctx, -4005, `${name} must be 1 to 16 digits`, timeShape(v));
      ctx.utctime = v;
      return undefined;
    },
  ],
  [
    'nonce-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const name = ctx.sc.names.nonce;
      const v = ctx.header(name);
      if (!v) return authFail(ctx, -4006, undefined, headerToken(ctx.req.headers, ctx.sc.token));
      if (!NONCE.test(v))
        return authFail(ctx, -4007, `${name} must be 8 to 128 letters, digits, - or _`, nonceShape(v));
      ctx.nonce = v;
      return undefined;
    },
  ],
  [
    'apiuser-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const v = ctx.header(ctx.sc.names.apiUser);
      if (!v) return authFail(ctx, -4008, undefined, headerToken(ctx.req.headers, ctx.sc.token));
      if (!API_USER_ID.test(v)) return authFail(ctx, -4009, 'the API user id must be 9 digits');
      ctx.apiUserId = v;
      return undefined;
    },
  ],
  [
    'signature-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.signature;
      if (!v) return authFail(ctx, -4026);
      if (HEX128.test(v)) {
        ctx.signature = v;
        return undefined;
      }
      const hint = ctx.doctor.misshapenSignature(v, signedRequest(ctx, ctx.apiUserId ?? ctx.parts.apiuser));
      return authFail(ctx, -4027, 'the signature must be 128 hexadecimal characters', hint);
    },
  ],
  [
    'apiuser-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.apiuser;
      if (!v) return authFail(ctx, -4028);
      if (!API_USER_ID.test(v)) return authFail(ctx, -4029, 'apiuser must be 9 digits');
      if (ctx.apiUserId !== undefined && v !== ctx.apiUserId)
        return authFail(ctx, -4029, `apiuser differs from the ${ctx.sc.names.apiUser} header`);
      return undefined;
    },
  ],
  [
    'algorithm-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.algorithm;
      if (!v) return authFail(ctx, -4030);
      return v.toLowerCase() === ctx.sc.names.algorithm
        ? undefined
        : authFail(ctx, -4031, `the algorithm must be ${ctx.sc.names.algorithm}`, algorithmToken(v, ctx.sc.token));
    },
  ],
  [
    'signedheaders-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.signedheaders;
      if (!v) return authFail(ctx, -4032);
      const want = ctx.sc.names.signedHeaders;
      return v.toLowerCase() === want
        ? undefined
        : authFail(ctx, -4033, `signedheaders must be ${want}`, signedHeadersToken(v, ctx.sc.token));
    },
  ],
  [
    'api-user-known',
    (ctx) => {
      // Authenticated (auth: verify), the header named the API user already. Otherwise (auth: log or off) it is
      // taken from wherever the request names one (the header is parsed here unless its check ran).
      const parts =
        ctx.parts === undefined ? parseAuthorization(ctx.header('authorization') ?? '', ctx.sc.token) : ctx.parts;
      const id =
        ctx.apiUserId ??
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
      if (fail)
        ctx.signed =
          ctx.signature !== undefined &&
          ctx.nonce !== undefined &&
          signatureMatches(ctx.apiUser!.key, signingLines(ctx.sc.names, ctx.utctime, ctx.nonce), ctx.signature);
      return fail;
    },
  ],
  [
    'signature',
    (ctx) => {
      const sig = ctx.signature;
      if (ctx.utctime === undefined || ctx.nonce === undefined || sig === undefined) return undefined;
      const toSign = signingLines(ctx.sc.names, ctx.utctime, ctx.nonce);
      if (signatureMatches(ctx.apiUser!.key, toSign, sig)) {
        ctx.signed = true;
        return undefined;
      }
      ctx.expectedStringToSign = toSign;
      return authFail(ctx, -4037, undefined, ctx.doctor.refusedSignature(signedRequest(ctx, ctx.apiUser!.id)!, sig));
    },
  ],
  [
    'nonce-reuse',
    (ctx) => {
      if (ctx.nonce === undefined || !ctx.sc.replayNonces) return undefined;
      if (!ctx.world.replayFor(ctx.apiUser!.id, ctx.replayWindow).hasNonce(ctx.nonce, ctx.replayNow)) return undefined;
      return authFail(
        ctx,
        -4034,
        'this nonce was used before',
        nonceReuseHint(ctx.doctor.firstUses.ofNonce(ctx.apiUser!.id, ctx.nonce)),
      );
    },
  ],
  [
    'timestamp-reuse',
    (ctx) => {
      if (ctx.utctime === undefined) return undefined;
      const memory = ctx.world.replayFor(ctx.apiUser!.id, ctx.replayWindow);
      const time = Number(ctx.utctime);
      if (ctx.sc.replayTimestamps && memory.hasTime(time, ctx.replayNow)) {
        const fail = authFail(
          ctx,
          -4035,
          'this utctime was used before',
          timeReuseHint(ctx.doctor.firstUses.ofTime(ctx.apiUser!.id, time), monotonicMs()),
        );
        if (fail) return fail;
      }
      // To be remembered now that the signature verified (docs/behaviour.md#time-drift-and-replay), committed in the
      // same synchronous step as these look-ups: of many identical requests arriving together, exactly one is first.
      const nonce = ctx.sc.replayNonces ? ctx.nonce : undefined;
      ctx.staged.replay = {
        memory,
        nonce,
        time,
        window: ctx.replayWindow,
        timestamps: ctx.sc.replayTimestamps,
        arrived: monotonicMs(),
      };
      ctx.verified = true;
      return undefined;
    },
  ],
  [
    'permission',
    (ctx) => {
      const perms = ctx.apiUser!.permissions;
      const op = ctx.operation;
      if (op !== undefined)
        return perms.has(op) ? undefined : answer(-1026, `API user ${ctx.apiUser!.id} may not call ${op}`);
      // The operation is not known yet (the envelope is judged next): refused only if none of this endpoint's is
      // allowed.
      const ops = endpointTypes(ctx.endpoint!, ctx.sc.strict).map((t) => TYPE_OPERATION.get(t)!);
      return ops.some((o) => perms.has(o))
        ? undefined
        : answer(-1026, `API user ${ctx.apiUser!.id} may not call /v1/svc/${ctx.endpoint}`);
    },
  ],
  [
    'envelope',
    (ctx) => {
      if (ctx.endpoint === 'time') return undefined;
      const judged = judgeEnvelope(ctx.req.body, ctx.endpoint!, ctx.apiUser!.id, ctx.sc);
      if ('code' in judged) return judged;
      ctx.env = judged;
      return undefined;
    },
  ],
  [
    'body',
    (ctx) => {
      if (!ctx.env) return undefined;
      const judged = judgeBody(
        ctx.env.op,
        ctx.env.body,
        ctx.sc,
        ctx.env.op === 'challenge' && ctx.apiUser!.ipRules !== undefined,
      );
      if ('code' in judged) {
        if (judged.code === -5077) ctx.hint = bodyUserToken(ctx.env.body, ctx.sc.token);
        return judged as Answer;
      }
      ctx.body = judged;
      return undefined;
    },
  ],
  [
    'ip-rules',
    (ctx) => {
      const ip = (ctx.body as ChallengeBody | BlockedBody | undefined)?.ipAddress;
      const rules = ctx.apiUser!.ipRules;
      if (!ip || !rules || (ctx.env?.op !== 'challenge' && ctx.env?.op !== 'blocked')) return undefined;
      return rules.blocks(ip) ? answer(-6021, `${ip} is blocked by API user ${ctx.apiUser!.id}'s rules`) : undefined;
    },
  ],
  [
    'auto-verify',
    (ctx) => {
      if (ctx.env?.op !== 'challenge' || !(ctx.body as ChallengeBody).autoVerify) return undefined;
      return ctx.apiUser!.permissions.has('autoVerify')
        ? undefined
        : answer(-1095, `API user ${ctx.apiUser!.id} may not use enableAutoVerify`);
    },
  ],
  [
    'account',
    (ctx) => {
      const user = (ctx.body as { user?: string } | undefined)?.user;
      if (!user) return undefined;
      const code = ctx.sc.accounts.codeFor(user);
      return code === 0 ? undefined : answer(code, `the account ${user} is not usable`);
    },
  ],
];
