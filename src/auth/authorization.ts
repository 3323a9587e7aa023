/**
 * Parsing the Authorization header (docs/behaviour.md#signing-and-header-formats) into its parts, in linear time,
 * without judging them (the checks do).
 */

/** The parts of an Authorization value, as sent; a part absent from the header is undefined. */
export interface AuthorizationParts {
  apiuser?: string;
  signedheaders?: string;
  algorithm?: string;
  signature?: string;
}

/** The parts a key may name: any other key, whatever its characters, makes the value malformed. */
const PART_NAMES = new Set(['apiuser', 'signedheaders', 'algorithm', 'signature']);
/** A value is one line (spaces around it are dropped). */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * Parses `<token>-hmac: key=value,...` (docs/behaviour.md#signing-and-header-formats): the scheme is case-insensitive,
 * parts come in any order with spaces around them allowed. Returns undefined for anything else (-4001): another scheme,
 * a part that is not `key=value`, an unknown or repeated key.
 */
export function parseAuthorization(value: string, token: string): AuthorizationParts | undefined {
  const scheme = `${token}-hmac:`;
  const trimmed = value.trimStart();
  if (!trimmed.startsWith(scheme) && trimmed.slice(0, scheme.length).toLowerCase() !== scheme) return undefined;
  const parts: Record<string, string> = {};
  // One look for a line break in the whole value; only when there is one is each part's value looked at.
  const anyLineBreak = LINE_BREAK.test(trimmed);
  // Scanned by index (every request pays this): each piece is `key = value` up to the next comma, spaces around
  // either allowed; only the key and the value are cut out, and a key already in lower case is not lowered again.
  let start = scheme.length;
  for (;;) {
    const comma = trimmed.indexOf(',', start);
    // Stryker disable next-line EqualityOperator: a comma is searched for from past the scheme, never at index 0
    const end = comma < 0 ? trimmed.length : comma;
    // An equals sign past the comma leaves a key with a comma in it, which no part is named.
    const eq = trimmed.indexOf('=', start);
    // Stryker disable next-line EqualityOperator: an equals sign is searched for from past the scheme, never at index 0
    if (eq < 0) return undefined;
    const written = trimmed.slice(start, eq).trim();
    const key = PART_NAMES.has(written) ? written : written.toLowerCase();
    if (!PART_NAMES.has(key) || parts[key] !== undefined) return undefined;
    const v = trimmed.slice(eq + 1, end).trim();
    if (anyLineBreak && LINE_BREAK.test(v)) return undefined;
    parts[key] = v;
    // Stryker disable next-line EqualityOperator: a comma is searched for from past the scheme, never at index 0
    if (comma < 0) return parts;
    start = comma + 1;
  }
}
