import type { TokenNames } from '../auth/signature.js';
import type { Operation } from './codes.js';
import { answer, isObject, own, type Answer } from './response.js';
import { CHALLENGE_TYPES, decodeUser, EXPIRY_MS, LENIENT_EXPIRY_MS, lenientInteger, parseJson } from './envelope.js';
import { TYPE_OPERATION, endpointTypes, type Endpoint } from './envelope.js';

// The envelope and body checks of step 7 of docs/behaviour.md#order-of-checks.

/** How a request is read: docs/behaviour.md#leniency-and-body-checks. */
export interface ReadMode {
  strict: boolean;
  /** The identifier token's names: the user field is `<token>User`, made once per compiled scenario. */
  names: Pick<TokenNames, 'userKey'>;
}

/** A value the caller sent, as a message names it (objects by kind: never serialized, it may nest too deep). */
function shown(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return JSON.stringify(v);
}

/** The envelope after its checks: which operation, the caller's id, and the body object. */
export interface JudgedEnvelope {
  op: Operation;
  type: number;
  id?: string;
  body: Record<string, unknown>;
}

const STRICT_ENVELOPE_KEYS = new Set(['id', 'utctime', 'apiUser', 'apiuser', 'type', 'body']);

/** The envelope checks of step 7 of docs/behaviour.md#order-of-checks, in order. */
export function judgeEnvelope(
  text: string,
  endpoint: Endpoint,
  apiUser: string,
  mode: ReadMode,
): Answer | JudgedEnvelope {
  const lenient = !mode.strict;
  // A string, or (lenient) a number written as one.
  const textOf = (v: unknown) => (typeof v === 'string' ? v : lenient && typeof v === 'number' ? String(v) : undefined);
  const parsed = parseJson(text, lenient);
  if (parsed.kind === 'empty') return answer(-5070, 'the request has no JSON envelope');
  if (parsed.kind === 'invalid') return answer(-5071, 'the request is not JSON');
  const env = parsed.value;
  if (env === null) return answer(-5070, 'the envelope is null');
  if (!isObject(env)) return answer(-5071, 'the envelope is not a JSON object');

  let body = own(env, 'body');
  if (body === undefined || body === null) return answer(-5070, '`body` is null or absent');
  if (typeof body === 'string') {
    if (!lenient) return answer(-5071, '`body` is a string; the document shows an object');
    const inner = parseJson(body, true);
    if (inner.kind !== 'value') return answer(-5071, '`body` is a string that is not JSON');
    body = inner.value;
    if (body === null) return answer(-5070, '`body` is null');
  }
  if (!isObject(body)) return answer(-5071, '`body` is not a JSON object');

  const apiUserText = textOf(own(env, 'apiUser') ?? own(env, 'apiuser'));
  if (apiUserText === undefined) return answer(-1003, 'the envelope has no `apiUser`');
  if (apiUserText !== apiUser) return answer(-1003, "the envelope's `apiUser` is not the authenticated API user");

  const rawType = own(env, 'type');
  const type = lenient
    ? lenientInteger(rawType)
    : typeof rawType === 'number' && Number.isInteger(rawType)
      ? rawType
      : undefined;
  const types = endpointTypes(endpoint, mode.strict);
  if (type === undefined || !types.includes(type)) {
    return answer(
      -5072,
      `type ${shown(rawType)} is not an operation of /v1/svc/${endpoint}, which takes ${types.length > 1 ? `${types.slice(0, -1).join(', ')} or ${types[types.length - 1]}` : types[0]}`,
    );
  }

  const rawId = own(env, 'id');
  let id: string | undefined;
  if (rawId !== undefined && rawId !== null) {
    id = textOf(rawId);
    if (id === undefined) return answer(-5075, '`id` is not a string');
    if (id.length > 25) return answer(-5075, '`id` is longer than 25 characters');
  } else if (rawId === null && !lenient) {
    return answer(-5075, '`id` is null');
  }
  if (!lenient) {
    for (const key of Object.keys(env))
      if (!STRICT_ENVELOPE_KEYS.has(key)) return answer(-5075, `unknown envelope key \`${key}\``);
    const utctime = own(env, 'utctime');
    if (typeof utctime !== 'string' || !/^\d{1,16}$/.test(utctime))
      return answer(-5075, '`utctime` must be a string of milliseconds');
  }
  return { op: TYPE_OPERATION.get(type) as Operation, type, id, body };
}

export interface ChallengeBody {
  user: string;
  challengeType: string;
  expiry: string;
  expiryMs: number;
  qr: boolean;
  autoVerify: boolean;
  profile?: string;
  ipAddress?: string;
}
export interface CancelBody {
  user: string;
  challengeId: string;
}
export interface LookupBody {
  user: string;
  challengeId: string;
  authCode?: string;
}
export interface BlockedBody {
  user: string;
  ipAddress: string;
}
export type Body = ChallengeBody | CancelBody | LookupBody | BlockedBody | Record<string, never>;

/** A body field reader that records the first -5075 problem. */
class Fields {
  problem: string | undefined;
  /** The keys read, for rejectUnknown. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly body: Record<string, unknown>,
    private readonly lenient: boolean,
  ) {}

  /** A field by its name, then its strict aliases, then (when lenient) its aliases. */
  get(name: string, aliases: readonly string[] = [], strictAliases: readonly string[] = []): unknown {
    this.seen.add(name);
    for (const a of strictAliases) this.seen.add(a);
    let v = this.value(name);
    for (const a of strictAliases) v ??= this.value(a);
    if (this.lenient) for (const a of aliases) v ??= this.value(a);
    return v;
  }

