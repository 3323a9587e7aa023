/**
 * Globs for scenario values (account e-mails, `when.svcUser`, `when.headers`): `*` any run of characters, `?` one
 * character (one code point), `\x` the character x itself (so a recorded e-mail holding `*` stays exact), everything
 * else itself; case-insensitive (both sides lower-cased), the whole value must match. Rules are matched before a
 * request is authenticated, so a match never backtracks: the pattern is cut at its stars and each piece is found
 * leftmost in turn, at most (value length) × (pattern length) comparisons whatever the two hold (`*a*a*a*a*b` against
 * a megabyte of `a` included).
 */

/** A glob (or an exact value) is at most this many characters. */
export const MAX_GLOB_LENGTH = 256;

/** Counts a match's character comparisons, for the tests that show its cost is linear in the value (not seconds). */
export interface StepCounter {
  steps: number;
}

/** A piece between stars: its characters, `undefined` where a `?` takes any one. */
type Piece = (string | undefined)[];

/** The pieces between the pattern's unescaped stars. */
function piecesOf(pattern: string): Piece[] {
  const pieces: Piece[] = [[]];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '*') pieces.push([]);
    else pieces[pieces.length - 1].push(c === '?' ? undefined : c === '\\' && i + 1 < chars.length ? chars[++i] : c);
  }
  return pieces;
}

/** Whether a string holds glob syntax (an unescaped `*` or `?`), and is matched as a glob rather than exactly. */
export function isGlob(s: string): boolean {
  const pieces = piecesOf(s);
  return pieces.length > 1 || pieces[0].includes(undefined);
}

/** A case-insensitive matcher of a value that is exact (its escapes read) or a glob (`*`, `?`). */
export function valueMatcher(pattern: string): (value: string, counter?: StepCounter) => boolean {
  const [first, ...rest] = piecesOf(pattern.toLowerCase());
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
 * Whether `piece` stands in `value` (code points) at `at`, compared from its last character: a value whose literal end
 * differs is ruled out by its first comparison.
 */
function pieceAt(value: string[], at: number, piece: Piece, counter: StepCounter): boolean {
  for (let i = piece.length - 1; i >= 0; i--) {
    counter.steps++;
    if (piece[i] !== undefined && piece[i] !== value[at + i]) return false;
  }
  return true;
}
