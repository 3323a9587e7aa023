import { codeInfo, codeApplies, type CheckName, type Operation } from './codes.js';
import { answer, type Answer } from './contract/answer.js';
import { judgeBody, judgeEnvelope, type BlockedBody, type Body, type CancelBody, type ChallengeBody, type JudgedEnvelope, type LookupBody } from './contract/bodies.js';
import { peek, type Peek } from './contract/envelope.js';
import { endpointMethods, endpointOf, endpointTypes, TYPE_OPERATION, type Endpoint } from './contract/operations.js';
import { parseAuthorization, type AuthorizationParts } from './auth/authorization.js';
import { signatureMatches, stringToSign } from './auth/signature.js';
import type { ReplayMemory } from './auth/replay.js';
import type { ApiUser, CompiledRule, CompiledScenario } from './scenario/compile.js';
import type { Challenge } from './world/challenges.js';

/** A request as the HTTP layer hands it over. */
export interface ApiRequest {
  method: string;
  /** The request target: path and query. */
  url: string;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body was larger than the limit and was not read whole. */
  tooLarge?: boolean;
}

/** What the pipeline needs from the simulator that runs it. */
export interface PipelineHost {
  readonly bodyLimit: number;
  apiUserFor(sc: CompiledScenario, id: string): ApiUser | undefined;
  replayFor(apiUser: string): ReplayMemory;
  findChallenge(id: string, now: number): Challenge | undefined;
  createChallenge(ctx: RequestContext, body: ChallengeBody): Challenge;
  challengeUrl(id: string, ctx: RequestContext): string;
  qrDataUrl(url: string): string;
}

const ID9 = /^\d{9}$/;
const UTCTIME = /^\d{1,16}$/;
const NONCE = /^[A-Za-z0-9_-]{8,128}$/;
const HEX128 = /^[0-9a-fA-F]{128}$/;

/** Everything the checks learn about one request, in the order they learn it. */
export class RequestContext {
  endpoint?: Endpoint;
  parts?: AuthorizationParts;
  utctime?: string;
  nonce?: string;
  apiUserId?: string;
  apiUser?: ApiUser;
  env?: JudgedEnvelope;
  body?: Body;
  challenge?: Challenge;
  /** The rule that decided, and the code it forces (undefined for a rule that only delays or breaks the wire). */
  rule?: CompiledRule;
  forced?: { code: number; message?: string };
  /** For -4037: the string the simulator expected to be signed. */
  expectedStringToSign?: string;
  /** auth: log: the authentication checks that would have failed. */
  wouldFail?: { code: number; reason: string }[];
  /** The replay memory entry made for this request, undone if a forced error answers it. */
  remembered?: { memory: ReplayMemory; nonce?: string; time: number };
  /** The message of an exception the pipeline threw (a bug of the simulator's), for the log. */
  internalError?: string;
  /**
   * For a scenario picked by header: the time and drift window of the scenario the request would otherwise run
   * under. Its drift is checked too, and replay memory keeps entries for the longer of the two windows.
   */
  guard?: { now: number; maxDrift: number };
  /** Authentication passed (or is not checked): the body may now be read at the relaxed parser's cost. */
  verified = false;
  private peeked?: Peek;
  private peekedRelaxed = false;
  private routed?: Endpoint | null;

  constructor(
    readonly host: PipelineHost,
    readonly sc: CompiledScenario,
    readonly req: ApiRequest,
    /** Simulator time for this request (virtual clock plus the scenario's offset). */
    readonly now: number,
  ) {}

  /** The request body read leniently, for rules and the permission check; never fails. Before authentication it reads JSON only. */
  get peek(): Peek {
    const relaxed = this.verified || this.sc.auth !== 'verify';
    if (!this.peeked || (relaxed && !this.peekedRelaxed && !this.peeked.complete)) {
      this.peeked = peek(this.req.body, `${this.sc.token}User`, relaxed);
      this.peekedRelaxed = relaxed;
    }
    return this.peeked;
  }