  /** A key's value, undefined when absent or null; a null is a problem when strict (the first problem answers). */
  private value(key: string): unknown {
    const v = own(this.body, key);
    if (v !== null) return v;
    if (!this.lenient) this.fail(`\`${key}\` is null`);
    return undefined;
  }

  string(name: string, max?: number, aliases: readonly string[] = []): string | undefined {
    const v = this.get(name, aliases);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.fail(`\`${name}\` is not a string`);
    if (max !== undefined && v.length > max) return this.fail(`\`${name}\` is longer than ${max} characters`);
    return v;
  }

  boolean(name: string, fallback: boolean, strictAliases: readonly string[] = []): boolean {
    const v = this.get(name, [], strictAliases);
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v;
    if (this.lenient && typeof v === 'string' && /^(true|false)$/i.test(v.trim()))
      return v.trim().toLowerCase() === 'true';
    this.fail(`\`${name}\` is not a boolean`);
    return fallback;
  }

  /** In strict mode, a key the document does not show is a body error. */
  rejectUnknown(): void {
    if (this.lenient) return;
    for (const key of Object.keys(this.body)) if (!this.seen.has(key)) this.fail(`unknown body key \`${key}\``);
  }

  fail(problem: string): undefined {
    this.problem ??= problem;
    return undefined;
  }
}

/** A dotted-quad IPv4 address. */
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** The body checks of each operation, in the order -5075, -5076, -5077, -5078, -5079: the first failing one decides. */
export function judgeBody(
  op: Operation,
  raw: Record<string, unknown>,
  mode: ReadMode,
  ipRulesApply: boolean,
): Answer | Body {
  const lenient = !mode.strict;
  const f = new Fields(raw, lenient);
  const userKey = mode.names.userKey;
  const user = f.string(userKey, 125);
  let out: Body;
  let challengeType: unknown;
  switch (op) {
    case 'challenge': {
      challengeType = f.get('challengeType');
      const expiry = f.string('challengeExpiry') ?? 'FifteenMins';
      const table = lenient ? LENIENT_EXPIRY_MS : EXPIRY_MS;
      const expiryMs = Object.prototype.hasOwnProperty.call(table, expiry) ? table[expiry] : undefined;
      if (expiryMs === undefined)
        f.fail(`challengeExpiry \`${expiry}\` is not one of ${Object.keys(table).join(', ')}`);
      const qr = f.boolean('enableQRcode', true, ['enableQRCode']);
      const autoVerify = f.boolean('enableAutoVerify', false);
      const profile = f.string('profile');
      const status = f.string('status');
      if (status !== undefined && (lenient ? status.toUpperCase() : status) !== 'NEW') f.fail('`status` must be NEW');
      const ipAddress = readIp(f, ipRulesApply, false);
      if (challengeType !== undefined && typeof challengeType !== 'string') f.fail('`challengeType` is not a string');
      out = {
        user: user ?? '',
        challengeType: typeof challengeType === 'string' ? challengeType : '',
        expiry,
        expiryMs: expiryMs ?? 0,
        qr,
        autoVerify,
        profile,
        ipAddress,
      };
      break;
    }
    case 'cancel': {
      const challengeId = f.string('challengeId', undefined, ['challngeId']);
      const status = f.string('status');
      if (challengeId === undefined || challengeId === '') f.fail('`challengeId` is missing');
      if (status === undefined || (lenient ? status.toUpperCase() : status) !== 'CANCEL')
        f.fail('`status` must be CANCEL');
      out = { user: user ?? '', challengeId: challengeId ?? '' };
      break;
    }
    case 'status':
    case 'verify': {
      const challengeId = f.string('challengeId', undefined, ['challngeId']);
      if (challengeId === undefined || challengeId === '') f.fail('`challengeId` is missing');
      let authCode = f.string('authCode', 64);
      if (lenient && authCode !== undefined && authCode.trim().toLowerCase() === 'null') authCode = undefined;
      f.string('verifyType');
      f.string('expiry');
      f.string('status');
      out = { user: user ?? '', challengeId: challengeId ?? '', authCode };
      break;
    }
    case 'blocked': {
      const ipAddress = readIp(f, true, true);
      out = { user: user ?? '', ipAddress: ipAddress ?? '' };
      break;
    }
    case 'time':
      return {};
  }
  f.rejectUnknown();
  if (f.problem) return answer(-5075, f.problem);
  // challengeType is a string or absent here (another type failed above); never String() a caller's object.
  if (
    op === 'challenge' &&
    typeof challengeType === 'string' &&
    challengeType !== '' &&
    !(CHALLENGE_TYPES as readonly string[]).includes(challengeType)
  ) {
    return answer(-5076, `\`${challengeType}\` is not one of ${CHALLENGE_TYPES.join(', ')}`);
  }
  if (user === undefined || user === '') return answer(-5077, `the body has no \`${userKey}\``);
  if (op === 'challenge' && (challengeType === undefined || challengeType === '')) return answer(-5078);
  const email = decodeUser(user, lenient);
  if (email === undefined) return answer(-5079, `\`${userKey}\` is not an e-mail address`);
  (out as { user: string }).user = email;
  return out;
}

/** `ipAddress`: required when the API user has IP rules (or for the blocked check), and then a valid IPv4 address. */
function readIp(f: Fields, required: boolean, always: boolean): string | undefined {
  const ip = f.string('ipAddress');
  const given = ip !== undefined && ip.trim() !== '';
  if (!given) {
    if (required) f.fail(always ? '`ipAddress` is missing' : '`ipAddress` is required: the API user has IP rules');
    return undefined;
  }
  if (!IPV4.test(ip.trim())) return f.fail(`\`ipAddress\` \`${ip}\` is not an IPv4 address`);
  return ip.trim();
}
