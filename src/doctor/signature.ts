import { createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULT_TOKEN, headerNames, stringToSign } from '../auth/signature.js';
import type { Hint } from './doctor.js';

/**
 * The signature doctor: for a refused signature it tries the mistakes clients are known to make (a fixed list of some
 * twenty HMACs) and names the one that gives exactly what was sent. A mistake is named only when the signature equals
 * an HMAC keyed with the secret (or what a client used in its place), which only a client that computed it can send:
 * a hint tells a client without the secret nothing. When none matches, it shows the string to sign.
 */

/** What was signed and with what: the request as the simulator saw it, and the secret it holds for the API user. */
export interface SignedRequest {
  secret: string;
  apiUser: string;
  /** The simulator's identifier token. */
  token: string;
  utctime: string;
  nonce: string;
  method: string;
  path: string;
  body: string;
}

/** The body is tried as part of what was signed only up to this many characters (it costs an HMAC over it). */
const BODY_TRIED_UP_TO = 8192;

const ALGORITHM_BY_BYTES: Record<number, string> = { 64: 'sha512', 48: 'sha384', 32: 'sha256', 20: 'sha1', 16: 'md5' };

/** One mistake: what was signed (`message`), or what it was keyed with (`key`), in place of the right one. */
interface Mistake extends Hint {
  message?: string;
  key?: string | Buffer;
}

/** The mistakes in the string signed, each with the string a client making it signs. */
function messageMistakes(r: SignedRequest): Mistake[] {
  const { token, utctime: time, nonce, path } = r;
  const right = stringToSign(time, nonce, token);
  const { utctime: timeName, nonce: nonceName } = headerNames(token);
  const title = (s: string) => s.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
  const out: Mistake[] = [
    {
      id: 'trailing-newline',
      text: 'the string signed ends with a line break: nothing may follow the nonce',
      message: `${right}\n`,
    },
    {
      id: 'trailing-crlf',
      text: 'the string signed ends with \\r\\n: nothing may follow the nonce',
      message: `${right}\r\n`,
    },
    {
      id: 'crlf',
      text: 'the two lines are joined with \\r\\n: join them with \\n alone',
      message: `${timeName}: ${time}\r\n${nonceName}: ${nonce}`,
    },
    {
      id: 'swapped-lines',
      text: `the two lines are swapped: the ${timeName} line comes first, then ${nonceName}`,
      message: `${nonceName}: ${nonce}\n${timeName}: ${time}`,
    },
    {
      id: 'header-case',
      text: `the header names were signed as ${title(timeName)}: sign them in lower case, ${timeName}`,
      message: `${title(timeName)}: ${time}\n${title(nonceName)}: ${nonce}`,
    },
    {
      id: 'header-case',
      text: `the header names were signed in capitals: sign them in lower case, ${timeName}`,
      message: right.replace(/x-[^:]+/g, (name) => name.toUpperCase()),
    },
    {
      id: 'no-space',
      text: 'no space after the colons: write one space after each',
      message: `${timeName}:${time}\n${nonceName}:${nonce}`,
    },
    {
      id: 'values-only',
      text: 'only the values were signed: sign the whole lines, header names included',
      message: `${time}\n${nonce}`,
    },
  ];
  if (time.length > 3) {
    const seconds = time.slice(0, -3);
    out.push({
      id: 'seconds',
      text: `the time signed is in seconds (${seconds}) while the header says milliseconds: sign the header's value exactly`,
      message: stringToSign(seconds, nonce, token),
    });
  }
  for (const other of otherTokens(r)) {
    out.push({
      id: 'other-token',
      text: `signed with the token ${other} (${headerNames(other).utctime}), but this simulator runs with ${token}: sign ${timeName} and ${nonceName}`,
      message: stringToSign(time, nonce, other),
    });
  }
  const signedAsWell = (what: string) => `${what} signed as well: sign only the two header lines`;
  out.push(
    { id: 'path-signed', text: signedAsWell('the method and path were'), message: `${r.method} ${path}\n${right}` },
    { id: 'path-signed', text: signedAsWell('the path was'), message: `${right}\n${path}` },
  );
  if (r.body !== '' && r.body.length <= BODY_TRIED_UP_TO) {
    out.push(
      { id: 'body-signed', text: signedAsWell('the body was'), message: `${right}\n${r.body}` },
      { id: 'body-signed', text: signedAsWell('the body was'), message: `${right}${r.body}` },
    );
  }
  return out;
}

/** Tokens a client may have signed with instead: the default one, and any its body names as `<token>User`. */
function otherTokens(r: SignedRequest): string[] {
  const found = new Set([DEFAULT_TOKEN]);
  for (const m of r.body.slice(0, BODY_TRIED_UP_TO).matchAll(/"([a-z][a-z0-9]{0,31})User"\s*:/g)) {
    found.add(m[1]);
    if (found.size > 3) break;
  }
  found.delete(r.token);
  return [...found];
}

