import { describe, expect, it } from 'vitest';
import { HIDDEN, Redactor } from '../../src/output/redactor.js';
import { unescapeWithOrigins } from '../../src/output/redactor.js';

/**
 * Property: on thousands of texts built from pieces of secrets, their escaped forms (JSON, JSON5, URL), letters in the
 * other case, broken escapes and backslash runs, the redactor hides exactly what a reference that decodes the whole
 * text and searches it in any case of its ASCII letters would, with few secrets and many.
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

describe('hiding finds what decoding the whole text finds', () => {
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

  it('a secret written with one escape at its very first or last character is hidden, whole', () => {
    const redactor = new Redactor();
    redactor.set(['Kq7-secret-Zz']);
    expect(redactor.hide('say \\u004bq7-secret-Zz now')).toBe(`say ${HIDDEN} now`);
    expect(redactor.hide('say Kq7-secret-Z%7A now')).toBe(`say ${HIDDEN} now`);
    expect(redactor.hide('say Kq7-secret-Z\\\\\\z now')).toBe(`say ${HIDDEN} now`);
  });
});

describe('with many secrets, each is found at every alignment', () => {
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
