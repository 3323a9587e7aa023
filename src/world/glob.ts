import { foldCase, foldChar } from './fold-case.js';

/**
 * Globs for scenario values (account e-mails, `when.svcUser`, `when.headers`), matched without backtracking: the
 * pattern becomes a small automaton whose live states are advanced together, one character of the value at a time,
 * so a match costs at most (value length + 1) × (pattern length + 1) steps whatever the two hold. Rules are
 * matched before a request is authenticated: a pattern such as `*a*a*a*a*b` must not let one request take minutes.
 *
 * Syntax (case-insensitive as fold-case.ts folds, the whole value must match): `*` any run of characters (`/` and
 * `.` included), `?` one character (one code point: an emoji is one), `[abc]`, `[a-z]`, `[!abc]` or `[^abc]` one
 * character of (or not of) a set, `{a,b,c}` one of the alternatives (nesting allowed), `\x` the character x itself.
 */

/** A glob is at most this long; its alternatives, once braces are expanded, at most this many. */
export const MAX_GLOB_LENGTH = 256;
export const MAX_GLOB_ALTERNATIVES = 256;

/** A pattern that cannot be used, and why. */
export class GlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobError';
  }
}

const STAR = 0;
const ONE = 1;
const LITERAL = 2;
const SET = 3;
const ACCEPT = 4;

interface Token {
  kind: typeof STAR | typeof ONE | typeof LITERAL | typeof SET | typeof ACCEPT;
  /** LITERAL: the character's code point, folded. */
  cp?: number;
  /**
   * SET: whether a (folded) character, by its code point, is one of the set, as a regular expression's class with the
   * `i` and `u` flags says. Folding a range's two ends is not folding the range: [À-Þ] holds ×, [à-þ] holds ÷
   * instead; [A-z] holds _.
   */
  has?: (cp: number) => boolean;
}

/** Counts the steps of matches, for tests that prove the cost is linear (steps, not seconds). */
export interface StepCounter {
  steps: number;
}

/** Whether a string holds glob syntax (and is matched as a glob rather than exactly). */
export function isGlob(s: string): boolean {
  return /[*?[\]{}]/.test(s);
}

/** Compiles a glob to a matcher; a pattern too long or with too many alternatives throws a GlobError. */
export function compileGlob(pattern: string): (value: string, counter?: StepCounter) => boolean {
  const matchFolded = compileFoldedGlob(pattern);
  return (value, counter) => matchFolded(foldCase(value), counter);
}

/**
 * The same matcher for a value folded already (fold-case.ts): a value tried against many globs (an e-mail against a
 * scenario's account globs) is folded once, not once a glob.
 */
export function compileFoldedGlob(pattern: string): (folded: string, counter?: StepCounter) => boolean {
  if (pattern.length > MAX_GLOB_LENGTH) throw new GlobError(`a glob is at most ${MAX_GLOB_LENGTH} characters`);
  const tokens: Token[] = [];
  const starts: number[] = [];
  const ends: Ends[] = [];
  for (const alternative of expandBraces(pattern)) {
    const own = tokenize(alternative);
    starts.push(tokens.length);
    tokens.push(...own, { kind: ACCEPT });
    ends.push(literalEnds(own));
  }
  return (folded, counter) => {
    // Most values a scenario's globs are tried against match none of them (an e-mail against a hundred domains):
    // the literal start and end of each alternative rule those out in a comparison, without running the automaton.
    if (!ends.some((e) => folded.length >= e.least && folded.startsWith(e.prefix) && folded.endsWith(e.suffix))) {
      if (counter) counter.steps += 1;
      return false;
    }
    return run(tokens, starts, folded, counter);
  };
}

/** What every value an alternative matches starts and ends with, and how long it is at least. */
interface Ends {
  prefix: string;
  suffix: string;
  least: number;
}

function literalEnds(tokens: Token[]): Ends {
  const unit = (t: Token) => String.fromCodePoint(t.cp!);
  let prefix = '';
  for (let i = 0; i < tokens.length && tokens[i].kind === LITERAL; i++) prefix += unit(tokens[i]);
  let suffix = '';
  if (prefix.length < tokens.length)
    for (let i = tokens.length - 1; i >= 0 && tokens[i].kind === LITERAL; i--) suffix = unit(tokens[i]) + suffix;
  // Every token but a star stands for exactly one character; a character is one or two code units, so a value
  // shorter in code units than this many characters cannot match.
  const least = tokens.filter((t) => t.kind !== STAR).length;
  return { prefix, suffix, least };
}

/**
 * The automaton run: the set of live states, advanced by each character; no state is ever visited twice per character.
 */
