/**
 * Case-insensitive comparison of scenario values (account e-mails, `when.svcUser`, `when.headers`, a challenge's
 * user): one folding for exact values and globs alike, so that whatever a scenario writes, the same value written
 * the same way always matches it.
 *
 * `toLowerCase` on a whole string is not that folding: it turns `İ` into two characters (`i` and a combining dot),
 * which a glob's `?` or a literal then sees as two, and it lowers `Σ` to `σ` or `ς` depending on the letters around
 * it. Here each character is folded on its own to exactly one character (upper case, then lower case, so that `ς`,
 * `σ` and `Σ` are one letter, as are `ß` and `ẞ`); a character whose case mapping is more than one character (`İ`,
 * `ß` in upper case) stays as it is. The result is Unicode's simple case folding, the one a JavaScript regular
 * expression with the `i` and `u` flags compares by (checked over every code point).
 */

/** The dotless ı: its upper case is I, whose lower case is i, yet simple case folding keeps it a letter of its own. */
const DOTLESS_I = '\u0131';

const ASCII = /^[\x00-\x7f]*$/;

/** The text with each character folded to its one-character lower case. */
export function foldCase(text: string): string {
  // ASCII, nearly every value: the engine's own lower-casing is the same folding, and much faster.
  if (ASCII.test(text)) return text.toLowerCase();
  let out = '';
  for (const ch of text) out += foldChar(ch);
  return out;
}

/** One character (one code point) folded; always one code point. */
export function foldChar(ch: string): string {
  if (ch === DOTLESS_I) return ch;
  const upper = ch.toUpperCase();
  const base = isOneCodePoint(upper) ? upper : ch;
  const lower = base.toLowerCase();
  return isOneCodePoint(lower) ? lower : base;
}

function isOneCodePoint(s: string): boolean {
  return s.length === 1 || (s.length === 2 && s.codePointAt(0)! > 0xffff);
}
