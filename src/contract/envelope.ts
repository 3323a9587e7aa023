import type JSON5Module from 'json5';
import { lazy } from '../files/lazy.js';
import { isObject, own } from './response.js';
import type { Operation } from './codes.js';

// Reading request text as JSON (relaxed JSON only when lenient), a body's cheap peek, and the user's e-mail.

const json5 = lazy<typeof JSON5Module>('json5');

export type ParsedJson = { kind: 'empty' } | { kind: 'invalid' } | { kind: 'value'; value: unknown };

/** Parses request text as JSON; when lenient, text that is not JSON is read as JSON5 (a published client sends it). */
export function parseJson(text: string, lenient: boolean): ParsedJson {
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'value', value: JSON.parse(text) };
  } catch {
    if (!lenient) return INVALID;
  }
  try {
    return { kind: 'value', value: withoutConsoleWarnings(() => json5().parse(text)) };
  } catch {
    return INVALID;
  }
}

/** Runs `parse` with console.warn silenced: JSON5 warns once for each U+2028 or U+2029 in a string. */
function withoutConsoleWarnings<T>(parse: () => T): T {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return parse();
  } finally {
    console.warn = warn;
  }
}

const INVALID: ParsedJson = Object.freeze({ kind: 'invalid' });

/** The fields a rule or the permission check may look at before the envelope is judged. */
export interface Peek {
  id?: string;
  type?: number;
  apiUser?: string;
  /** The body's user as sent: an address, or one written in Base64 (`peekedUser` reads it). */
  sentUser?: string;
  challengeType?: string;
  /** Everything was read: a relaxed reading would find nothing more. */
  complete: boolean;
}

/** Before authentication only this much of a string `body` is read as relaxed JSON (no unpaid parser work). */
const PRE_AUTH_RELAXED_CHARS = 4096;

/** Reads what it can of a request body, for rule matching, the answer's `id` and the permission check. */
export function peek(text: string, userKey: string, relaxed: boolean): Peek {
  const out: Peek = { complete: true };
  const parsed = parseJson(text, relaxed);
  if (parsed.kind === 'invalid') out.complete = false;
  if (parsed.kind !== 'value' || !isObject(parsed.value)) return out;
  const env = parsed.value;
  const id = own(env, 'id');
  if (typeof id === 'string' || typeof id === 'number') out.id = String(id);
  const type = lenientInteger(own(env, 'type'));
  if (type !== undefined) out.type = type;
  const apiUser = own(env, 'apiUser') ?? own(env, 'apiuser');
  if (typeof apiUser === 'string' || typeof apiUser === 'number') out.apiUser = String(apiUser);
  let body = own(env, 'body');
  if (typeof body === 'string') {
    const readable = relaxed || body.length <= PRE_AUTH_RELAXED_CHARS;
    if (!readable) out.complete = false;
    const inner = readable ? parseJson(body, true) : undefined;
    body = inner?.kind === 'value' ? inner.value : undefined;
  }
  if (isObject(body)) {
    const user = own(body, userKey);
    if (typeof user === 'string') out.sentUser = user;
    const ct = own(body, 'challengeType');
    if (typeof ct === 'string') out.challengeType = ct;
  }
  return out;
}

/** The user a peek found: the address, decoded when it was sent in Base64. */
export function peekedUser(p: Peek): string | undefined {
  return p.sentUser === undefined ? undefined : (decodeUser(p.sentUser, true) ?? p.sentUser);
}

/** An integer, or (lenient) a string of digits; else undefined. */
export function lenientInteger(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,9}$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

// The WHATWG form of an e-mail address, with a dot required in the domain.
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether a string is an e-mail address as the service accepts it. */
export function isEmail(s: string): boolean {
  return s.length <= 254 && EMAIL.test(s);
}

/** The user's e-mail address as given, or (lenient) decoded from Base64; undefined when neither. */
export function decodeUser(value: string, lenient: boolean): string | undefined {
  if (isEmail(value)) return value;
  if (!lenient || value.length < 8 || value.length > 256 || !BASE64.test(value)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  return isEmail(decoded) ? decoded : undefined;
}

// The service's endpoints, envelope types and challenge values: which operation each endpoint and `type` name.

/** The endpoints under `/v1/svc/`. */
export const ENDPOINTS = ['challenge', 'time', 'status', 'verify', 'blocked'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** Envelope `type` values: the one each operation is selected by (docs/behaviour.md#leniency-and-body-checks). */
export const OPERATION_TYPE: Readonly<Record<Operation, number>> = {
  challenge: 150,
  cancel: 151,
  time: 990,
  status: 171,
  verify: 170,
  blocked: 950,
};
export const TYPE_OPERATION: ReadonlyMap<number, Operation> = new Map(
  Object.entries(OPERATION_TYPE).map(([op, type]) => [type, op as Operation]),
);

const ENDPOINT_TYPES: Readonly<Record<Endpoint, readonly number[]>> = {
  challenge: [150, 151],
  time: [990],
  status: [171],
  verify: [170],
  blocked: [950],
};

/**
 * The `type` values each endpoint serves; when lenient, the challenge endpoint takes the blocked check (950) too
 * (docs/behaviour.md#leniency-and-body-checks).
 */
export function endpointTypes(endpoint: Endpoint, strict: boolean): readonly number[] {
  return endpoint === 'challenge' && !strict ? [150, 151, 950] : ENDPOINT_TYPES[endpoint];
}

/** Methods each endpoint answers: POST everywhere, and GET on time, which the published clients send. */
export function endpointMethods(endpoint: Endpoint): readonly string[] {
  return endpoint === 'time' ? ['POST', 'GET'] : ['POST'];
}

/** The path prefix of every endpoint, whatever the identifier token. */
const API_PREFIX = '/v1/svc/';

/** The endpoint under `/v1/svc/` or `/v1/<token>/` a path names (trailing slash and query ignored), or undefined. */
export function endpointOf(path: string, token: string): Endpoint | undefined {
  const prefix = path.startsWith(API_PREFIX)
    ? API_PREFIX.length
    : path.startsWith(`/v1/${token}/`)
      ? token.length + 5
      : -1;
  if (prefix < 0) return undefined;
  let rest = path.slice(prefix);
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  return (ENDPOINTS as readonly string[]).includes(rest) ? (rest as Endpoint) : undefined;
}

export const CHALLENGE_TYPES = [
  'UserKeyAndPattern',
  'UserKeyPatternAndPin',
  'UserKeyAndUserPin',
  'UserKeyAndUserFace',
  'UserKeyAndUserVoice',
] as const;

/** challengeExpiry values and their length; TenMins and SixtyMins (sent by real clients) only when lenient. */
export const EXPIRY_MS: Readonly<Record<string, number>> = {
  ThreeMins: 3 * 60_000,
  FiveMins: 5 * 60_000,
  FifteenMins: 15 * 60_000,
  ThirtyMins: 30 * 60_000,
};
export const LENIENT_EXPIRY_MS: Readonly<Record<string, number>> = {
  ...EXPIRY_MS,
  TenMins: 10 * 60_000,
  SixtyMins: 60 * 60_000,
};
