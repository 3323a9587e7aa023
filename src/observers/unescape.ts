/**
 * Reading text as a client or a decoder would once its escapes are undone, so that a secret the client wrote escaped
 * is found where it stands in the original text.
 */

/** Where a piece of a text lies in it: `start` included, `end` not. */
export type Span = [start: number, end: number];

/**
 * The stretches of the text that a secret written partly escaped can occupy: each escape, with `reach - 1`
 * characters on either side, joined where they touch. No stretch starts or ends inside an escape (one that would is
 * joined to that escape's own stretch), so decoding a stretch alone reads every escape in it as the whole text does.
 *
 * `adjacentInSecret(a, b)`, when given, says whether some secret holds the character `a` right before `b`. A secret the
 * plain search missed holds at least one escape's character together with the character decoded beside it (a secret
 * has 4 characters or more); every escape within it does, so a stretch none of whose escapes does so holds no such
 * secret and is left out. A stretch kept is the same as without the test. (A refusal's message quotes the string to
 * sign with a `\n`: its two stretches are decoded and searched on every refused request otherwise.)
 */
export function escapedStretches(
  text: string,
  reach: number,
  adjacentInSecret?: (a: number, b: number) => boolean,
): Span[] {
  const stretches: Span[] = [];
  // Whether the last stretch holds an escape that a secret may run through: one that does not is replaced by the next
  // stretch, or dropped at the end.
  // Stryker disable next-line BooleanLiteral: read only once a stretch was pushed, which sets it
  let lastWanted = true;
  // The engine's own search finds the next backslash and percent sign, so plain stretches are passed over unread.
  let backslash = text.indexOf('\\');
  let percent = text.indexOf('%');
  while (backslash >= 0 || percent >= 0) {
    const i = percent < 0 || (backslash >= 0 && backslash < percent) ? backslash : percent;
    let escape: { chars: string; end: number } | undefined;
    if (i === backslash) {
      let j = i;
      while (j < text.length && text.charCodeAt(j) === 0x5c) j++;
      // A backslash run at the end of the text stands for one backslash.
      escape = readEscape(text, j) ?? { chars: '\\', end: j };
    } else {
      // A percent sign that decodes to nothing stands for itself, as a plain character does.
      escape = readPercent(text, i);
    }
    if (escape) {
      const { chars, end } = escape;
      const from = Math.max(0, i - reach + 1);
      const to = Math.min(text.length, end + reach - 1);
      // Right after another escape, the character before is not the one decoded; but that escape counts as unsure (an
      // escape follows it) and shares this one's stretch, which is kept whatever this one's answer.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: charCodeAt(-1) is NaN, which no test passes
      const before = i > 0 ? text.charCodeAt(i - 1) : -1;
      const wants = adjacentInSecret === undefined || mayHoldSecret(text, before, chars, end, adjacentInSecret);
      const last = stretches[stretches.length - 1];
      if (last && from <= last[1]) {
        last[1] = to;
        lastWanted ||= wants;
      } else {
        if (!lastWanted) stretches.pop();
        stretches.push([from, to]);
        lastWanted = wants;
      }
    }
    const next = Math.max(escape?.end ?? -1, i + 1);
    if (backslash >= 0 && backslash < next) backslash = text.indexOf('\\', next);
    if (percent >= 0 && percent < next) percent = text.indexOf('%', next);
  }
  if (!lastWanted) stretches.pop();
  return stretches;
}

/**
 * Whether a secret may run through an escape that decodes to `chars` and ends at `end`, `before` being the character
 * decoded before it (-1: none). Unsure (several characters, or another escape right after it) counts as yes.
 */
function mayHoldSecret(
  text: string,
  before: number,
  chars: string,
  end: number,
  adjacentInSecret: (a: number, b: number) => boolean,
): boolean {
  if (chars.length !== 1) return true;
  const c = chars.charCodeAt(0);
  if (before >= 0 && adjacentInSecret(before, c)) return true;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: past the end charCodeAt is NaN, beside nothing
  if (end >= text.length) return false;
  const after = text.charCodeAt(end);
  return after === 0x5c || after === 0x25 || adjacentInSecret(c, after);
}

const HEX = /^[0-9a-fA-F]+$/;

