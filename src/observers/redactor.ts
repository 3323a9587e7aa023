import type { AnsweredRequest } from './answered.js';

/**
 * Finding and hiding secrets in text, plain or escaped, and sealing a record (every field) before it is shown.
 */

/** Secrets shorter than this are not searched for: they would hide ordinary words. */
const MIN_SECRET_LENGTH = 4;
/** What a hidden secret is replaced with. */
export const HIDDEN = '[secret]';

/**
 * Up to this many secrets, each is searched for by the engine's own substring search; past it, by one pass over the
 * text.
 */
const FEW = 16;

/**
 * Texts of these lengths are remembered with what they became, the last REMEMBERED_TEXTS of them: shorter ones cost
 * less to search again than to look up, and longer ones (bodies, whole exports) are not held on to.
 */
const REMEMBERED_LENGTH = { min: 64, max: 4096 };
const REMEMBERED_TEXTS = 8;

type Span = [start: number, end: number];

/**
 * Hides secrets in text that is shown outside the simulator (journal, log, events, messages, pages). It finds a
 * secret written plainly, and written with escapes a client or a decoder may use: JSON and JSON5 `\u002d`, `\x2d`,
 * `\u{2d}`, `\-` under any number of backslashes (a body sent as a JSON string inside JSON), and URL `%2D`. The cost
 * of hiding is linear in the text and does not grow with the number of secrets past a few.
 */
export class Redactor {
  private secrets: string[] = [];
  /** The length of the longest secret: how far around an escape a secret written partly escaped can reach. */
  private longest = 0;
  /** Past FEW secrets: secrets by a hash of their first MIN_SECRET_LENGTH characters. */
  private byPrefix: Map<number, string[]> | undefined;
  /**
   * Past FEW secrets: which pairs of first two characters (their low bytes) some secret starts with, so that most
   * places in a text are passed over without hashing (a refusal's message is searched on every refused request).
   */
  private starts = new Uint8Array(0);
  /**
   * Past FEW secrets: how far the search may move on when the last two characters of the MIN_SECRET_LENGTH it looks
   * at are a given pair (their low bytes). A pair that no secret has among its first MIN_SECRET_LENGTH characters
   * lets it move on by MIN_SECRET_LENGTH - 1 places without looking at the places between (Wu and Manber's
   * multi-pattern search): most of a text is read one place in three.
   */
  private shifts = new Uint8Array(0);

  /**
   * The last texts hidden, with what they became. One text is often shown in several places (a refusal's message
   * goes into the answer, then into the journal entry and the log line): it is searched once.
   */
  private readonly recent = new Map<string, string>();

  /** The secrets to hide from now on (the set replaces the previous one). */
  set(secrets: Iterable<string>): void {
    const list = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH))];
    this.secrets = list;
    this.longest = list.reduce((max, s) => Math.max(max, s.length), 0);
    this.recent.clear();
    this.byPrefix = undefined;
    if (list.length <= FEW) return;
    this.byPrefix = new Map();
    this.starts = new Uint8Array(1 << 16);
    this.shifts = new Uint8Array(1 << 16).fill(MIN_SECRET_LENGTH - 1);
    for (const s of list) {
      this.starts[pairOf(s, 0)] = 1;
      // The pair at j, j + 1 of a secret's start is the window's last pair when the secret starts MIN - 2 - j places
      // on.
      for (let j = 0; j + 1 < MIN_SECRET_LENGTH; j++) {
        const pair = pairOf(s, j);
        this.shifts[pair] = Math.min(this.shifts[pair], MIN_SECRET_LENGTH - 2 - j);
      }
      const k = prefixKey(s, 0);
      const bucket = this.byPrefix.get(k);
      if (bucket) bucket.push(s);
      else this.byPrefix.set(k, [s]);
    }
  }

  get size(): number {
    return this.secrets.length;
  }

  /** The text with every secret, plain or escaped, replaced by `[secret]`. */
  hide(text: string): string {
    if (this.secrets.length === 0 || text.length < MIN_SECRET_LENGTH) return text;
    if (text.length < REMEMBERED_LENGTH.min || text.length > REMEMBERED_LENGTH.max) return this.hideNow(text);
    let hidden = this.recent.get(text);
    if (hidden === undefined) {
      hidden = this.hideNow(text);
      if (this.recent.size >= REMEMBERED_TEXTS) this.recent.clear();
      this.recent.set(text, hidden);
    }
    return hidden;
  }

  private hideNow(text: string): string {
    const spans = this.find(text);
    // A secret the plain search missed is written with at least one escape, so it lies within the reach of one: only
    // those stretches are decoded and searched again (a refusal's message quotes a string to sign with its `\n`).
    for (const [start, end] of escapedStretches(text, this.longest)) {
      const stretch = text.slice(start, end);
      // Decoded first without noting where each character came from: that is needed only for a secret found, rarely.
      if (this.find(unescapeWithOrigins(stretch, false).text).length === 0) continue;
      const u = unescapeWithOrigins(stretch);
      for (const [s, e] of this.find(u.text)) spans.push([start + u.from[s], start + u.to[e - 1]]);
    }
    return spans.length === 0 ? text : replaceSpans(text, spans);
  }

  /** Where the secrets occur in the text, plainly. */
  private find(text: string): Span[] {
    const out: Span[] = [];
    if (!this.byPrefix) {
      for (const s of this.secrets) {
        for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + 1)) out.push([i, i + s.length]);
      }
      return out;
    }
    const { starts, shifts } = this;
    for (let i = 0; i + MIN_SECRET_LENGTH <= text.length;) {
      const shift = shifts[pairOf(text, i + MIN_SECRET_LENGTH - 2)];
      if (shift > 0) {
        i += shift;
        continue;
      }
      if (starts[pairOf(text, i)] !== 0) {
        const bucket = this.byPrefix.get(prefixKey(text, i));
        if (bucket) for (const s of bucket) if (text.startsWith(s, i)) out.push([i, i + s.length]);
      }
      i++;
    }
    return out;
  }
}

