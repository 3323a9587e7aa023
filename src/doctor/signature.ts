import { createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULT_TOKEN, headerNames, stringToSign } from '../auth/signature.js';
import { shownExactly, type Hint } from './hint.js';

/**
 * The signature doctor: given a signature the simulator refused (-4037, or -4027 for one of the wrong shape), it
 * tries the mistakes clients are known to make against the secret it holds and names the one that gives exactly
 * what the client sent. Only on the failure path, at a bounded cost (a fixed list of some twenty HMACs over the
 * headers, and over the body only when it is small).
 *
 * What a hint can tell a client that does not know the secret: nothing. A mistake is named only when the client's
 * signature equals an HMAC of the secret (or of what the client used in its place), which only a client that
 * computed it can send; when none matches, the hint shows the string to sign, made from the request's own headers.
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

type Algorithm = 'sha512' | 'sha384' | 'sha256' | 'sha1' | 'md5';
const ALGORITHM_BY_BYTES: Record<number, Algorithm> = {
  64: 'sha512',
  48: 'sha384',
  32: 'sha256',
  20: 'sha1',
  16: 'md5',
};
const ALGORITHM_NAME: Record<Algorithm, string> = {
  sha512: 'HMAC-SHA512',
  sha384: 'HMAC-SHA384',
  sha256: 'HMAC-SHA256',
  sha1: 'HMAC-SHA1',
  md5: 'HMAC-MD5',
};

/** One mistake: what was signed, or what it was keyed with, in place of the right one. */
interface Mistake {
  id: string;
  text: string;
  message?: string;
  key?: string | Buffer;
}

/** The mistakes in the string signed, each with the string a client making it signs. */
function messageMistakes(r: SignedRequest): Mistake[] {
  const { token: t, utctime: time, nonce } = r;
  const right = stringToSign(time, nonce, t);
  const { utctime: timeName, nonce: nonceName } = headerNames(t);
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
      message: stringToSign(seconds, nonce, t),
    });
  }
  for (const other of otherTokens(r)) {
    out.push({
      id: 'other-token',
      text: `signed with the token ${other} (${headerNames(other).utctime}), but this simulator runs with ${t}: sign ${timeName} and ${nonceName}`,
      message: stringToSign(time, nonce, other),
    });
  }
  const path = r.path;
  out.push(
    {
      id: 'path-signed',
      text: 'the method and path were signed as well: sign only the two header lines',
      message: `${r.method} ${path}\n${right}`,
    },
    {
      id: 'path-signed',
      text: 'the path was signed as well: sign only the two header lines',
      message: `${right}\n${path}`,
    },
  );
  if (r.body !== '' && r.body.length <= BODY_TRIED_UP_TO) {
    out.push(
      {
        id: 'body-signed',
        text: 'the body was signed as well: sign only the two header lines',
        message: `${right}\n${r.body}`,
      },
      {
        id: 'body-signed',
        text: 'the body was signed as well: sign only the two header lines',
        message: `${right}${r.body}`,
      },
    );
  }
  return out;
}

/**
 * Tokens a client may have signed with in place of the simulator's: the default one, and any the request itself
 * names in its body's `<token>User` key (a client configured for another token writes it there too).
 */
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
  if (/^(?:[0-9a-f]{2})+$/i.test(s))
    out.push({
      id: 'secret-decoded',
      text: "keyed with the secret's hexadecimal decoded to bytes: key it with the secret's UTF-8 text as it is",
      key: Buffer.from(s, 'hex'),
    });
  if (s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s))
    out.push({
      id: 'secret-decoded',
      text: "keyed with the secret decoded from Base64: key it with the secret's UTF-8 text as it is",
      key: Buffer.from(s, 'base64'),
    });
  return out;
}

/** The digest a client sent, read as the bytes it stands for, in each encoding it could be in. */
function readings(sent: string): { bytes: Buffer; base64: boolean }[] {
  const out: { bytes: Buffer; base64: boolean }[] = [];
  if (/^(?:[0-9a-f]{2})+$/i.test(sent)) out.push({ bytes: Buffer.from(sent, 'hex'), base64: false });
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(sent) && sent.length >= 20) {
    const bytes = Buffer.from(sent, /[-_]/.test(sent) ? 'base64url' : 'base64');
    if (ALGORITHM_BY_BYTES[bytes.length]) out.push({ bytes, base64: true });
  }
  return out.filter((x) => ALGORITHM_BY_BYTES[x.bytes.length] !== undefined);
}

function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The mistake that gives exactly `sent` (a signature the simulator refused), or undefined when none does. */
export function signatureMistake(r: SignedRequest, sent: string): Hint | undefined {
  const right = stringToSign(r.utctime, r.nonce, r.token);
  for (const { bytes, base64 } of readings(sent)) {
    const algorithm = ALGORITHM_BY_BYTES[bytes.length];
    const hmac = (key: string | Buffer, message: string) => createHmac(algorithm, key).update(message).digest();
    const found =
      (same(hmac(r.secret, right), bytes) ? { id: '', text: '' } : undefined) ??
      messageMistakes(r).find((m) => same(hmac(r.secret, m.message!), bytes)) ??
      keyMistakes(r).find((m) => same(hmac(m.key!, right), bytes));
    if (!found) continue;
    const parts: Hint[] = [];
    if (algorithm !== 'sha512')
      parts.push({ id: algorithm, text: `signed with ${ALGORITHM_NAME[algorithm]}: sign with HMAC-SHA512` });
    if (base64)
      parts.push({
        id: 'base64',
        text: 'the digest is written in Base64: write its bytes as hexadecimal, 128 characters',
      });
    if (found.id) parts.push(found);
    // The right HMAC in the right encoding is never refused; this would be a bug of the simulator's.
    if (parts.length === 0) return undefined;
    return { id: parts.map((p) => p.id).join('+'), text: parts.map((p) => p.text).join('; ') };
  }
  return undefined;
}

/** The id of the hint that no known mistake matches (the hint shows the exact string expected). */
export const NO_KNOWN_MISTAKE = 'no-known-mistake';

/** -4037 with no known mistake: the exact string expected and its bytes, made from the request's own headers. */
function expectedSigning(r: SignedRequest): Hint {
  const right = stringToSign(r.utctime, r.nonce, r.token);
  return {
    id: NO_KNOWN_MISTAKE,
    text: `no common mistake matches; sign exactly ${shownExactly(right)} (${Buffer.byteLength(right)} bytes of UTF-8: one \\n between the lines, nothing after) with HMAC-SHA512 keyed with the API user's secret, as 128 hexadecimal characters`,
  };
}

/** The signing doctor's answer for -4037: the mistake made, or what to sign. */
export function signatureHint(r: SignedRequest, sent: string): Hint {
  return signatureMistake(r, sent) ?? expectedSigning(r);
}
