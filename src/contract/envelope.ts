import type JSON5Module from 'json5';
import { lazy } from '../files/lazy.js';
import { isObject, own } from './answer.js';

/**
 * Reading request text as JSON (or, when lenient and authenticated, relaxed JSON), the cheap look at a body that
 * rules and the permission check need, and the user e-mail (plain or Base64).
 */

const json5 = lazy<typeof JSON5Module>('json5');

export type ParsedJson = { kind: 'empty' } | { kind: 'invalid' } | { kind: 'value'; value: unknown };

/**
 * Parses request text as JSON; when lenient, text that is not JSON is read as relaxed JSON (JSON5: single
 * quotes, trailing commas, unquoted keys), which one published client sends inside `body`.

 */
export function parseJson(text: string, lenient: boolean): ParsedJson {
  if (text.trim() === '') return { kind: 'empty' };
  const strict = strictJson(text);
  if (strict !== INVALID || !lenient) return strict;
  try {
    return { kind: 'value', value: withoutConsoleWarnings(() => json5().parse(text)) };
  } catch {
    return INVALID;
  }
}

/**
 * Runs `parse` with console.warn silenced: JSON5 warns on the console once for each U+2028 or U+2029 in a string, so
 * one request's body could print thousands of lines (the parse is synchronous: nothing else runs meanwhile).
 */
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

/** `JSON.parse` of the text, as a ParsedJson. */
function strictJson(text: string): ParsedJson {
  try {
    return { kind: 'value', value: JSON.parse(text) };
  } catch {
    return INVALID;
  }
}

/**
 * The fields a rule or the permission check may look at before the envelope is judged: read leniently, never failing.
 */
export interface Peek {
  id?: string;
  type?: number;
  apiUser?: string;
  /**
   * The body's user as sent: an address, or one written in Base64 (`peekedUser` reads it). Read only when a rule asks
   * for it: most requests meet no rule on their user, and checking an address costs as much as the rest of a peek.
   */
  sentUser?: string;
  challengeType?: string;
  /** Everything was read: a relaxed reading would find nothing more. */
  complete: boolean;
}

/**
 * Before authentication only this much of a body written as a string is read as relaxed JSON: the published client
 * that sends one sends a few hundred bytes, and an unauthenticated caller must not buy the relaxed parser's work.
 */
const PRE_AUTH_RELAXED_CHARS = 4096;

/**
 * Reads what it can of a request body, for rule matching, the answer's `id` and the permission check. Before
 * authentication (`relaxed` false) the envelope is read as JSON only, and a string `body` as relaxed JSON only when
 * short; after it (`relaxed`), as the lenient envelope parser reads it.
 */
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

/**
 * The user's e-mail address: as given when it is one; when lenient, also one written in Base64 (a published
 * client encodes it). Undefined when neither.
 */
export function decodeUser(value: string, lenient: boolean): string | undefined {
  if (isEmail(value)) return value;
  if (!lenient || value.length < 8 || value.length > 256 || !BASE64.test(value)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  return isEmail(decoded) ? decoded : undefined;
}