/** The low bytes of the two characters at `i`, as one index into a 64 KiB table. */
function pairOf(text: string, i: number): number {
  return ((text.charCodeAt(i) & 0xff) << 8) | (text.charCodeAt(i + 1) & 0xff);
}

function prefixKey(text: string, i: number): number {
  let h = 0;
  for (let k = 0; k < MIN_SECRET_LENGTH; k++) h = (Math.imul(h, 31) + text.charCodeAt(i + k)) | 0;
  return h;
}

/**
 * The stretches of the text that a secret written partly escaped can occupy: each escape, with `reach - 1`
 * characters on either side, joined where they touch. No stretch starts or ends inside an escape (one that would is
 * joined to that escape's own stretch), so decoding a stretch alone reads every escape in it as the whole text does.
 */
export function escapedStretches(text: string, reach: number): Span[] {
  const stretches: Span[] = [];
  // The engine's own search finds the next backslash and percent sign, so plain stretches are passed over unread.
  let backslash = text.indexOf('\\');
  let percent = text.indexOf('%');
  while (backslash >= 0 || percent >= 0) {
    const i = percent < 0 || (backslash >= 0 && backslash < percent) ? backslash : percent;
    let end: number;
    if (i === backslash) {
      let j = i;
      while (j < text.length && text.charCodeAt(j) === 0x5c) j++;
      end = readEscape(text, j)?.end ?? j;
    } else {
      // A percent sign that decodes to nothing stands for itself, as a plain character does.
      end = readPercent(text, i)?.end ?? -1;
    }
    if (end >= 0) {
      const from = Math.max(0, i - reach + 1);
      const to = Math.min(text.length, end + reach - 1);
      const last = stretches[stretches.length - 1];
      if (last && from <= last[1]) last[1] = to;
      else stretches.push([from, to]);
    }
    const next = Math.max(end, i + 1);
    if (backslash >= 0 && backslash < next) backslash = text.indexOf('\\', next);
    if (percent >= 0 && percent < next) percent = text.indexOf('%', next);
  }
  return stretches;
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

/**
 * Hides every secret in a record, in place, before it is shown: its summary (the fields a log line shows) when `to`
 * is 1, and then its headers and bodies when `to` is 2; `from` says how far it was sealed already.
 */
export function sealRecord(redactor: Redactor, e: AnsweredRequest, to: 0 | 1 | 2 = 2, from: 0 | 1 | 2 = 0): void {
  const hide = (text: string) => redactor.hide(text);
  if (from < 1 && to >= 1) {
    e.path = hide(e.path);
    if (e.apiUser !== undefined) e.apiUser = hide(e.apiUser);
    if (typeof e.user === 'string') e.user = hide(e.user);
    if (e.message !== undefined) e.message = hide(e.message);
    if (e.expectedStringToSign !== undefined) e.expectedStringToSign = hide(e.expectedStringToSign);
    if (e.hint) e.hint = { id: e.hint.id, text: hide(e.hint.text) };
    if (e.wouldFail)
      e.wouldFail = e.wouldFail.map((w) =>
        w.hint
          ? { ...w, reason: hide(w.reason), hint: { id: w.hint.id, text: hide(w.hint.text) } }
          : { ...w, reason: hide(w.reason) },
      );
    if (e.internalError !== undefined) e.internalError = hide(e.internalError);
  }
  if (from < 2 && to >= 2) {
    e.request = { headers: hideInHeaders(e.request.headers, hide), body: hide(e.request.body) };
    if (e.response) e.response = { body: hide(e.response.body) };
  }
}

type Headers = AnsweredRequest['request']['headers'];

/** Headers with every secret hidden; the same object when none holds one (the common case costs no copy). */
function hideInHeaders(headers: Headers, hide: (text: string) => string): Headers {
  let out: Headers | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const hidden = Array.isArray(value) ? value.map(hide) : hide(value);
    if (Array.isArray(value) ? (hidden as string[]).some((h, i) => h !== value[i]) : hidden !== value)
      (out ??= Object.assign(Object.create(null) as Headers, headers))[name] = hidden;
  }
  return out ?? headers;
}
