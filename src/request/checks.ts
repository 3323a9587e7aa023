import { parseAuthorization, signatureMatches, signingLines } from '../auth/signature.js';
import { CHECKS as CHECK_NAMES, codeInfo, type CheckName, type Operation } from '../contract/codes.js';
import {
  judgeBody,
  judgeEnvelope,
  type BlockedBody,
  type CancelBody,
  type ChallengeBody,
  type LookupBody,
} from '../contract/bodies.js';
import { answer, type Answer } from '../contract/response.js';
import { API_USER_ID } from '../contract/api-user.js';
import { endpointMethods, endpointOf, endpointTypes, TYPE_OPERATION } from '../contract/envelope.js';
import { jsonText } from '../output/json.js';
import { nonceReuseHint, timeReuseHint, type Hint } from '../doctor/doctor.js';
import { algorithmToken, authorizationShape, bodyUserToken, driftHint, headerToken } from '../doctor/shapes.js';
import { nonceShape, pathToken, signedHeadersToken, timeShape } from '../doctor/shapes.js';
import type { SignedRequest } from '../doctor/signature.js';
import { cancelOutcome, lookUpOutcome } from '../world/challenges.js';
import { qrDataUrl } from '../world/qr.js';
import type { RequestContext } from './context.js';
import { machine } from '../world/clock.js';

/**
 * The checks of a request in the order of docs/behaviour.md#order-of-checks, each a small function from what is known
 * so far to "go on" (undefined) or an answer, named after its row in the code table, so a code a scenario rule forces
 * answers exactly where the real check would fail; then the operation.
 */

type Check = (ctx: RequestContext) => Answer | undefined;

const UTCTIME = /^\d{1,16}$/;
const NONCE = /^[A-Za-z0-9_-]{8,128}$/;
const HEX128 = /^[0-9a-fA-F]{128}$/;

const isAuthChecked = (ctx: RequestContext) => ctx.sc.auth !== 'off';

/** An authentication failure: in `verify` mode it answers; in `log` mode it is written down and the request goes on. */
function authFail(ctx: RequestContext, code: number, reason?: string, hint?: Hint): Answer | undefined {
  if (ctx.sc.auth === 'verify') {
    ctx.hint = hint;
    return answer(code, reason);
  }
  (ctx.wouldFail ??= []).push({ code, reason: reason ?? codeInfo(code)!.title, ...(hint && { hint }) });
  return undefined;
}

