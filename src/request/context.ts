import type { ReplayMemory } from '../auth/replay.js';
import type { Operation } from '../contract/codes.js';
import type { Body, JudgedEnvelope } from '../contract/bodies.js';
import { endpointOf, endpointTypes, peek, TYPE_OPERATION, type Endpoint, type Peek } from '../contract/envelope.js';
import type { ApiUser, CompiledScenario } from '../scenario/compile.js';
import type { CompiledRule, RuleSubject } from '../scenario/rules.js';
import type { Challenge } from '../world/challenges.js';
import type { World } from '../world/world.js';
import type { Doctor, Hint } from '../doctor/doctor.js';
import { signingLines, type AuthorizationParts } from '../auth/signature.js';
import { mustCode } from '../contract/codes.js';
import { clipText, isoTime, type Answer } from '../contract/response.js';
import type { JournalEntry, Caller } from '../run/answered.js';
import { clip, JOURNAL_BODY_CHARS } from '../run/journal.js';

/** A request as the HTTP layer hands it over. */
export interface ApiRequest {
  method: string;
  /** The request target: path and query. */
  url: string;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body was larger than this limit (bytes) and was not read whole. */
  tooLarge?: number;
}

/** What a request leaves behind: staged while the checks read, committed once answered (commit.ts), or dropped. */
export interface Staged {
  /** Its nonce and time, to be remembered now that the signature verified; when it arrived (this machine's clock). */
  replay?: { memory: ReplayMemory; nonce?: string; time?: number; until: number; arrived: number };
  /** A challenge made (kept from then on), cancelled, or verified. */
  challenge?: { made: Challenge } | { cancelled: Challenge } | { verified: Challenge };
}

/** Everything the checks learn about one request, in the order they learn it. */
export class RequestContext implements RuleSubject {
  endpoint?: Endpoint;
  /** The Authorization header's parts once the header is checked; null when it was checked and is misshapen. */
  parts?: AuthorizationParts | null;
  /** Each once its check found it well-formed. */
  utctime?: string;
  nonce?: string;
  signature?: string;
  apiUserId?: string;
  apiUser?: ApiUser;
  env?: JudgedEnvelope;
  body?: Body;
  challenge?: Challenge;
  /** The rule that decided, and the code it forces (undefined for a rule that only delays or breaks the wire). */
  rule?: CompiledRule;
  forced?: { code: number; message?: string };
  /** auth: log: the authentication checks that would have failed, each with the doctor's hint when it has one. */
  wouldFail?: { code: number; reason: string; hint?: Hint }[];
  hint?: Hint;
  /** The journal's number this request will have once answered. */
  seq = 0;
  readonly staged: Staged = {};
  /** The message of an exception the checks threw (a bug of the simulator's), for the log. */
  internalError?: string;
  /** For a scenario picked by header: the time and drift window of the scenario it would otherwise run under. */
  guard?: { now: number; maxDrift: number };
  /** Authentication passed (or is not checked): the body may now be read by the relaxed parser. */
  verified = false;
  /** The signature is right: it passed its check, or (for the client doctor) it was checked on a -4036 refusal. */
  signed = false;
  private peeked?: Peek;
  // Stryker disable next-line BooleanLiteral: read only once `peeked` is set, which sets it too
  private peekedRelaxed = false;
  private routed?: Endpoint | null;

  constructor(
    readonly world: World,
    readonly links: Links,
    readonly doctor: Doctor,
    readonly active: CompiledScenario,
    /** The scenario the request runs under. */
    readonly sc: CompiledScenario,
    readonly req: ApiRequest,
    /** Simulator time for this request (virtual clock plus the scenario's offset). */
    readonly now: number,
  ) {}

  /** Who API user `id` is for this request (see World.apiUser). */
  apiUserNamed(id: string): ApiUser | undefined {
    return this.world.apiUser(this.sc, this.active, id);
  }

  /** The request body read leniently, for rules and the permission check; never fails. */
  get peek(): Peek {
    const relaxed = this.verified || this.sc.auth !== 'verify';
    // A cache: the mutants that only read the body more often are equivalent.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: reads again, alike
    if (!this.peeked || (relaxed && !this.peekedRelaxed && !this.peeked.complete)) {
      this.peeked = peek(this.req.body, this.sc.names.userKey, relaxed);
      this.peekedRelaxed = relaxed;
    }
    return this.peeked;
  }

