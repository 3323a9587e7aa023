import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

// One signing function for clients and server, so they cannot drift (docs/behaviour.md#signing-and-header-formats).

/** The default identifier token (docs/behaviour.md#the-identifier-token). */
export const DEFAULT_TOKEN = 'svc';

/** The header names a token makes: `x-<token>-utctime`, `x-<token>-cnonce`, `x-<token>-apiuser`. */
export interface HeaderNames {
  readonly utctime: string;
  readonly nonce: string;
  readonly apiUser: string;
}

/** Every name a token makes: header names, `signedheaders=`, `algorithm=` and the body's user field. */
export interface TokenNames extends HeaderNames {
  readonly signedHeaders: string;
  readonly algorithm: string;
  readonly userKey: string;
}

/** Header names for a token: `x-<token>-utctime`, `x-<token>-cnonce`, `x-<token>-apiuser`. */
export function headerNames(token: string = DEFAULT_TOKEN): HeaderNames {
  return { utctime: `x-${token}-utctime`, nonce: `x-${token}-cnonce`, apiUser: `x-${token}-apiuser` };
}

/** The body's field for the user's e-mail address: `<token>User` (`svcUser` with the default token). */
export function userKeyOf(token: string): string {
  return `${token}User`;
}

/** Every name a token makes. */
export function tokenNames(token: string): TokenNames {
  const h = headerNames(token);
  return { ...h, signedHeaders: `${h.utctime};${h.nonce}`, algorithm: `${token}-hmac512`, userKey: userKeyOf(token) };
}

/**
 * The exact string the client signs: two header lines, one space after each colon, no trailing newline
 * (docs/behaviour.md#signing-and-header-formats).
 */
export function stringToSign(utctime: string, nonce: string, token: string = DEFAULT_TOKEN): string {
  return signingLines(headerNames(token), utctime, nonce);
}

/** The string to sign with the header names already made. */
export function signingLines(names: HeaderNames, utctime: string, nonce: string): string {
  return `${names.utctime}: ${utctime}\n${names.nonce}: ${nonce}`;
}

/** HMAC-SHA512 of the string-to-sign, keyed with the secret (both UTF-8), as 128 lower-case hex characters. */
export function sign(secret: string, utctime: string, nonce: string, token: string = DEFAULT_TOKEN): string {
  return hmac(secret, stringToSign(utctime, nonce, token)).toString('hex');
}

/** The Authorization value the published clients send. */
export function authorizationValue(apiUser: string, signature: string, token: string = DEFAULT_TOKEN): string {
  const names = tokenNames(token);
  return `${token}-hmac: apiuser=${apiUser},signedheaders=${names.signedHeaders},algorithm=${names.algorithm},signature=${signature}`;
}

/** What `signedHeaders` signs: as which API user, with which secret, token, time and nonce. */
export interface SignOptions {
  apiUser: string;
  secret: string;
  token?: string;
  /** Milliseconds since the epoch to sign with; defaults to this machine's clock. */
  time?: number;
  /** The nonce; defaults to a fresh UUID v4. */
  nonce?: string;
}

/** The four authentication headers of a freshly signed request. */
export function signedHeaders(opts: SignOptions): Record<string, string> {
  const token = opts.token ?? DEFAULT_TOKEN;
  const utctime = String(Math.trunc(opts.time ?? Date.now()));
  const nonce = opts.nonce ?? randomUUID();
  const names = headerNames(token);
  return {
    Authorization: authorizationValue(opts.apiUser, sign(opts.secret, utctime, nonce, token), token),
    [names.apiUser]: opts.apiUser,
    [names.utctime]: utctime,
    [names.nonce]: nonce,
  };
}

function hmac(secret: string, message: string): Buffer {
  return createHmac('sha512', secret).update(message).digest();
}

/** Whether `hex` (either case) is the HMAC of `toSign` under `secret`, compared in constant time. */
export function signatureMatches(secret: string, toSign: string, hex: string): boolean {
  const sent = Buffer.from(hex, 'hex');
  // Buffer.from stops at the first character that is not hex: a signature is exactly 128 of them.
  return hex.length === 128 && sent.length === 64 && timingSafeEqual(sent, hmac(secret, toSign));
}

/** The parts of an Authorization value, as sent; a part absent from the header is undefined. */
export interface AuthorizationParts {
  apiuser?: string;
  signedheaders?: string;
  algorithm?: string;
  signature?: string;
}

const PART_NAMES = new Set(['apiuser', 'signedheaders', 'algorithm', 'signature']);
/** A value is one line (spaces around it are dropped). */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * Parses `<token>-hmac: key=value,...` (case-insensitive scheme, parts in any order, spaces allowed); undefined for
 * anything else (-4001). docs/behaviour.md#signing-and-header-formats
 */
export function parseAuthorization(value: string, token: string): AuthorizationParts | undefined {
  const scheme = `${token}-hmac:`;
  const trimmed = value.trimStart();
  if (!trimmed.startsWith(scheme) && trimmed.slice(0, scheme.length).toLowerCase() !== scheme) return undefined;
  const parts: Record<string, string> = {};
  let start = scheme.length;
  for (;;) {
    const comma = trimmed.indexOf(',', start);
    // Stryker disable next-line EqualityOperator: a comma is searched for from past the scheme, never at index 0
    const end = comma < 0 ? trimmed.length : comma;
    // An equals sign past the comma leaves a key with a comma in it, which no part is named.
    const eq = trimmed.indexOf('=', start);
    // Stryker disable next-line EqualityOperator: an equals sign is searched for from past the scheme, never at index 0
    if (eq < 0) return undefined;
    const key = trimmed.slice(start, eq).trim().toLowerCase();
    if (!PART_NAMES.has(key) || parts[key] !== undefined) return undefined;
    const v = trimmed.slice(eq + 1, end).trim();
    if (LINE_BREAK.test(v)) return undefined;
    parts[key] = v;
    // Stryker disable next-line EqualityOperator: a comma is searched for from past the scheme, never at index 0
    if (comma < 0) return parts;
    start = comma + 1;
  }
}
