import { describe, expect, it } from 'vitest';
import { send, simulator } from '../helpers.js';

/**
 * Class: a secret written in a form a decoder reads (JSON and JSON5 escapes, URL percent-encoding of UTF-8), at the
 * edges of each form. What the journal keeps is checked word for word: the secret, and only the secret, becomes
 * `[secret]`; a form that decodes to something else (a broken escape, bytes that are not UTF-8) is kept as sent.
 */

// One, two, three and four bytes of UTF-8 in one secret, so percent-encoding it uses every lead byte range, with
// the first and last lead bytes of each (C2 ©, DF ߿, E0 ก, EF ﬀ, F0 😀, F4 U+10FFFF) and the lowest and highest
// continuation bytes (À is C3 80, ¿ is C2 BF).
const MIXED = 'Mixed-é-€-😀-Kq7-©߿กﬀ\u{10FFFF}À¿';
const PREFIX = 'Overlap-Key-Abc';
const LONGER = 'Overlap-Key-Abc-Longer';

describe('secrets written in every form, at the edges of each', async () => {
  const as = { apiUser: '500000001', secret: 'Signing-Secret-Zr4' };
  const sim = await simulator({
    apiUsers: [
      { id: as.apiUser, secret: as.secret },
      { id: '500000002', secret: MIXED },
      { id: '500000003', secret: PREFIX },
      { id: '500000004', secret: LONGER },
    ],
  });

  /** The body as the journal keeps it, sent to /v1/svc/time (which reads no body but keeps it). */
  const kept = async (body: string): Promise<string> => {
    const r = await send(sim, '/v1/svc/time', { body, as });
    expect(r.json.code, r.text).toBe(15000);
    return sim.journal()[0].request.body;
  };
  const codePoints = (s: string, f: (cp: number) => string) => [...s].map((c) => f(c.codePointAt(0)!)).join('');

  it.each([
    ['plain', MIXED],
    ['percent-encoded UTF-8 (1 to 4 bytes a character)', encodeURIComponent(MIXED)],
    [
      'percent-encoded, every character',
      codePoints(MIXED, (cp) =>
        encodeURIComponent(String.fromCodePoint(cp)).replace(/^[^%]$/, (c) => `%${c.charCodeAt(0).toString(16)}`),
      ),
    ],
    [
      'percent-encoded, hex digits in lower case',
      encodeURIComponent(MIXED).replace(/%[0-9A-F]{2}/g, (byte) => byte.toLowerCase()),
    ],
    ['\\u{...} code points', codePoints(MIXED, (cp) => `\\u{${cp.toString(16)}}`)],
    ['\\u{...} with leading zeros', codePoints(MIXED, (cp) => `\\u{${cp.toString(16).padStart(6, '0')}}`)],
    [
      '\\uXXXX (surrogate pairs for the emoji)',
      MIXED.split('')
        .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
        .join(''),
    ],
    ['\\xXX for the ASCII letters', MIXED.replace(/[A-Za-z]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`)],
    ['backslash before each ASCII character', MIXED.replace(/[A-Za-z0-9-]/g, (c) => `\\${c}`)],
  ])('%s: exactly the secret is hidden, at the start, in the middle and at the very end', async (_, form) => {
    expect(await kept(`${form} then ${form} and ${form}`)).toBe('[secret] then [secret] and [secret]');
  });

  it.each([
    ['a percent lead byte without its continuation', '%C3%41'],
    ['an overlong encoding', '%C0%80'],
    ['a lead byte past Unicode', '%F5%80%80%80'],
    ['a continuation byte alone', '%80'],
    ['a percent sign at the end', '%'],
    ['a percent sign with one hex digit at the end', '%4'],
    ['\\u{} empty', '\\u{}'],
    ['\\u{} past Unicode', '\\u{110000}'],
    ['\\u{ never closed', '\\u{4d'],
    ['\\u with three hex digits at the end', '\\u004'],
    ['\\x with one hex digit at the end', '\\x4'],
    ['a backslash at the end', '\\'],
  ])('%s right after a secret is kept as sent, and the secret before it hidden', async (_, broken) => {
    expect(await kept(`${MIXED}${broken}`)).toBe(`[secret]${broken}`);
    expect(await kept(`x ${encodeURIComponent(MIXED)} ${broken}`)).toBe(`x [secret] ${broken}`);
  });

  it('a broken form that would decode into the secret is not read as the secret', async () => {
    // %C3 followed by a non-continuation byte is not é: the text around it is not the secret.
    const broken = encodeURIComponent(MIXED).replace('%C3%A9', '%C3%41');
    expect(await kept(broken)).toBe(broken);
    const outOfRange = codePoints(MIXED, (cp) => `\\u{${cp.toString(16)}}`).replace('\\u{4d}', '\\u{110000}');
    expect(await kept(outOfRange)).toBe(outOfRange);
  });

  it('secrets that overlap, or one inside another, become one [secret] each run', async () => {
    expect(await kept(`a ${LONGER} b`)).toBe('a [secret] b');
    expect(await kept(`a ${PREFIX} b`)).toBe('a [secret] b');
    expect(await kept(`a ${PREFIX}${PREFIX} b`)).toBe('a [secret][secret] b');
    // The longer secret starts inside the shorter one's run: the two spans overlap and are hidden as one.
    expect(await kept(`a Overlap-Key-${LONGER} b`)).toBe('a Overlap-Key-[secret] b');
    expect(await kept(`a ${LONGER.replace(/-/g, '\\u002d')} and ${PREFIX} b`)).toBe('a [secret] and [secret] b');
  });

  it('a text shorter than any secret, or with none, is kept whole', async () => {
    for (const text of ['', 'abc', 'Overlap-Key-Ab', 'Mixed-é-€-😀-Kq', '%4D%69%78%65%64'])
      expect(await kept(text)).toBe(text);
  });
});
