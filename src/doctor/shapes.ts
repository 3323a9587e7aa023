import { authorizationValue } from '../auth/signature.js';
import { ENDPOINTS } from '../contract/envelope.js';
import { codeSpan } from '../output/markdown.js';
import type { Hint } from './doctor.js';

// Values of the wrong shape, and a client set up for another token: named from the value alone, with the fix.

const HEX_LENGTH_OF: Record<number, string> = { 32: 'HMAC-MD5', 40: 'HMAC-SHA1', 64: 'HMAC-SHA256', 96: 'HMAC-SHA384' };

/** A value as a hint quotes it: whole when short, else only its length, never in part. */
function quote(value: string): string {
  return value.length <= 40 && !/[\r\n]/.test(value) ? codeSpan(value) : `a value of ${value.length} characters`;
}

/** The signature part is not 128 hexadecimal characters (-4027): what it looks like instead. */
export function signatureShape(value: string): Hint | undefined {
  const v = value.trim();
  const pythonObject = /^<([\w.]{1,64}) object at 0x[0-9a-f]+>$/i.exec(v);
  if (pythonObject)
    return {
      id: 'object-text',
      text: `the signature is the text of a Python object (<${pythonObject[1]} object at 0x…>), not its digest: send hmac.new(secret, message, hashlib.sha512).hexdigest()`,
    };
  if (/^\[B@[0-9a-f]+$/i.test(v))
    return {
      id: 'object-text',
      text: 'the signature is the text of a Java byte array ([B@…), not its digest: write the bytes as hexadecimal (HexFormat.of().formatHex(bytes))',
    };
  if (/^(\[object \w+\]|System\.Byte\[\]|Array|Object|Resource id #\d+|[\w.$]+@[0-9a-f]{4,})$/.test(v))
    return {
      id: 'object-text',
      text: `the signature is the text of an object (${quote(v)}), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters`,
    };
  if (/^["'].*["']$/.test(v) && v.length > 2)
    return { id: 'quoted', text: 'the signature is in quotes: send the hexadecimal characters bare' };
  if (/^0x[0-9a-f]+$/i.test(v))
    return { id: 'hex-prefix', text: 'the signature starts with 0x: send the 128 hexadecimal characters alone' };
  if (/^[0-9a-f]{2}([:\s-][0-9a-f]{2})+$/i.test(v))
    return { id: 'separated-hex', text: 'the hexadecimal digits are separated: send the 128 digits together' };
  if (/^[0-9a-f]+$/i.test(v)) {
    const algorithm = HEX_LENGTH_OF[v.length];
    const length = algorithm
      ? `, the length of an ${algorithm}: sign with HMAC-SHA512, which is 128`
      : ': an HMAC-SHA512 is 128';
    return { id: 'digest-length', text: `${v.length} hexadecimal characters${length}` };
  }
  if (v.length === 128) {
    const at = v.search(/[^0-9a-f]/i);
    return { id: 'not-hex', text: `128 characters, but ${quote(v[at])} at position ${at + 1} is not hexadecimal` };
  }
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(v) && v.length % 4 === 0)
    return {
      id: 'base64',
      text: `Base64 of ${Buffer.from(v, 'base64').length} bytes: write the HMAC-SHA512's 64 bytes as 128 hexadecimal characters`,
    };
  return undefined;
}

/** The Authorization header does not parse (-4001): what it holds instead. */
export function authorizationShape(value: string, token: string): Hint | undefined {
  const v = value.trim();
  const expected = authorizationValue('<id>', '<hex>', token);
  if (/^[0-9a-f]{64,128}$/i.test(v))
    return { id: 'bare-signature', text: `the header holds only a signature: send ${expected}` };
  const otherToken = schemeToken(v, token);
  if (otherToken) return otherToken;
  const other = /^(Bearer|Basic|Digest|HMAC|Signature)\b/i.exec(v);
  if (other) return { id: 'other-scheme', text: `a ${other[1]} header: this service takes ${expected}` };
  return undefined;
}

/** `x-<token>-utctime` is not 1 to 16 digits (-4005): what kind of time it is instead. */
export function timeShape(value: string): Hint | undefined {
  const v = value.trim();
  if (/^\d{17,}$/.test(v))
    return {
      id: 'time-units',
      text: `${v.length} digits: send milliseconds since the epoch (13 digits today)${v.length >= 19 ? ', not nanoseconds' : ''}`,
    };
  if (/^\d+\.\d+$/.test(v))
    return { id: 'time-fraction', text: 'a number with a fraction: send whole milliseconds since the epoch' };
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(v))
    return { id: 'time-as-date', text: 'an ISO 8601 date: send milliseconds since the epoch' };
  if (/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} /.test(v))
    return { id: 'time-as-date', text: 'an HTTP date: send milliseconds since the epoch' };
  return undefined;
}

/** `x-<token>-cnonce` is not 8 to 128 letters, digits, `-` or `_` (-4007): what it is instead. */
export function nonceShape(value: string): Hint | undefined {
  const v = value.trim();
  if (/^\{[0-9a-f-]{36}\}$/i.test(v))
    return { id: 'nonce-braces', text: 'a UUID in braces: send the UUID without them' };
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(v) && /[+/=]/.test(v))
    return { id: 'nonce-base64', text: 'Base64 with + / or =: use Base64url without padding, or a UUID' };
  if (v.length < 8 && /^[\w-]+$/.test(v))
    return { id: 'nonce-short', text: `${v.length} characters: a nonce has at least 8 (a UUID is the usual choice)` };
  return undefined;
}

/** -4036: how far the client's clock is off and which way, or that the time is in other units. */
export function driftHint(time: number, now: number, maxDrift: number): Hint {
  const DAY = 86_400_000;
  if (Math.abs(time * 1000 - now) < DAY)
    return {
      id: 'time-in-seconds',
      text: 'the time is in seconds since the epoch: send milliseconds (seconds × 1000)',
    };
  if (Math.abs(time / 1000 - now) < DAY)
    return { id: 'time-in-microseconds', text: 'the time is in microseconds since the epoch: send milliseconds' };
  const drift = time - now;
  return {
    id: drift < 0 ? 'clock-behind' : 'clock-ahead',
    text: `the client's clock is ${Math.round(Math.abs(drift) / 1000)} s ${drift < 0 ? 'behind' : 'ahead of'} the server's, more than the ${Math.round(maxDrift / 1000)} s allowed: this answer's utctime is the server's time; keep the difference and add it to your clock when signing`,
  };
}

// A client configured for another identifier token.
const TOKEN = '[a-z][a-z0-9]{0,31}';
const PATH = new RegExp(`^/v1/(${TOKEN})/(${ENDPOINTS.join('|')})/?(?:[?#]|$)`);
const SCHEME = new RegExp(`^\\s*(${TOKEN})-hmac\\s*:`, 'i');
const ALGORITHM = new RegExp(`^(${TOKEN})-hmac512$`, 'i');
const SIGNED_HEADERS = new RegExp(`^x-(${TOKEN})-utctime;x-(${TOKEN})-cnonce$`, 'i');
const HEADER = new RegExp(`^x-(${TOKEN})-(?:utctime|cnonce|apiuser)$`);
const BODY_USER = new RegExp(`^(${TOKEN})User$`);

/** The hint that `where` uses the token `theirs` (when it is not ours), with the flag that serves such a client. */
function otherToken(where: string, theirs: string | undefined, ours: string): Hint | undefined {
  if (theirs === undefined || theirs === ours) return undefined;
  return {
    id: 'other-token',
    text: `${where} uses the token ${theirs}, but this simulator runs with the token ${ours}: start it with --token ${theirs} (scenario key \`token\`) for a client configured for ${theirs}`,
  };
}

/** A path not served (-404) that names an endpoint under another token: `/v1/<theirs>/time`. */
export function pathToken(path: string, ours: string): Hint | undefined {
  const m = PATH.exec(path);
  return m ? otherToken(`the path /v1/${m[1]}/${m[2]}`, m[1], ours) : undefined;
}

/** An Authorization value whose scheme is `<theirs>-hmac:` (-4001). */
function schemeToken(value: string, ours: string): Hint | undefined {
  return otherToken('the Authorization scheme', SCHEME.exec(value)?.[1].toLowerCase(), ours);
}

/** The algorithm part `<theirs>-hmac512` (-4031). */
export function algorithmToken(value: string, ours: string): Hint | undefined {
  return otherToken('the algorithm', ALGORITHM.exec(value)?.[1].toLowerCase(), ours);
}

/** The signedheaders part `x-<theirs>-utctime;x-<theirs>-cnonce` (-4033). */
export function signedHeadersToken(value: string, ours: string): Hint | undefined {
  const m = SIGNED_HEADERS.exec(value);
  const theirs = m && m[1].toLowerCase() === m[2].toLowerCase() ? m[1].toLowerCase() : undefined;
  return otherToken('signedheaders', theirs, ours);
}

/** A missing `x-<ours>-…` header (-4004, -4006, -4008) where the request has `x-<theirs>-utctime`, `-cnonce`... */
export function headerToken(headers: Record<string, unknown>, ours: string): Hint | undefined {
  for (const key of Object.keys(headers)) {
    const hint = otherToken(`the header ${key}`, HEADER.exec(key)?.[1], ours);
    if (hint) return hint;
  }
  return undefined;
}

/** A body without `<ours>User` (-5077) that has `<theirs>User`. */
export function bodyUserToken(body: Record<string, unknown>, ours: string): Hint | undefined {
  for (const key of Object.keys(body)) {
    const hint = otherToken(`the body's ${key}`, BODY_USER.exec(key)?.[1], ours);
    if (hint) return hint;
  }
  return undefined;
}
