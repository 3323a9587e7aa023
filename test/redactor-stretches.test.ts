import { describe, expect, it, vi } from 'vitest';
import { HIDDEN, Redactor } from '../src/observers/redactor.js';
import { escapedStretches, unescapeWithOrigins } from '../src/observers/unescape.js';

/**
 * The redactor decodes only the stretches of a text around its escapes. Property: on thousands of texts built from
 * pieces of secrets, their escaped forms (JSON, JSON5, URL), letters in the other case, broken escapes and backslash
 * runs, it hides exactly what decoding the whole text (and searching it in any case of its ASCII letters) would, with
 * few secrets (each searched on its own) and many (one pass over the text).
 */

/** A small seeded generator, so a failure names a text that can be made again. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** ASCII capitals made small, one character for one: a secret is found in any case of its ASCII letters. */
const lower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Hiding by decoding the whole text: the reference the windowed search must equal. */
function hideWhole(text: string, secrets: string[]): string {
  const spans: [number, number][] = [];
  const u = unescapeWithOrigins(text);
  const [plain, decoded] = [lower(text), lower(u.text)];
  for (const s of secrets.map(lower)) {
    for (let i = plain.indexOf(s); i >= 0; i = plain.indexOf(s, i + 1)) spans.push([i, i + s.length]);
    for (let i = decoded.indexOf(s); i >= 0; i = decoded.indexOf(s, i + 1))
      spans.push([u.from[i], u.to[i + s.length - 1]]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (let k = 0; k < spans.length;) {
    const start = spans[k][0];
    let end = spans[k++][1];
    while (k < spans.length && spans[k][0] < end) end = Math.max(end, spans[k++][1]);
    out += text.slice(at, Math.max(start, at)) + HIDDEN;
    at = Math.max(at, end);
  }
  return out + text.slice(at);
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** One character written in one of the forms a decoder reads, or plainly. */
function written(ch: string, pick: () => number): string {
  const cp = ch.codePointAt(0)!;
  const forms = [
    () => ch,
    () => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()),
    () => [...ch].map((_, i) => `\\u${hex(ch.charCodeAt(i), 4)}`).join(''),
    () => `\\u{${cp.toString(16)}}`,
    () => (cp < 0x100 ? `\\x${hex(cp, 2)}` : ch),
    () => `${'\\'.repeat(1 + Math.floor(pick() * 3))}${ch}`,
    () => encodeURIComponent(ch).replace(/^[^%]$/, (c) => `%${hex(c.charCodeAt(0), 2)}`),
  ];
  return forms[Math.floor(pick() * forms.length)]();
}

/** A text of secret pieces, some written escaped, among broken escapes and ordinary words. */
function textOf(secrets: string[], pick: () => number): string {
  const noise = ['%', '%C3', '%4', '\\', '\\u00', '\\u{', '\\x4', ' ', 'x', '-', '%%', '\\\\', '\\n', '"', '%41'];
  let out = '';
  const pieces = 1 + Math.floor(pick() * 8);
  for (let p = 0; p < pieces; p++) {
    if (pick() < 0.4) out += noise[Math.floor(pick() * noise.length)];
    const s = [...secrets[Math.floor(pick() * secrets.length)]];
    const from = pick() < 0.6 ? 0 : Math.floor(pick() * s.length);
    const to = pick() < 0.6 ? s.length : from + Math.floor(pick() * (s.length - from + 1));
    const escapeShare = pick();
    for (const ch of s.slice(from, to)) out += pick() < escapeShare ? written(ch, pick) : ch;
  }
  return out;
}

describe('hiding decodes only the stretches around escapes, and finds what decoding the whole text finds', () => {
  const few = ['Signing-Secret-Zr4', 'Mixed-é-€-😀-©', 'abcd', 'Overlap-Key', 'Overlap-Key-Longer'];
  const many = [...few, ...Array.from({ length: 20 }, (_, i) => `bench-secret-${i}`)];

  it.each([
    ['few secrets, each searched on its own', few, 1],
    ['many secrets, one pass over the text', many, 2],
  ])('%s: 4,000 generated texts', (_, secrets, seed) => {
    const redactor = new Redactor();
    redactor.set(secrets);
    const pick = random(seed);
    for (let n = 0; n < 4000; n++) {
      const text = textOf(secrets, pick);
      expect(redactor.hide(text), JSON.stringify(text)).toBe(hideWhole(text, secrets));
    }
  });

  it('a stretch reaches one character short of the longest secret on each side of an escape, and joins its neighbour', () => {
    expect(escapedStretches('plain text, no escape', 5)).toEqual([]);
    expect(escapedStretches('0123456789\\u0041abcdefghij', 5)).toEqual([[6, 20]]);
    expect(escapedStretches('0123456789%41abcdefghij', 3)).toEqual([[8, 15]]);
    // Two escapes closer than twice the reach make one stretch; farther apart, two.
    expect(escapedStretches('\\x41123456\\x42', 4)).toEqual([[0, 14]]);
    expect(escapedStretches('\\x411234567890\\x42', 4)).toEqual([
      [0, 7],
      [11, 18],
    ]);
    // A percent sign that decodes to nothing is a plain character: no stretch of its own.
    expect(escapedStretches('100% sure, %zz', 8)).toEqual([]);
  });

  it('a stretch whose escapes stand beside no character they stand beside in a secret is left out', () => {
    // Pairs of characters some secret holds, as the redactor gives them: here only "cn", "nx", "ab" and "b\\".
    const pairs = new Set(['cn', 'nx', 'ab', 'b\\']);
    const adjacent = (a: number, b: number) => pairs.has(String.fromCharCode(a, b));
    const none = () => false;
    // The escape \n decodes to n: kept when a secret holds the character before it then n, or n then the one after.
    expect(escapedStretches('abc\\nqqqq', 3, adjacent)).toEqual([[1, 7]]);
    expect(escapedStretches('abq\\nxqqq', 3, adjacent)).toEqual([[1, 7]]);
    expect(escapedStretches('abq\\nqqqq', 3, adjacent)).toEqual([]);
    expect(escapedStretches('abc\\nxqqq', 3, none)).toEqual([]);
    // A percent escape is read as the backslash ones are: %6E is n.
    expect(escapedStretches('qqc%6Eqq', 2, adjacent)).toEqual([[2, 7]]);
    expect(escapedStretches('qqq%6Eqq', 2, adjacent)).toEqual([]);
    // At the start of the text no character stands before an escape; a NUL or any other one does.
    const edges = new Set(['\u0001n', '\uffffn', '\u0000n']);
    const atEdges = (a: number, b: number) => edges.has(String.fromCharCode(a, b));
    expect(escapedStretches('\\nq', 2, atEdges)).toEqual([]);
    expect(escapedStretches('\u0000\\nq', 2, atEdges)).toEqual([[0, 4]]);
    // Unsure counts as kept: another escape right after (its character is not read yet), or two characters in one.
    expect(escapedStretches('qq\\nq%71q', 2, none)).toEqual([]);
    expect(escapedStretches('qq\\n%71qq', 2, none)).toEqual([[1, 8]]);
    expect(escapedStretches('qq\\n\\qqq', 2, none)).toEqual([[1, 7]]);
    expect(escapedStretches('q\\u{1F511}q', 2, none)).toEqual([[0, 11]]);
    // A backslash run at the very end stands for a backslash: "b\\" is a pair of a secret.
    expect(escapedStretches('qqab\\\\', 2, adjacent)).toEqual([[3, 6]]);
    expect(escapedStretches('qqaq\\\\', 2, adjacent)).toEqual([]);
    // A stretch left out before one kept, apart from it, is not in the list either.
    expect(escapedStretches('qq\\nqqqqqqqqc\\nqq', 2, adjacent)).toEqual([[12, 16]]);
    // Joined stretches are kept whole when any escape in them is kept, exactly as without the test.
    expect(escapedStretches('qq\\nqq\\nxq', 3, adjacent)).toEqual(escapedStretches('qq\\nqq\\nxq', 3));
    expect(escapedStretches('qq\\nqq\\nxq', 3, adjacent)).toHaveLength(1);
  });

  it('a secret written with one escape at its very first or last character is hidden, whole', () => {
    const redactor = new Redactor();
    redactor.set(['Kq7-secret-Zz']);
    expect(redactor.hide('say \\u004bq7-secret-Zz now')).toBe(`say ${HIDDEN} now`);
    expect(redactor.hide('say Kq7-secret-Z%7A now')).toBe(`say ${HIDDEN} now`);
    expect(redactor.hide('say Kq7-secret-Z\\\\\\z now')).toBe(`say ${HIDDEN} now`);
  });
});

describe('with many secrets the search skips ahead, and never past a secret', () => {
  // Each crafted secret has, among its first four characters, a pair another one has at another place: how far the
  // search may skip on a pair is the least any secret allows, whichever secret comes last in the list.
  const crafted = [
    'abxy-first-secret',
    'xyab-second-secret',
    'bxya-third-secret',
    'yabx-fourth-secret',
    'aaaa-fifth-secret',
    'ŁŁŁŁ-wide-secret',
  ];
  const fillers = Array.from({ length: 20 }, (_, i) => `filler-${i}-Secret-Qz`);

  for (const [order, list] of [
    ['crafted first', [...crafted, ...fillers]],
    ['crafted last, reversed', [...fillers, ...[...crafted].reverse()]],
  ] as const) {
    it(`finds each secret at every alignment (${order})`, () => {
      const redactor = new Redactor();
      redactor.set(list);
      for (const secret of [...crafted, fillers[7]]) {
        for (let pad = 0; pad < 6; pad++) {
          // Text before it that shares its pairs too, so that the search's steps land at every place in turn.
          const before = 'xyabxyab'.slice(0, pad);
          expect(redactor.hide(`${before}${secret}`), `${secret} after ${pad}`).toBe(`${before}${HIDDEN}`);
          expect(redactor.hide(`${before}${secret}!${before}`), `${secret} inside, after ${pad}`).toBe(
            `${before}${HIDDEN}!${before}`,
          );
        }
      }
      // A character whose low byte is a secret's (A and Ł share 0x41) is only a place to look, never a match.
      expect(redactor.hide('AAAA-wide-secret')).toBe('AAAA-wide-secret');
      expect(redactor.hide('no secret here at all, only words')).toBe('no secret here at all, only words');
    });
  }
});

describe('a secret with a character outside the Basic Multilingual Plane (two UTF-16 units), written escaped', () => {
  // One escape stands for two code units: each must be traced back to the escape, so exactly the secret is hidden.
  // Inside, at the end, and right after the first character: each end of a secret must map back exactly.
  const secrets = ['key-\u{1F511}-Vq7', 'Zq-end-\u{1F511}', 'W\u{1F511}-tail-9'];
  for (const [form, many] of [
    ['key-\\u{1F511}-Vq7', false],
    ['key-\\uD83D\\uDD11-Vq7', false],
    ['key-%F0%9F%94%91-Vq7', false],
    ['key-\\u{1F511}-Vq7', true],
    ['Zq-end-\\u{1F511}', false],
    ['Zq-end-%F0%9F%94%91', true],
    ['W\\u{1F511}-tail-9', false],
    ['W\\uD83D\\uDD11-tail-9', true],
  ] as const) {
    it(`${form}${many ? ', many secrets' : ''}: hidden whole, the text around it kept`, () => {
      const redactor = new Redactor();
      redactor.set([...secrets, ...(many ? Array.from({ length: 20 }, (_, i) => `other-${i}-Secret`) : [])]);
      expect(redactor.hide(`before \\n ${form} after`)).toBe(`before \\n ${HIDDEN} after`);
      expect(redactor.hide(`${form}${form}`)).toBe(`${HIDDEN}${HIDDEN}`);
    });
  }
});

describe('a part searched within the whole it ends (a message and its hint) is hidden as if searched alone', () => {
  const secrets = [
    'Signing-Secret-Zr4',
    'abcd',
    '41ZqB',
    '1}ZqB',
    ...Array.from({ length: 20 }, (_, i) => `bench-secret-${i}`),
  ];

  it('4,000 generated texts, each cut at every place: the part hides as a search of it alone does', () => {
    const pick = random(3);
    for (let n = 0; n < 4000; n++) {
      const text = textOf(secrets, pick);
      const cut = Math.floor(pick() * text.length);
      const part = text.slice(cut);
      // A fresh redactor each time: what one whole remembered must not answer for another.
      const redactor = new Redactor();
      redactor.set(secrets);
      expect(redactor.hideEndingWith(text, part), JSON.stringify(text)).toBe(hideWhole(text, secrets));
      expect(redactor.hide(part), `${JSON.stringify(text)} from ${cut}`).toBe(hideWhole(part, secrets));
    }
  });

  it('a part that starts inside an escape of the whole is searched on its own, where it reads otherwise', () => {
    const redactor = new Redactor();
    redactor.set(secrets);
    const padding = 'x'.repeat(70);
    // In the whole, %41Zq%42 reads "AZqB"; the part alone reads "41ZqB", a secret.
    const whole1 = `${padding}%41Zq%42${padding}`;
    expect(redactor.hideEndingWith(whole1, whole1.slice(71))).toBe(whole1);
    expect(redactor.hide(whole1.slice(71))).toBe(`${HIDDEN}${padding}`);
    // In the whole, \u{41}Zq\x42 reads "AZqB"; the part alone reads "1}ZqB", a secret.
    const whole2 = `${padding}\\u{41}Zq\\x42${padding}`;
    expect(redactor.hideEndingWith(whole2, whole2.slice(74))).toBe(whole2);
    expect(redactor.hide(whole2.slice(74))).toBe(`${HIDDEN}${padding}`);
  });

  it("a refusal's hint is searched once when its message holds no secret, and is hidden when the message holds one", () => {
    const redactor = new Redactor();
    redactor.set(secrets);
    const hint = `no common mistake matches; sign exactly ${JSON.stringify('x-svc-utctime: 1\nx-svc-cnonce: abc')} with HMAC-SHA512`;
    const message = `Signature error. Hint: ${hint}`;
    expect(redactor.hideEndingWith(message, hint)).toBe(message);
    const searched = vi.spyOn(redactor as unknown as { hideNow: (t: string) => string }, 'hideNow');
    expect(redactor.hide(hint)).toBe(hint);
    expect(searched).not.toHaveBeenCalled();
    const leaking = `sign exactly ${JSON.stringify('x-svc-utctime: 1\nx-svc-cnonce: bench-secret-7')} with HMAC-SHA512, and more`;
    // A text that is not the message's end is never taken for clean because the message is.
    expect(redactor.hideEndingWith(message, leaking)).toBe(message);
    expect(redactor.hide(leaking)).not.toContain('bench-secret-7');
    expect(redactor.hideEndingWith(`Signature error. Hint: ${leaking}`, leaking)).toContain(HIDDEN);
    expect(redactor.hide(leaking)).toContain(HIDDEN);
    expect(redactor.hide(leaking)).not.toContain('bench-secret-7');
  });
});

describe('a text shorter than the shortest secret holds none', () => {
  it('is shown as it is; one as long as the shortest secret is searched, plain and escaped', () => {
    for (const many of [false, true]) {
      const redactor = new Redactor();
      const others = many ? Array.from({ length: 20 }, (_, i) => `other-secret-number-${i}`) : [];
      redactor.set(['Qz7-short', ...others]);
      expect(redactor.hide('Qz7-shor')).toBe('Qz7-shor');
      expect(redactor.hide('Qz7-short')).toBe(HIDDEN);
      expect(redactor.hide('Qz7\\-short')).toBe(HIDDEN);
      expect(redactor.hide('Qz7%2Dshort')).toBe(HIDDEN);
    }
    // No secret at all: nothing is searched, whatever the text.
    expect(new Redactor().hide('Qz7-short')).toBe('Qz7-short');
  });
});
