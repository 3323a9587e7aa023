/** The parts of an Authorization value, as sent; a part absent from the header is undefined. */
export interface AuthorizationParts {
  apiuser?: string;
  signedheaders?: string;
  algorithm?: string;
  signature?: string;
}

const PART_NAMES = new Set(['apiuser', 'signedheaders', 'algorithm', 'signature']);
const KEY = /^[A-Za-z]+$/;

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
  for (const piece of trimmed.slice(scheme.length).split(',')) {
    // Split at the first `=` and trimmed by hand: a regular expression with a lazy value and trailing spaces
    // takes quadratic time on a long run of inner spaces, and a header may be 16 KiB.
    const eq = piece.indexOf('=');
    if (eq < 0) return undefined;
    const name = piece.slice(0, eq).trim();
    if (!KEY.test(name)) return undefined;
    const key = name.toLowerCase();
    if (!PART_NAMES.has(key) || (parts as Record<string, string>)[key] !== undefined) return undefined;
    (parts as Record<string, string>)[key] = piece.slice(eq + 1).trim();
  }
  return parts;
}