function run(tokens: Token[], starts: number[], value: string, counter?: StepCounter): boolean {
  const seen = new Int32Array(tokens.length).fill(-1);
  let current: number[] = [];
  let next: number[] = [];
  let steps = 0;
  // Adds a state and, through stars (which may match nothing), the states after them.
  const add = (into: number[], state: number, round: number) => {
    while (seen[state] !== round) {
      seen[state] = round;
      into.push(state);
      steps++;
      if (tokens[state].kind !== STAR) return;
      state++;
    }
  };
  for (const s of starts) add(current, s, 0);
  for (let i = 0; i < value.length && current.length > 0;) {
    const code = value.codePointAt(i)!;
    i += code > 0xffff ? 2 : 1;
    next.length = 0;
    for (const state of current) {
      const t = tokens[state];
      steps++;
      if (t.kind === STAR) add(next, state, i);
      else if (t.kind === ONE || (t.kind === LITERAL && t.cp === code) || (t.kind === SET && t.has!(code)))
        add(next, state + 1, i);
    }
    [current, next] = [next, current];
  }
  if (counter) counter.steps += steps;
  return current.some((state) => tokens[state].kind === ACCEPT);
}

/** The character (one code point, one or two code units) at `i`. */
function charAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i)!);
}

/** A character's folded code point. */
function folded(ch: string): number {
  return foldChar(ch).codePointAt(0)!;
}

/** One alternative (no braces left) as tokens; an unclosed `[` is a literal. */
function tokenize(pattern: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < pattern.length;) {
    const c = charAt(pattern, i);
    i += c.length;
    if (c === '*') {
      if (out[out.length - 1]?.kind !== STAR) out.push({ kind: STAR });
    } else if (c === '?') {
      out.push({ kind: ONE });
    } else if (c === '\\' && i < pattern.length) {
      const escaped = charAt(pattern, i);
      i += escaped.length;
      out.push({ kind: LITERAL, cp: folded(escaped) });
    } else if (c === '[') {
      const set = readSet(pattern, i);
      if (set) {
        out.push(set.token);
        i = set.end;
      } else {
        out.push({ kind: LITERAL, cp: folded('[') });
      }
    } else {
      out.push({ kind: LITERAL, cp: folded(c) });
    }
  }
  return out;
}

/**
 * The set whose first character is at `first` (just past its `[`), and the index just past its `]`; undefined when
 * unclosed.
 */
function readSet(pattern: string, first: number): { token: Token; end: number } | undefined {
  let i = first;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i++;
  // Every character written as \u{...}: nothing the pattern holds is read as the regular expression's own syntax.
  const written = (cp: number) => `\\u{${cp.toString(16)}}`;
  let members = '';
  const start = i;
  while (i < pattern.length) {
    const c = charAt(pattern, i);
    if (c === ']' && i > start)
      return { token: { kind: SET, has: setMembership(`^[${negated ? '^' : ''}${members}]$`) }, end: i + 1 };
    i += c.length;
    const lo = c.codePointAt(0)!;
    // A range: the character, a `-`, and another that does not close the set (a `-` before `]` is itself).
    if (pattern[i] === '-' && i + 1 < pattern.length && pattern[i + 1] !== ']') {
      const toChar = charAt(pattern, i + 1);
      const hi = toChar.codePointAt(0)!;
      members += `${written(Math.min(lo, hi))}-${written(Math.max(lo, hi))}`;
      i += 1 + toChar.length;
    } else {
      members += written(lo);
    }
  }
  return undefined;
}

/**
 * Membership in a set's class (the source of a regular expression with the `i` and `u` flags) by code point. Made
 * when first asked, not when the glob is compiled: a scenario file of 1 MiB can hold 300,000 sets, and most are never
 * tried. The set is tried against every character of a value (rules are matched on every request, header values up
 * to 16 KiB): an ASCII character, nearly every one, is answered from a table, each entry filled when first asked.
 */
function setMembership(source: string): (cp: number) => boolean {
  let set: RegExp | undefined;
  let ascii: Int8Array | undefined;
  const test = (cp: number) => (set ??= new RegExp(source, 'iu')).test(String.fromCodePoint(cp));
  return (cp) => {
    if (cp >= 128) return test(cp);
    ascii ??= new Int8Array(128).fill(-1);
    if (ascii[cp] === -1) ascii[cp] = test(cp) ? 1 : 0;
    return ascii[cp] === 1;
  };
}

/** The alternatives `{a,b}` stands for, nesting allowed; a `{` without its `}` is a literal. */
function expandBraces(pattern: string): string[] {
  const open = findOpenBrace(pattern);
  if (open < 0) return [pattern];
  const close = matchingBrace(pattern, open);
  if (close < 0) return expandBraces(`${pattern.slice(0, open)}\\{${pattern.slice(open + 1)}`);
  const head = pattern.slice(0, open);
  const tails = expandBraces(pattern.slice(close + 1));
  const out: string[] = [];
  for (const option of splitTopLevel(pattern.slice(open + 1, close))) {
    for (const middle of expandBraces(option)) {
      for (const tail of tails) {
        out.push(head + middle + tail);
        if (out.length > MAX_GLOB_ALTERNATIVES)
          throw new GlobError(
            `a glob stands for at most ${MAX_GLOB_ALTERNATIVES} alternatives once its braces are expanded`,
          );
      }
    }
  }
  return out;
}

function findOpenBrace(p: string): number {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === '{') return i;
  }
  return -1;
}

function matchingBrace(p: string, open: number): number {
  let depth = 0;
  for (let i = open; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === '{') depth++;
    else if (p[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '\\') i++;
    else if (inner[i] === '{') depth++;
    else if (inner[i] === '}') depth--;
    else if (inner[i] === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}
