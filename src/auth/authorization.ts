/**
 * Parsing the Authorization header (decisions §2) into its parts, in linear time, without judging them (the checks do).
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
 * Parses `<token>-hmac: key=value,...` (decisions §2): the scheme is case-insensitive, parts come in any
 * order with spaces around them allowed. Returns undefined for anything else (-4001): another scheme, a
 * part that is not `key=value`, an unknown or repeated key.
 */
export function parseAuthorization(value: string, token: string): AuthorizationParts | undefined {
  const scheme = `${token}-hmac:`;
  const trimmed = value.trimStart();
  if (trimmed.slice(0, scheme.length).toLowerCase() !== scheme) return undefined;
  const parts: AuthorizationParts = {};
  // Split by hand (every request pays this): `key = value`, spaces around either allowed.
  let start = scheme.length;
  for (;;) {
    const comma = trimmed.indexOf(',', start);
    const piece = trimmed.slice(start, comma < 0 ? undefined : comma);
    const eq = piece.indexOf('=');
    if (eq < 0) return undefined;
    const key = piece.slice(0, eq).trim().toLowerCase();
    if (!PART_NAMES.has(key) || (parts as Record<string, string>)[key] !== undefined) return undefined;
    const v = piece.slice(eq + 1).trim();
    if (LINE_BREAK.test(v)) return undefined;
    (parts as Record<string, string>)[key] = v;
    if (comma < 0) return parts;
    start = comma + 1;
  }
}