  /** A request header by its lower-case name; own headers only (a rule may name `__proto__`). */
  header(name: string): string | undefined {
    const headers = this.req.headers;
    if (!Object.hasOwn(headers, name)) return undefined;
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** The operation, as far as it is known before the envelope is judged. */
  get operation(): Operation | undefined {
    // Stryker disable next-line ConditionalExpression: no reader comes after the envelope check today
    if (this.env) return this.env.op;
    const endpoint = this.endpointByPath;
    if (!endpoint) return undefined;
    const types = endpointTypes(endpoint, this.sc.strict);
    if (types.length === 1) return TYPE_OPERATION.get(types[0]);
    const t = this.peek.type;
    // Stryker disable next-line ConditionalExpression: the types are numbers, so includes(undefined) is false anyway
    return t !== undefined && types.includes(t) ? TYPE_OPERATION.get(t) : undefined;
  }

  /** The endpoint the path names, whatever the method. */
  get endpointByPath(): Endpoint | undefined {
    // Stryker disable next-line ConditionalExpression: a cache of a pure function
    if (this.routed === undefined) this.routed = endpointOf(this.req.url, this.sc.token) ?? null;
    return this.routed ?? undefined;
  }

  /** The instant replay memory judges expiry by: the earlier clock under a guard, so nothing is forgotten early. */
  get replayNow(): number {
    return this.guard ? Math.min(this.now, this.guard.now) : this.now;
  }

  /** How long replay memory keeps this request: the longer drift window when a guard applies. */
  get replayWindow(): number {
    return this.guard ? Math.max(this.sc.maxDrift, this.guard.maxDrift) : this.sc.maxDrift;
  }

  /** Who sent it: a client, or the dashboard's explorer (a request the simulator signed itself). */
  get actor(): 'client' | 'explorer' {
    return this.doctor.sentItself(this.header(this.sc.names.nonce)) ? 'explorer' : 'client';
  }

  /** How far the request showed who sent it (run/answered.ts). */
  get caller(): Caller {
    // The API user the checks found, else the one the header names.
    const named = this.apiUserId ?? this.header(this.sc.names.apiUser);
    // Stryker disable next-line ConditionalExpression: for the type checker; no one is named undefined either
    if (named === undefined || this.apiUserNamed(named) === undefined) return 'unknown';
    // Stryker disable next-line StringLiteral: observers compare a caller with 'unknown' and 'signed' only
    return this.signed || this.sc.auth !== 'verify' ? 'signed' : 'known';
  }

  /** The caller's envelope id, when it sent a usable one. */
  get callerId(): string | undefined {
    const id = this.env?.id ?? this.peek.id;
    return id !== undefined && id.length <= 25 ? id : undefined;
  }
}

/** How answers link back to the simulator: `moreInfo`, `challengeQRcodeUrl` and the pages' own links. */
export class Links {
  constructor(
    private readonly redact: (text: string) => string,
    /** Set by the server once listening, or by the `publicUrl` option. */
    public publicUrl?: string,
  ) {}

  /** The simulator's own base URL: the public URL, else the one this request reached it by. */
  base(hostHeader?: string | string[]): string {
    if (this.publicUrl) return this.publicUrl;
    const plain = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
    return this.redact(`http://${typeof hostHeader === 'string' && plain.test(hostHeader) ? hostHeader : 'localhost'}`);
  }

  /** The page a challenge's QR code opens: the user's phone. */
  challenge(id: string, hostHeader?: string | string[]): string {
    return `${this.base(hostHeader)}/phone/${encodeURIComponent(id)}`;
  }
}

/** The record of one answered request, as every observer receives it (what is cut has its secrets hidden first). */
export function recordOf(
  ctx: RequestContext,
  seq: number,
  result: Answer | undefined,
  sent: string | undefined,
  latencyMs: number,
  hide: (text: string) => string,
): JournalEntry {
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

/** For -4037: the string the request's signing headers make (also for a forced -4037); none without both headers. */
function stringToSignOf(ctx: RequestContext): string | undefined {
  return ctx.utctime === undefined || ctx.nonce === undefined
    ? undefined
    : signingLines(ctx.sc.names, ctx.utctime, ctx.nonce);
}

/** A journal entry keeps at most this many of a request's headers: a client sends a dozen; Node reads 1,000. */
const MAX_HEADERS_KEPT = 100;

/** The request as the journal keeps it: its first MAX_HEADERS_KEPT headers, and its body cut to size. */
export function requestAsKept(req: RequestContext['req'], hide: (text: string) => string): JournalEntry['request'] {
  const body = bodyAsKept(req.body, hide);
  const names = Object.keys(req.headers);
  if (names.length <= MAX_HEADERS_KEPT) return { headers: req.headers, body };
  const headers = Object.create(null) as JournalEntry['request']['headers'];
  for (const name of names.slice(0, MAX_HEADERS_KEPT)) headers[name] = req.headers[name];
  return { headers, body, headersLeftOut: names.length - MAX_HEADERS_KEPT };
}

/** An API user header the request did not authenticate with, as the journal keeps it: 32 characters at most. */
function headerAsKept(value: string | undefined, hide: (text: string) => string): string | undefined {
  return value === undefined || value.length <= 32 ? value : clipText(hide(value), 32);
}

/** A body as the journal keeps it: 8 KiB at most. */
export function bodyAsKept(body: string, hide: (text: string) => string): string {
  return body.length <= JOURNAL_BODY_CHARS
    ? body
    : clip(hide(body.slice(0, JOURNAL_BODY_CHARS * 2)), JOURNAL_BODY_CHARS, body.length);
}
