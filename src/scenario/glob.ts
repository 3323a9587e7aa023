/**
 * Globs for scenario values: `*` any run, `?` one code point, `\x` x itself; case-insensitive, the whole value. Matched
 * before authentication, so never backtracking: each piece between stars is found leftmost in turn (linear time).
 */

/** A glob (or an exact value) is at most this many characters. */
export const MAX_GLOB_LENGTH = 256;

/** Counts a match's character comparisons, for the tests that show its cost is linear. */
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

/** Whether `piece` stands in `value` (code points) at `at`, compared from its last character. */
function pieceAt(value: string[], at: number, piece: Piece, counter: StepCounter): boolean {
  for (let i = piece.length - 1; i >= 0; i--) {
    counter.steps++;
    if (piece[i] !== undefined && piece[i] !== value[at + i]) return false;
  }
  return true;
}
