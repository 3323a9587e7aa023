// Finding and hiding secrets in text, plain or escaped, and sealing a record (every field) before it is shown.

/** Secrets shorter than this are not searched for: they would hide ordinary words. */
const MIN_SECRET_LENGTH = 4;
export const HIDDEN = '[secret]';

/** Hides secrets in text that is shown outside the simulator (journal, log, events, messages, pages). */
export class Redactor {
  /** The secrets, their ASCII letters small. */
  private secrets: string[] = [];
  /** A text shorter than the shortest secret holds none, plainly or escaped (an escape is longer than it). */
  private shortest = Infinity;

  /** The secrets to hide from now on (the set replaces the previous one). */
  set(secrets: Iterable<string>): void {
    this.secrets = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH).map(fold))];
    this.shortest = Math.min(...this.secrets.map((s) => s.length));
  }

  get size(): number {
    return this.secrets.length;
  }

  /** The text with every secret, plain or escaped, replaced by `[secret]`. */
  hide(text: string): string {
    if (text.length < this.shortest) return text;
    // Folding keeps every character's place: what is found in the folded text is hidden at the same place.
    const spans = this.find(fold(text));
    // Only a text with a backslash or a percent sign can hold a secret written escaped.
    if (text.includes('\\') || text.includes('%')) {
      const u = unescapeWithOrigins(text);
      for (const [s, e] of this.find(fold(u.text))) spans.push([u.from[s], u.to[e - 1]]);
    }
    return spans.length === 0 ? text : replaceSpans(text, spans);
  }

  /** Where the secrets occur in the text, plainly. */
  private find(text: string): Span[] {
    const out: Span[] = [];
    for (const s of this.secrets)
      for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + 1)) out.push([i, i + s.length]);
    return out;
  }
}

/** The text with its ASCII capitals made small and every other character as it was: places and lengths stay. */
function fold(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** The text with the spans (which may overlap) each replaced by one `[secret]`. */
function replaceSpans(text: string, spans: Span[]): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  let i = 0;
  while (i < spans.length) {
    let [start, end] = spans[i++];
    while (i < spans.length && spans[i][0] < end) end = Math.max(end, spans[i++][1]);
    if (start < at) start = at;
    out += text.slice(at, start) + HIDDEN;
    at = Math.max(at, end);
  }
  return out + text.slice(at);
}

// Reading text as a client or a decoder would once its escapes are undone.

/** Where a piece of a text lies in it: `start` included, `end` not. */
export type Span = [start: number, end: number];

const HEX = /^[0-9a-fA-F]+$/;
const ESCAPE_START = /[\\%]/g;

/** The text with its escapes undone, and for each code unit of the result the span of the text it came from. */
export function unescapeWithOrigins(text: string): { text: string; from: number[]; to: number[] } {
  const n = text.length;
  const from: number[] = [];
  const to: number[] = [];
  let out = '';
  for (let i = 0; i < n;) {
    const c = text[i];
    if (c !== '\\' && c !== '%') {
      // A run of ordinary characters, copied whole: each comes from itself.
      ESCAPE_START.lastIndex = i;
      const stop = ESCAPE_START.exec(text)?.index ?? n;
      for (let k = i; k < stop; k++) {
        from.push(k);
        to.push(k + 1);
      }
      out += text.slice(i, stop);
      i = stop;
      continue;
    }
    // A run of backslashes escapes what follows it (a JSON string inside a JSON string doubles them).
    let j = i;
    if (c === '\\') while (j < n && text[j] === '\\') j++;
    const read = c === '\\' ? readEscape(text, j) : readPercent(text, i);
    const end = read?.end ?? Math.max(j, i + 1);
    const chars = read?.chars ?? c;
    for (let k = 0; k < chars.length; k++) {
      from.push(i);
      to.push(end);
    }
    out += chars;
    i = end;
  }
  return { text: out, from, to };
}

/** The escape that starts at `j` (just past its backslashes). */
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
  // The lead byte says how many bytes follow; decodeURIComponent refuses any that are not one character's UTF-8.
  const lead = parseInt(text.slice(i + 1, i + 3), 16);
  const end = i + 3 * (lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4);
  if (end > text.length || !/^(?:%[0-9a-fA-F]{2})+$/.test(text.slice(i, end))) return undefined;
  try {
    const chars = decodeURIComponent(text.slice(i, end));
    return chars.includes('\ufffd') ? undefined : { chars, end };
  } catch {
    return undefined;
  }
}
