import { unescapeWithOrigins, type Span } from './unescape.js';

/**
 * Finding and hiding secrets in text, plain or escaped, and sealing a record (every field) before it is shown.
 */

/** Secrets shorter than this are not searched for: they would hide ordinary words. */
const MIN_SECRET_LENGTH = 4;
/** What a hidden secret is replaced with. */
export const HIDDEN = '[secret]';

/**
 * Hides secrets in text that is shown outside the simulator (journal, log, events, messages, pages). It finds a
 * secret written plainly, and written with escapes a client or a decoder may use: JSON and JSON5 `\u002d`, `\x2d`,
 * `\u{2d}`, `\-` under any number of backslashes (a body sent as a JSON string inside JSON), and URL `%2D`; and
 * whatever the case of its ASCII letters, for what is shown may have been lowercased on the way (HTTP lowercases a
 * header's name, the doctor quotes a token it read in lower case).
 */
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
    // Only a text with a backslash or a percent sign can hold a secret written escaped: decoded, each character
    // remembers where it came from.
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