  /** A request header by its lower-case name; only the request's own headers (a rule may name `constructor` or `__proto__`). */
  header(name: string): string | undefined {
    const headers = this.req.headers;
    if (!Object.prototype.hasOwnProperty.call(headers, name)) return undefined;
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** The operation, as far as it is known before the envelope is judged. */
  get operation(): Operation | undefined {
    if (this.env) return this.env.op;
    const endpoint = this.endpointByPath;
    if (!endpoint) return undefined;
    const types = endpointTypes(endpoint, this.sc.strict);
    if (types.length === 1) return TYPE_OPERATION.get(types[0]);
    const t = this.peek.type;
    return t !== undefined && types.includes(t) ? TYPE_OPERATION.get(t) : undefined;
  }

  /** The endpoint the path names, whatever the method. */
  get endpointByPath(): Endpoint | undefined {
    if (this.routed === undefined) this.routed = endpointOf(this.req.url) ?? null;
    return this.routed ?? undefined;
  }

  /** The instant replay memory judges expiry by: the earlier clock when a guard applies, so nothing is forgotten early. */
  get replayNow(): number {
    return this.guard ? Math.min(this.now, this.guard.now) : this.now;
  }

  /** How long replay memory keeps this request: the longer drift window when a guard applies. */
  get replayWindow(): number {
    return this.guard ? Math.max(this.sc.maxDrift, this.guard.maxDrift) : this.sc.maxDrift;
  }

  /** The caller's envelope id, when it sent a usable one. */
  get callerId(): string | undefined {
    const id = this.env?.id ?? this.peek.id;
    return id !== undefined && id.length <= 25 ? id : undefined;
  }
}

type Check = (ctx: RequestContext) => Answer | undefined;

const isAuthChecked = (ctx: RequestContext) => ctx.sc.auth !== 'off';

/**
 * An authentication failure: in `verify` mode it answers; in `log` mode it is written down for the journal
 * and the request goes on.
 */
function authFail(ctx: RequestContext, code: number, reason?: string): Answer | undefined {
  if (ctx.sc.auth === 'verify') return answer(code, reason);
  (ctx.wouldFail ??= []).push({ code, reason: reason ?? codeInfo(code)!.title });
  return undefined;
}

/** -4036 when `time` is further from `now` than `maxDrift`. */
function driftFail(ctx: RequestContext, time: number, now: number, maxDrift: number): Answer | undefined {
  const drift = time - now;
  if (Math.abs(drift) <= maxDrift) return undefined;
  return authFail(ctx, -4036, `x-${ctx.sc.token}-utctime is ${Math.round(drift / 1000)} s from the server's time (allowed ±${Math.round(maxDrift / 1000)} s)`);
}

/**
 * The checks, in the order of decisions §4; each name is a check of the code table, so a code forced by a
 * scenario rule answers exactly where the real check would have failed.
 */
export const PIPELINE: readonly (readonly [CheckName, Check])[] = [
  ['transport', (ctx) => (ctx.req.tooLarge ? answer(-413, `the body is larger than ${ctx.host.bodyLimit} bytes`) : undefined)],
  ['internal', () => undefined],
  [
    'route',
    (ctx) => {
      const endpoint = endpointOf(ctx.req.url);
      if (!endpoint) return answer(-404, `no endpoint at ${ctx.req.url.split('?')[0]}`);
      if (!endpointMethods(endpoint).includes(ctx.req.method)) return answer(-405, `${ctx.req.method} is not allowed on /v1/svc/${endpoint}`);
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
      ctx.parts = parseAuthorization(value, ctx.sc.token);
      return ctx.parts ? undefined : authFail(ctx, -4001, `expected \`${ctx.sc.token}-hmac: apiuser=...,signedheaders=...,algorithm=...,signature=...\``);
    },
  ],
  [
    'utctime-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const name = `x-${ctx.sc.token}-utctime`;
      const v = ctx.header(name);
      if (!v) return authFail(ctx, -4004);
      if (!UTCTIME.test(v)) return authFail(ctx, -4005, `${name} must be 1 to 16 digits`);
      ctx.utctime = v;
      return undefined;
    },
  ],
  [
    'nonce-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const name = `x-${ctx.sc.token}-cnonce`;
      const v = ctx.header(name);
      if (!v) return authFail(ctx, -4006);
      if (!NONCE.test(v)) return authFail(ctx, -4007, `${name} must be 8 to 128 letters, digits, - or _`);
      ctx.nonce = v;
      return undefined;
    },
  ],
  [
    'apiuser-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const v = ctx.header(`x-${ctx.sc.token}-apiuser`);
      if (!v) return authFail(ctx, -4008);
      if (!ID9.test(v)) return authFail(ctx, -4009, 'the API user id must be 9 digits');
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
      return HEX128.test(v) ? undefined : authFail(ctx, -4027, 'the signature must be 128 hexadecimal characters');
    },
  ],
  [
    'apiuser-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.apiuser;
      if (!v) return authFail(ctx, -4028);
      if (!ID9.test(v)) return authFail(ctx, -4029, 'apiuser must be 9 digits');
      if (ctx.apiUserId !== undefined && v !== ctx.apiUserId) return authFail(ctx, -4029, `apiuser differs from the x-${ctx.sc.token}-apiuser header`);
      return undefined;
    },
  ],
  [
    'algorithm-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.algorithm;
      if (!v) return authFail(ctx, -4030);
      return v.toLowerCase() === `${ctx.sc.token}-hmac512` ? undefined : authFail(ctx, -4031, `the algorithm must be ${ctx.sc.token}-hmac512`);
    },
  ],
  [
    'signedheaders-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.signedheaders;
      if (!v) return authFail(ctx, -4032);
      const want = `x-${ctx.sc.token}-utctime;x-${ctx.sc.token}-cnonce`;
      return v.toLowerCase() === want ? undefined : authFail(ctx, -4033, `signedheaders must be ${want}`);
    },
  ],
  [
    'api-user-known',
    (ctx) => {
      // Without full authentication (auth: log or off), the API user is taken from wherever the request names it.
      if (ctx.sc.auth !== 'verify' && ctx.apiUserId === undefined) {
        const candidates = [ctx.header(`x-${ctx.sc.token}-apiuser`), ctx.parts?.apiuser, ctx.peek.apiUser];
        ctx.apiUserId = candidates.find((c) => c !== undefined && ID9.test(c));
      }
      const id = ctx.apiUserId;
      ctx.apiUser = id === undefined ? undefined : ctx.host.apiUserFor(ctx.sc, id);
      return ctx.apiUser ? undefined : answer(-1001, id === undefined ? 'the request names no API user' : `API user ${id} is not known`);
    },
  ],
  ['api-user-usable', (ctx) => (ctx.apiUser!.state === 'active' ? undefined : answer(-1003, `API user ${ctx.apiUser!.id} is ${ctx.apiUser!.state}`))],
  [
    'drift',
    (ctx) => {
      if (ctx.utctime === undefined) return undefined;
      const time = Number(ctx.utctime);
      return driftFail(ctx, time, ctx.now, ctx.sc.maxDrift) ?? (ctx.guard && driftFail(ctx, time, ctx.guard.now, ctx.guard.maxDrift));
    },
  ],
  [
    'signature',
    (ctx) => {
      const sig = ctx.parts?.signature;
      if (ctx.utctime === undefined || ctx.nonce === undefined || !sig || !HEX128.test(sig)) return undefined;
      const toSign = stringToSign(ctx.utctime, ctx.nonce, ctx.sc.token);
      if (signatureMatches(ctx.apiUser!.key, toSign, sig)) return undefined;
      ctx.expectedStringToSign = toSign;
      return authFail(ctx, -4037);
    },
  ],
  [
    'nonce-reuse',
    (ctx) => {
      if (ctx.nonce === undefined || !ctx.sc.replayNonces) return undefined;
      return ctx.host.replayFor(ctx.apiUser!.id).hasNonce(ctx.nonce, ctx.replayNow) ? authFail(ctx, -4034, 'this nonce was used before') : undefined;
    },
  ],
  [
    'timestamp-reuse',
    (ctx) => {
      if (ctx.utctime === undefined) return undefined;
      const memory = ctx.host.replayFor(ctx.apiUser!.id);
      const time = Number(ctx.utctime);
      if (ctx.sc.replayTimestamps && memory.hasTime(time, ctx.replayNow)) {
        const fail = authFail(ctx, -4035, 'this utctime was used before');
        if (fail) return fail;
      }
      // Remembered only now that the signature verified (decisions §3), within the same synchronous step as
      // the look-ups above: of many identical requests arriving together, exactly one gets here first.
      const nonce = ctx.sc.replayNonces ? ctx.nonce : undefined;
      memory.remember(nonce, time, ctx.replayWindow, ctx.sc.replayTimestamps);
      ctx.remembered = { memory, nonce, time };
      ctx.verified = true;
      return undefined;
    },
  ],
  [
    'permission',
    (ctx) => {
      const perms = ctx.apiUser!.permissions;
      const op = ctx.operation;
      if (op !== undefined) return perms.has(op) ? undefined : answer(-1026, `API user ${ctx.apiUser!.id} may not call ${op}`);
      // The operation is not known yet (the envelope is judged next): refused only if none of this endpoint's is allowed.
      const ops = endpointTypes(ctx.endpoint!, ctx.sc.strict).map((t) => TYPE_OPERATION.get(t)!);
      return ops.some((o) => perms.has(o)) ? undefined : answer(-1026, `API user ${ctx.apiUser!.id} may not call /v1/svc/${ctx.endpoint}`);
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
      const judged = judgeBody(ctx.env.op, ctx.env.body, ctx.sc, ctx.env.op === 'challenge' && ctx.apiUser!.ipRules !== undefined);
      if ('code' in judged) return judged as Answer;
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
      return ctx.apiUser!.permissions.has('autoVerify') ? undefined : answer(-1095, `API user ${ctx.apiUser!.id} may not use enableAutoVerify`);
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
  ['operation', (ctx) => operate(ctx)],
];

/**
 * Runs the checks in order. The first failing check decides; a forced code answers at its own check,
 * after every earlier check passed, exactly as the real failure would.
 */
export function runPipeline(ctx: RequestContext): Answer {
  const forcedAt = ctx.forced ? codeInfo(ctx.forced.code)!.check : undefined;
  for (const [name, check] of PIPELINE) {
    if (name === forcedAt && name !== 'operation') return forcedError(ctx);
    const result = check(ctx);
    if (result) return result;
  }
  throw new Error('the operation check always answers');
}

/** A forced error leaves no trace: no challenge made, no nonce burned (decisions §9). */
function forcedError(ctx: RequestContext): Answer {
  forget(ctx);
  const base = answer(ctx.forced!.code);
  return { code: base.code, message: ctx.forced!.message ?? base.message };
}

function forget(ctx: RequestContext): void {
  const r = ctx.remembered;
  if (!r) return;
  r.memory.forget(r.nonce, r.time);
  ctx.remembered = undefined;
}

const json = (o: unknown) => JSON.stringify(o);

/** The operation itself (decisions §4 step 9), or the success a rule forces with its side effects. */
function operate(ctx: RequestContext): Answer {
  const env = ctx.env;
  const forced = ctx.forced;
  if (forced && forced.code < 0) return forcedError(ctx);
  const op = env?.op ?? 'time';
  const natural = naturalOperate(ctx, op, forced !== undefined);
  if (!forced) return natural;
  // A forced success: the side effects happened where they make sense; the code and message are the rule's.
  const info = codeInfo(forced.code)!;
  if (forced.message !== undefined) return { code: forced.code, message: forced.message };
  if (natural.code === forced.code) return natural;
  return { code: forced.code, message: codeApplies(info, op) ? natural.message : defaultSuccessMessage(ctx, forced.code) };
}

function defaultSuccessMessage(ctx: RequestContext, code: number): string {
  switch (code) {
    case 15000:
      return json({ 'utc-time': String(Math.floor(ctx.now / 1000)) });
    case 2028:
      return json({ status: 'CANCELLED' });
    default:
      return codeInfo(code)!.title;
  }
}

function naturalOperate(ctx: RequestContext, op: Operation, forced: boolean): Answer {
  const host = ctx.host;
  switch (op) {
    case 'time':
      return { code: 15000, message: json({ 'utc-time': String(Math.floor(ctx.now / 1000)) }) };
    case 'challenge': {
      const body = ctx.body as ChallengeBody;
      const c = host.createChallenge(ctx, body);
      ctx.challenge = c;
      const url = host.challengeUrl(c.id, ctx);
      const message: Record<string, string> = { challengeId: c.id, challengeQRcodeUrl: url };
      if (body.qr) message.challengeQRcode = host.qrDataUrl(url);
      return { code: 2025, message: json(message) };
    }
    case 'cancel': {
      const body = ctx.body as CancelBody;
      const c = ownChallenge(ctx, body.challengeId, body.user);
      if (c?.state === 'waiting') {
        c.state = 'cancelled';
        c.endedAt = ctx.now;
        c.endedBy = 'client';
        ctx.challenge = c;
        return { code: 2028, message: json({ status: 'CANCELLED' }) };
      }
      if (forced) return { code: 2028, message: json({ status: 'CANCELLED' }) };
      if (!c) return answer(-2035, 'no such challenge for this user');
      ctx.challenge = c;
      return answer(-2035, `the challenge is already ${c.state}`);
    }
    case 'blocked':
      return { code: 6020, message: json({ blocked: false }) };
    case 'status':
    case 'verify': {
      const body = ctx.body as LookupBody;
      const c = ownChallenge(ctx, body.challengeId, body.user);
      if (c) ctx.challenge = c;
      if (forced) {
        if (c && op === 'verify' && (c.state === 'waiting' || c.state === 'approved')) {
          c.state = 'verified';
          c.endedAt ??= ctx.now;
          c.endedBy ??= 'client';
        }
        return { code: 3080, message: json({ challengeId: body.challengeId, status: op === 'verify' ? 'VERIFIED' : 'APPROVED' }) };
      }
      if (!c) return answer(-3087, 'no such challenge for this user');
      switch (c.state) {
        case 'waiting':
          return answer(-3091, 'the user has not answered yet');
        case 'denied':
          return answer(-3092, 'the user denied the challenge');
        case 'expired':
          return answer(-3092, 'the challenge expired');
        case 'cancelled':
          return answer(-3092, 'the challenge was cancelled');
        case 'approved':
        case 'verified':
          if (op === 'status') return { code: 3080, message: json({ challengeId: c.id, status: c.state === 'verified' ? 'VERIFIED' : 'APPROVED' }) };
          if (c.autoVerifyAt === undefined && c.authCode !== undefined && body.authCode !== c.authCode) {
            return answer(-3087, 'the auth code does not match the one the user was shown');
          }
          c.state = 'verified';
          return { code: 3080, message: json({ challengeId: c.id, status: 'VERIFIED' }) };
      }
    }
  }
}
/** The challenge with this id, if it belongs to this API user and this user. */
function ownChallenge(ctx: RequestContext, id: string, user: string): Challenge | undefined {
  const c = ctx.host.findChallenge(id, ctx.now);
  return c && c.apiUser === ctx.apiUser!.id && c.user.toLowerCase() === user.toLowerCase() ? c : undefined;
}
