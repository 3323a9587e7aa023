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

/** The capital İ: lowered it becomes two characters; folded it stays itself. */
const DOTTED_CAPITAL_I = '\u0130';

/**
 * The characters whose lower case is not their folding (besides İ): variants of a letter that lowering keeps
 * (µ, ſ, ς, ϐ, ...) and whose folding is the letter's ordinary small form. Every other character of a text lowered
 * as a whole is folded already, the final ς that lowering makes of Σ included: the test walks every code point.
 */
const LOWER_NOT_FOLDED =
  '\u00b5\u017f\u0345\u03c2\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u1c80\u1c81\u1c82\u1c83\u1c84\u1c85\u1c86\u1c87\u1c88\u1e9b\u1fbe';
// Each code point of the class stands alone: U+0345, a combining mark, is a lower-case letter that folds of its own.
// eslint-disable-next-line no-misleading-character-class
const HOLDS_LOWER_NOT_FOLDED = new RegExp(`[${LOWER_NOT_FOLDED}]`);
const FOLDED_FROM_LOWER = [...LOWER_NOT_FOLDED].map((ch) => [ch, foldChar(ch)] as const);

/**
 * The text with each character folded to its one-character lower case: the engine's own lowering of the whole text,
 * mended where it is not the folding. Each step is a native pass over the text, so its cost stays linear and small
 * whatever the text holds (a header of 16 KiB tried against a hundred rules, each of its bytes a µ, included).
 */
export function foldCase(text: string): string {
  let lower = text.toLowerCase();
  if (lower.length !== text.length) lower = keepCapitalDottedI(text, lower);
  if (!HOLDS_LOWER_NOT_FOLDED.test(lower)) return lower;
  for (const [ch, folded] of FOLDED_FROM_LOWER) if (lower.includes(ch)) lower = lower.replaceAll(ch, folded);
  return lower;
}

/**
 * The lowered text with each İ put back: lowering made it two characters (i and a combining dot), and it is the
 * only character lowering lengthens, so the lowered text is the original's with one more unit after each İ.
 */
function keepCapitalDottedI(text: string, lower: string): string {
  let out = '';
  let from = 0;
  let shift = 0;
  for (let i = text.indexOf(DOTTED_CAPITAL_I); i >= 0; i = text.indexOf(DOTTED_CAPITAL_I, i + 1)) {
    out += lower.slice(from + shift, i + shift) + DOTTED_CAPITAL_I;
    shift++;
    from = i + 1;
  }
  return out + lower.slice(from + shift);
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
