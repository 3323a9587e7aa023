/**
 * Globs for scenario values (account e-mails, `when.svcUser`, `when.headers`): `*` any run of characters, `?` one
 * character (one code point), everything else itself; case-insensitive (both sides lower-cased), the whole value must
 * match. Rules are matched before a request is authenticated, so a match never backtracks: the pattern is cut at
 * its stars and each piece is found leftmost in turn, at most (value length) × (pattern length) comparisons whatever
 * the two hold (`*a*a*a*a*b` against a megabyte of `a` included).
 */

/** A glob (or an exact value) is at most this many characters. */
export const MAX_GLOB_LENGTH = 256;

/** Counts a match's character comparisons, for the tests that show its cost is linear in the value (not seconds). */
export interface StepCounter {
  steps: number;
}

/** Whether a string holds glob syntax (and is matched as a glob rather than exactly). */
export function isGlob(s: string): boolean {
  return /[*?]/.test(s);
}

/** A case-insensitive matcher of a value that is exact or a glob (`*`, `?`). */
export function valueMatcher(pattern: string): (value: string, counter?: StepCounter) => boolean {
  const want = pattern.toLowerCase();
  if (!isGlob(pattern)) return (value: string) => value.toLowerCase() === want;
  const [first, ...rest] = want.split('*').map((piece) => [...piece]);
  const last = rest.pop();
  return (text, counter = { steps: 0 }) => {
    const value = [...text.toLowerCase()];
    if (last === undefined) return value.length === first.length && pieceAt(value, 0, first, counter);
    if (value.length < first.length + last.length || !pieceAt(value, 0, first, counter)) return false;
    const end = value.length - last.length;
    if (!pieceAt(value, end, last, counter)) return false;
    let from = first.length;
    for (const piece of rest) {
      while (from + piece.length <= end && !pieceAt(value, from, piece, counter)) from++;
      if (from + piece.length > end) return false;
      from += piece.length;
    }
    return true;
  };
}

/**
 * Whether `piece` (code points, `?` for any one) stands in `value` at `at`, compared from its last character: a value
 * whose literal end differs is ruled out by its first comparison.
 */
function pieceAt(value: string[], at: number, piece: string[], counter: StepCounter): boolean {
  for (let i = piece.length - 1; i >= 0; i--) {
    counter.steps++;
    if (piece[i] !== '?' && piece[i] !== value[at + i]) return false;
  }
  return true;
}