/** What the signature doctor needs: the request's signing headers and the secret of the API user they name. */
function signedRequest(ctx: RequestContext, apiUserId: string | undefined): SignedRequest | undefined {
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

/** -4036 when `time` is further from `now` than `maxDrift`. */
function driftFail(ctx: RequestContext, time: number, now: number, maxDrift: number): Answer | undefined {
  const drift = time - now;
  if (Math.abs(drift) <= maxDrift) return undefined;
  const reason = `${ctx.sc.names.utctime} is ${Math.round(drift / 1000)} s from the server's time (allowed ±${Math.round(maxDrift / 1000)} s)`;
  return authFail(ctx, -4036, reason, driftHint(time, now, maxDrift));
}

/** Every check, by the name of its row in the code table (codes.ts lists them in order). */
const CHECKS: Record<Exclude<CheckName, 'operation'>, Check> = {
  transport: (ctx) =>
    ctx.req.tooLarge !== undefined ? answer(-413, `the body is larger than ${ctx.req.tooLarge} bytes`) : undefined,
  internal: () => undefined,
  route: (ctx) => {
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
  'authorization-header': (ctx) => {
    if (!isAuthChecked(ctx)) return undefined;
    const value = ctx.header('authorization');
    if (!value) return authFail(ctx, -4000);
    ctx.parts = parseAuthorization(value, ctx.sc.token) ?? null;
    if (ctx.parts) return undefined;
    const expected = `${ctx.sc.token}-hmac: apiuser=...,signedheaders=...,algorithm=...,signature=...`;
    return authFail(ctx, -4001, `expected \`${expected}\``, authorizationShape(value, ctx.sc.token));
  },
  'utctime-header': (ctx) => {
    if (!isAuthChecked(ctx)) return undefined;
    const name = ctx.sc.names.utctime;
    const v = ctx.header(name);
    if (!v) return authFail(ctx, -4004, undefined, headerToken(ctx.req.headers, ctx.sc.token));
    if (!UTCTIME.test(v)) return authFail(ctx, -4005, `${name} must be 1 to 16 digits`, timeShape(v));
    ctx.utctime = v;
    return undefined;
  },
  'nonce-header': (ctx) => {
    if (!isAuthChecked(ctx)) return undefined;
    const name = ctx.sc.names.nonce;
    const v = ctx.header(name);
    if (!v) return authFail(ctx, -4006, undefined, headerToken(ctx.req.headers, ctx.sc.token));
    if (!NONCE.test(v)) return authFail(ctx, -4007, `${name} must be 8 to 128 letters, digits, - or _`, nonceShape(v));
    ctx.nonce = v;
    return undefined;
  },
  'apiuser-header': (ctx) => {
    if (!isAuthChecked(ctx)) return undefined;
    const v = ctx.header(ctx.sc.names.apiUser);
    if (!v) return authFail(ctx, -4008, undefined, headerToken(ctx.req.headers, ctx.sc.token));
    if (!API_USER_ID.test(v)) return authFail(ctx, -4009, 'the API user id must be 9 digits');
    ctx.apiUserId = v;
    return undefined;
  },
  'signature-part': (ctx) => {
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
  'apiuser-part': (ctx) => {
    if (!ctx.parts) return undefined;
    const v = ctx.parts.apiuser;
    if (!v) return authFail(ctx, -4028);
    if (!API_USER_ID.test(v)) return authFail(ctx, -4029, 'apiuser must be 9 digits');
    if (ctx.apiUserId !== undefined && v !== ctx.apiUserId)
      return authFail(ctx, -4029, `apiuser differs from the ${ctx.sc.names.apiUser} header`);
    return undefined;
  },
  'algorithm-part': (ctx) => {
    if (!ctx.parts) return undefined;
    const v = ctx.parts.algorithm;
    if (!v) return authFail(ctx, -4030);
    return v.toLowerCase() === ctx.sc.names.algorithm
      ? undefined
      : authFail(ctx, -4031, `the algorithm must be ${ctx.sc.names.algorithm}`, algorithmToken(v, ctx.sc.token));
  },
  'signedheaders-part': (ctx) => {
    if (!ctx.parts) return undefined;
    const v = ctx.parts.signedheaders;
    if (!v) return authFail(ctx, -4032);
    const want = ctx.sc.names.signedHeaders;
    return v.toLowerCase() === want
      ? undefined
      : authFail(ctx, -4033, `signedheaders must be ${want}`, signedHeadersToken(v, ctx.sc.token));
  },
  'api-user-known': (ctx) => {
    // Under auth: log or off, the API user is taken from wherever the request names one.
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
  'api-user-usable': (ctx) =>
    ctx.apiUser!.state === 'active' ? undefined : answer(-1003, `API user ${ctx.apiUser!.id} is ${ctx.apiUser!.state}`),
  drift: (ctx) => {
    if (ctx.utctime === undefined) return undefined;
    const time = Number(ctx.utctime);
    const fail =
      driftFail(ctx, time, ctx.now, ctx.sc.maxDrift) ??
      (ctx.guard && driftFail(ctx, time, ctx.guard.now, ctx.guard.maxDrift));
    // The client doctor judges a clock only by requests its API user signed: a forger must not make their findings.
    if (fail)
      ctx.signed =
        ctx.signature !== undefined &&
        ctx.nonce !== undefined &&
        signatureMatches(ctx.apiUser!.secret, signingLines(ctx.sc.names, ctx.utctime, ctx.nonce), ctx.signature);
    return fail;
  },
  signature: (ctx) => {
    const sig = ctx.signature;
    if (ctx.utctime === undefined || ctx.nonce === undefined || sig === undefined) return undefined;
    if (signatureMatches(ctx.apiUser!.secret, signingLines(ctx.sc.names, ctx.utctime, ctx.nonce), sig)) {
      ctx.signed = true;
      return undefined;
    }
    return authFail(ctx, -4037, undefined, ctx.doctor.refusedSignature(signedRequest(ctx, ctx.apiUser!.id)!, sig));
  },
  'nonce-reuse': (ctx) => {
    if (ctx.nonce === undefined || !ctx.sc.replayNonces) return undefined;
    const first = ctx.world.replayFor(ctx.apiUser!.id).nonce(ctx.nonce, ctx.replayNow);
    return first && authFail(ctx, -4034, 'this nonce was used before', nonceReuseHint(first));
  },
  'timestamp-reuse': (ctx) => {
    if (ctx.utctime === undefined) return undefined;
    const memory = ctx.world.replayFor(ctx.apiUser!.id);
    const time = Number(ctx.utctime);
    const first = ctx.sc.replayTimestamps ? memory.time(time, ctx.replayNow) : undefined;
    const fail = first && authFail(ctx, -4035, 'this utctime was used before', timeReuseHint(first, machine.mono()));
    if (fail) return fail;
    // Committed in the same synchronous turn as these look-ups (docs/behaviour.md#time-drift-and-replay): of many
    // identical requests arriving together, exactly one is first.
    ctx.staged.replay = {
      memory,
      nonce: ctx.sc.replayNonces ? ctx.nonce : undefined,
      time: ctx.sc.replayTimestamps ? time : undefined,
      until: time + ctx.replayWindow,
      arrived: machine.mono(),
    };
    ctx.verified = true;
    return undefined;
  },
  permission: (ctx) => {
    const perms = ctx.apiUser!.permissions;
    const op = ctx.operation;
    if (op !== undefined)
      return perms.has(op) ? undefined : answer(-1026, `API user ${ctx.apiUser!.id} may not call ${op}`);
    // The operation is not known yet (the envelope is judged next): refused only if none of the endpoint's is allowed.
    const ops = endpointTypes(ctx.endpoint!, ctx.sc.strict).map((t) => TYPE_OPERATION.get(t)!);
    return ops.some((o) => perms.has(o))
      ? undefined
      : answer(-1026, `API user ${ctx.apiUser!.id} may not call /v1/svc/${ctx.endpoint}`);
  },
  envelope: (ctx) => {
    if (ctx.endpoint === 'time') return undefined;
    const judged = judgeEnvelope(ctx.req.body, ctx.endpoint!, ctx.apiUser!.id, ctx.sc);
    if ('code' in judged) return judged;
    ctx.env = judged;
    return undefined;
  },
  body: (ctx) => {
    if (!ctx.env) return undefined;
    // The IP address is read for a new challenge only when the API user has IP rules.
    const judged = judgeBody(ctx.env.op, ctx.env.body, ctx.sc, ctx.apiUser!.ipRules !== undefined);
    if (!('code' in judged)) {
      ctx.body = judged;
      return undefined;
    }
    if (judged.code === -5077) ctx.hint = bodyUserToken(ctx.env.body, ctx.sc.token);
    return judged as Answer;
  },
  'ip-rules': (ctx) => {
    const ip = (ctx.body as ChallengeBody | BlockedBody | undefined)?.ipAddress;
    const rules = ctx.apiUser!.ipRules;
    // Only a new challenge's and a blocked request's bodies carry an IP address.
    if (!ip || !rules) return undefined;
    return rules.blocks(ip) ? answer(-6021, `${ip} is blocked by API user ${ctx.apiUser!.id}'s rules`) : undefined;
  },
  'auto-verify': (ctx) => {
    if (ctx.env?.op !== 'challenge' || !(ctx.body as ChallengeBody).autoVerify) return undefined;
    return ctx.apiUser!.permissions.has('autoVerify')
      ? undefined
      : answer(-1095, `API user ${ctx.apiUser!.id} may not use enableAutoVerify`);
  },
  account: (ctx) => {
    const user = (ctx.body as { user?: string } | undefined)?.user;
    if (!user) return undefined;
    const code = ctx.sc.accounts.codeFor(user);
    return code === 0 ? undefined : answer(code, `the account ${user} is not usable`);
  },
};

/** The answer, and whether what the request staged is committed (never for a forced error). */
export interface Decision {
  answer: Answer;
  commits: boolean;
}

/** What a request is answered: the first failing check decides (docs/behaviour.md#scenarios-and-forced-codes). */
export function decide(ctx: RequestContext): Decision {
  const forced = ctx.forced;
  // A success's check is the operation, which comes after every check: only a forced error stops one of them.
  const forcedAt = forced ? codeInfo(forced.code)!.check : undefined;
  for (const name of CHECK_NAMES) {
    if (name === 'operation') break;
    if (name === forcedAt) return forcedError(forced!);
    const refused = CHECKS[name](ctx);
    if (refused) return { answer: refused, commits: true };
  }
  // An error forced at the operation's own check (-2035, -3087, ...).
  if (forced && forced.code < 0) return forcedError(forced);
  const natural = operate(ctx, ctx.env?.op ?? 'time', forced !== undefined);
  // A forced success answers the operation's code, with the rule's message when it gives one.
  return {
    answer: forced?.message === undefined ? natural : { code: forced.code, message: forced.message },
    commits: true,
  };
}

function forcedError(forced: { code: number; message?: string }): Decision {
  const base = answer(forced.code);
  return { answer: { code: base.code, message: forced.message ?? base.message }, commits: false };
}

const json = (o: unknown) => JSON.stringify(o);

/** The operation (docs/behaviour.md#order-of-checks, step 9): what the service answers; its step is staged. */
function operate(ctx: RequestContext, op: Operation, forced: boolean): Answer {
  const challenges = ctx.world.challenges;
  const apiUser = ctx.apiUser!.id;
  switch (op) {
    case 'time':
      return { code: 15000, message: json({ 'utc-time': String(Math.floor(ctx.now / 1000)) }) };
    case 'challenge': {
      const body = ctx.body as ChallengeBody;
      // What the person does with it, as the scenario scripts them (`people:`, magic addresses).
      const script = ctx.sc.people.scriptFor(body.user);
      const c = challenges.make(apiUser, body, ctx.now, ctx.sc.autoVerifyDelay, ctx.actor, script);
      ctx.challenge = c;
      ctx.staged.challenge = { made: c };
      const url = ctx.links.challenge(c.id, ctx.req.headers.host);
      const image = body.qr ? `,"challengeQRcode":${jsonText(qrDataUrl(url))}` : '';
      return { code: 2025, message: `{"challengeId":${jsonText(c.id)},"challengeQRcodeUrl":${jsonText(url)}${image}}` };
    }
    case 'cancel': {
      const { user, challengeId } = ctx.body as CancelBody;
      const c = challenges.find(apiUser, user, challengeId, ctx.now);
      ctx.challenge = c;
      if (c?.state === 'waiting') ctx.staged.challenge = { cancelled: c };
      return forced ? { code: 2028, message: json({ status: 'CANCELLED' }) } : cancelOutcome(c);
    }
    case 'status':
    case 'verify': {
      const body = ctx.body as LookupBody;
      const c = challenges.find(apiUser, body.user, body.challengeId, ctx.now);
      ctx.challenge = c;
      if (forced) {
        if (c && op === 'verify' && (c.state === 'waiting' || c.state === 'approved'))
          ctx.staged.challenge = { verified: c };
        const status = op === 'verify' ? 'VERIFIED' : 'APPROVED';
        return { code: 3080, message: json({ challengeId: body.challengeId, status }) };
      }
      const outcome = lookUpOutcome(op, c, body.authCode);
      // Verifying a verified challenge again changes nothing (world/challenges.ts).
      if (op === 'verify' && outcome.code === 3080) ctx.staged.challenge = { verified: c! };
      return outcome;
    }
    case 'blocked':
      return { code: 6020, message: json({ blocked: false }) };
  }
}