/**
 * The text with its escapes undone, and for each code unit of the result the span of the text it came from: one
 * pass, so linear in the text however its backslashes run. A backslash run followed by `u` and four hex digits,
 * `u{...}`, `x` and two hex digits, or any other character, is that character; `%XX` bytes that form UTF-8 are
 * their characters. Only used to find secrets: the shown text keeps its escapes where no secret is. `origins` false:
 * the text only, the spans left empty (a first look, cheaper).
 */
export function unescapeWithOrigins(text: string, origins = true): { text: string; from: number[]; to: number[] } {
  const n = text.length;
  // Plain arrays filled in order: a typed array this small costs more to allocate (outside the heap) than to fill.
  // Without `origins`, they stay empty.
  const from: number[] = [];
  const to: number[] = [];
  let out = '';
  let length = 0;
  const emit = (chars: string, start: number, end: number) => {
    if (origins) {
      for (let k = 0; k < chars.length; k++) {
        from[length + k] = start;
        to[length + k] = end;
      }
    }
    out += chars;
    length += chars.length;
  };
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c !== 0x5c && c !== 0x25) {
      // A run of ordinary characters, copied whole: each comes from itself.
      let j = i + 1;
      while (j < n && text.charCodeAt(j) !== 0x5c && text.charCodeAt(j) !== 0x25) j++;
      if (origins) {
        for (let k = i; k < j; k++) {
          from[length + k - i] = k;
          to[length + k - i] = k + 1;
        }
      }
      out += text.slice(i, j);
      length += j - i;
      i = j;
    } else if (c === 0x5c /* \ */) {
      let j = i;
      while (j < n && text.charCodeAt(j) === 0x5c) j++;
      const escape = readEscape(text, j);
      if (escape) {
        emit(escape.chars, i, escape.end);
        i = escape.end;
      } else {
        emit('\\', i, j);
        i = j;
      }
    } else {
      const decoded = readPercent(text, i);
      if (decoded) {
        emit(decoded.chars, i, decoded.end);
        i = decoded.end;
      } else {
        emit('%', i, i + 1);
        i++;
      }
    }
  }
  return { text: out, from, to };
}

/**
 * The escape that starts at `j` (just past its backslashes): its characters and where it ends; undefined at the end of
 * the text.
 */
function readEscape(text: string, j: number): { chars: string; end: number } | undefined {
  if (j >= text.length) return undefined;
  const c = text[j];
  if (c === 'u' && text[j + 1] === '{') {
    const close = text.indexOf('}', j + 2);
    const hex = close > j + 2 && close - j <= 10 ? text.slice(j + 2, close) : '';
    const cp = HEX.test(hex) ? parseInt(hex, 16) : NaN;
    if (cp <= 0x10ffff) return { chars: String.fromCodePoint(cp), end: close + 1 };
  }
  if (c === 'u' && HEX.test(text.slice(j + 1, j + 5)) && j + 5 <= text.length)
    return { chars: String.fromCharCode(parseInt(text.slice(j + 1, j + 5), 16)), end: j + 5 };
  if (c === 'x' && HEX.test(text.slice(j + 1, j + 3)) && j + 3 <= text.length)
    return { chars: String.fromCharCode(parseInt(text.slice(j + 1, j + 3), 16)), end: j + 3 };
  const cp = text.codePointAt(j)!;
  const ch = String.fromCodePoint(cp);
  return { chars: ch, end: j + ch.length };
}

/** One character written as `%XX` UTF-8 bytes at `i`, or undefined when the bytes there are not one. */
function readPercent(text: string, i: number): { chars: string; end: number } | undefined {
  const byte = (at: number) =>
    text[at] === '%' && HEX.test(text.slice(at + 1, at + 3)) && at + 3 <= text.length
      ? parseInt(text.slice(at + 1, at + 3), 16)
      : -1;
  const lead = byte(i);
  if (lead < 0) return undefined;
  const length =
    lead < 0x80
      ? 1
      : lead >= 0xc2 && lead < 0xe0
        ? 2
        : lead >= 0xe0 && lead < 0xf0
          ? 3
          : lead >= 0xf0 && lead < 0xf5
            ? 4
            : 0;
  if (length === 0) return undefined;
  const bytes = [lead];
  for (let k = 1; k < length; k++) {
    const b = byte(i + 3 * k);
    if (b < 0x80 || b > 0xbf) return undefined;
    bytes.push(b);
  }
  const chars = Buffer.from(bytes).toString('utf8');
  return chars.includes('\ufffd') ? undefined : { chars, end: i + 3 * length };
}