/** The mistakes in the key: what a client keyed the HMAC with in place of the secret's UTF-8 bytes. */
function keyMistakes(r: SignedRequest): Mistake[] {
  const s = r.secret;
  const out: Mistake[] = [
    {
      id: 'keyed-with-api-user',
      text: "keyed with the API user id: key it with the API user's secret",
      key: r.apiUser,
    },
    { id: 'empty-secret', text: 'keyed with an empty secret: the client has no secret configured', key: '' },
    {
      id: 'secret-newline',
      text: 'keyed with the secret and a line break after it (as read from a file): drop the line break',
      key: `${s}\n`,
    },
  ];
  if (s.trim() !== s)
    out.push({
      id: 'secret-trimmed',
      text: 'keyed with the secret without its leading or trailing spaces: use the secret exactly as given',
      key: s.trim(),
    });
  const decoded = (how: string, key: Buffer) => ({
    id: 'secret-decoded',
    text: `keyed with ${how}: key it with the secret's UTF-8 text as it is`,
    key,
  });
  if (/^(?:[0-9a-f]{2})+$/i.test(s))
    out.push(decoded("the secret's hexadecimal decoded to bytes", Buffer.from(s, 'hex')));
  if (s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s))
    out.push(decoded('the secret decoded from Base64', Buffer.from(s, 'base64')));
  return out;
}

/** The digest a client sent, read as the bytes it stands for, in each encoding it could be in. */
function readings(sent: string): { bytes: Buffer; base64: boolean }[] {
  const out: { bytes: Buffer; base64: boolean }[] = [];
  if (/^(?:[0-9a-f]{2})+$/i.test(sent)) out.push({ bytes: Buffer.from(sent, 'hex'), base64: false });
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(sent) && sent.length >= 20)
    out.push({ bytes: Buffer.from(sent, /[-_]/.test(sent) ? 'base64url' : 'base64'), base64: true });
  return out.filter((x) => ALGORITHM_BY_BYTES[x.bytes.length] !== undefined);
}

/** The mistake that gives exactly `sent` (a signature the simulator refused), or undefined when none does. */
export function signatureMistake(r: SignedRequest, sent: string): Hint | undefined {
  const right = stringToSign(r.utctime, r.nonce, r.token);
  // The right string and key first: then only the algorithm or the encoding is wrong.
  const tries: Mistake[] = [{ id: '', text: '' }, ...messageMistakes(r), ...keyMistakes(r)];
  for (const { bytes, base64 } of readings(sent)) {
    const algorithm = ALGORITHM_BY_BYTES[bytes.length];
    const found = tries.find((m) => {
      const hmac = createHmac(algorithm, m.key ?? r.secret)
        .update(m.message ?? right)
        .digest();
      return hmac.length === bytes.length && timingSafeEqual(hmac, bytes);
    });
    if (!found) continue;
    const parts: Hint[] = [];
    if (algorithm !== 'sha512')
      parts.push({ id: algorithm, text: `signed with HMAC-${algorithm.toUpperCase()}: sign with HMAC-SHA512` });
    if (base64)
      parts.push({
        id: 'base64',
        text: 'the digest is written in Base64: write its bytes as hexadecimal, 128 characters',
      });
    if (found.id) parts.push({ id: found.id, text: found.text });
    // The right HMAC in the right encoding is never refused; this would be a bug of the simulator's.
    if (parts.length === 0) return undefined;
    return { id: parts.map((p) => p.id).join('+'), text: parts.map((p) => p.text).join('; ') };
  }
  return undefined;
}

/** The id of the hint that no known mistake matches (the hint shows the exact string expected). */
export const NO_KNOWN_MISTAKE = 'no-known-mistake';

/** The signing doctor's answer for -4037: the mistake made, or the exact string to sign (JSON-quoted, so \n shows). */
export function signatureHint(r: SignedRequest, sent: string): Hint {
  const right = stringToSign(r.utctime, r.nonce, r.token);
  // Refused only once the signing headers, the Authorization parts and the signature's form (128 hexadecimal
  // characters) passed their checks: with no common mistake in the string signed either, what is left is the key.
  return (
    signatureMistake(r, sent) ?? {
      id: NO_KNOWN_MISTAKE,
      text: `no common mistake matches; sign exactly ${JSON.stringify(right)} (${Buffer.byteLength(right)} bytes of UTF-8: one \\n between the lines, nothing after) with HMAC-SHA512 keyed with the API user's secret, as 128 hexadecimal characters. Everything else signed is as expected, so the secret most likely differs from API user ${r.apiUser}'s (or the client signs for another identifier token than ${r.token})`,
    }
  );
}
