/** The parts of an Authorization value, as sent; a part absent from the header is undefined. */
export interface AuthorizationParts {
  apiuser?: string;
  signedheaders?: string;
  algorithm?: string;
  signature?: string;
}

const PART_NAMES = new Set(['apiuser', 'signedheaders', 'algorithm', 'signature']);
const PART = /^\s*([A-Za-z]+)\s*=\s*(.*?)\s*$/;

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
    const m = PART.exec(piece);
    if (!m) return undefined;
    const key = m[1].toLowerCase();
    if (!PART_NAMES.has(key) || (parts as Record<string, string>)[key] !== undefined) return undefined;
    (parts as Record<string, string>)[key] = m[2];
  }
  return parts;
}
