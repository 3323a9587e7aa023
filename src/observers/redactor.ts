import type { AnsweredRequest } from './answered.js';
import { escapedStretches, unescapeWithOrigins, type Span } from './unescape.js';

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

/**
 * Hides secrets in text that is shown outside the simulator (journal, log, events, messages, pages). It finds a
 * secret written plainly, and written with escapes a client or a decoder may use: JSON and JSON5 `\u002d`, `\x2d`,
 * `\u{2d}`, `\-` under any number of backslashes (a body sent as a JSON string inside JSON), and URL `%2D`; and
 * whatever the case of its ASCII letters, for what is shown may have been lowercased on the way (HTTP lowercases a
 * header's name, the doctor quotes a token it read in lower case). The cost of hiding is linear in the text and does
 * not grow with the number of secrets past a few.
 */
export class Redactor {
  private secrets: string[] = [];
  /** The length of the longest secret: how far around an escape a secret written partly escaped can reach. */
  private longest = 0;
  /**
   * The length of the shortest secret: a shorter text holds none, plainly or escaped (an escape is longer than what it
   * stands for). Most texts shown on every request are short (a path, an API user id).
   */
  private shortest = Infinity;
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
   * Which pairs of characters (their low bytes) stand next to each other in some secret: an escape whose character
   * stands beside none of its neighbours in any secret cannot be part of one (unescape.ts), and is not decoded.
   */
  private adjacent = new Uint8Array(0);
  // Saying yes to more pairs only decodes more stretches, which find the same (redactor-stretches.test.ts holds the
  // search to decoding the whole text): its mutants are equivalent. Before `set`, the empty table says yes to all.
  // Stryker disable next-line ArrowFunction,ConditionalExpression,EqualityOperator: see above
  private readonly adjacentInSecret = (a: number, b: number) => this.adjacent[pairKey(foldCode(a), foldCode(b))] !== 0;

  /**
   * The last texts hidden, with what they became, in a ring (the oldest is replaced). One text is often shown in
   * several places (a refusal's message goes into the answer, then into the journal entry and the log line): it is
   * searched once. Looked up by comparing, not by hashing: a text shown again is mostly the same string, which
   * compares at once, and others differ in length or early on; a map would hash every long text, new ones included.
   */
  private readonly recentTexts: string[] = new Array<string>(REMEMBERED_TEXTS).fill('');
  private readonly recentHidden: string[] = new Array<string>(REMEMBERED_TEXTS).fill('');
  private recentNext = 0;

  /** The secrets to hide from now on (the set replaces the previous one). */
  set(secrets: Iterable<string>): void {
    // Searched for in lower case, in texts lowercased the same way.
    const list = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH).map(fold))];
    this.secrets = list;
    this.longest = list.reduce((max, s) => Math.max(max, s.length), 0);
    this.shortest = list.reduce((min, s) => Math.min(min, s.length), Infinity);
    this.recentTexts.fill('');
    this.recentHidden.fill('');
    this.adjacent = new Uint8Array(1 << 16);
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: a pair more (past the end) only decodes more
    for (const secret of list) for (let j = 0; j + 1 < secret.length; j++) this.adjacent[pairOf(secret, j)] = 1;
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
    if (text.length < this.shortest) return text;
    if (text.length < REMEMBERED_LENGTH.min || text.length > REMEMBERED_LENGTH.max) return this.hideNow(text);
    // Stryker disable next-line EqualityOperator: one slot past the ring holds undefined, which no text equals
    for (let i = 0; i < REMEMBERED_TEXTS; i++) if (this.recentTexts[i] === text) return this.recentHidden[i];
    const hidden = this.hideNow(text);
    this.remember(text, hidden);
    return hidden;
  }

  private remember(text: string, hidden: string): void {
    this.recentTexts[this.recentNext] = text;
    this.recentHidden[this.recentNext] = hidden;
    this.recentNext = (this.recentNext + 1) % REMEMBERED_TEXTS;
  }

  /**
   * `hide(text)` for a text that ends with `part`, which is shown on its own as well (a refusal's message ends with
   * the doctor's hint, and the journal keeps the hint apart too). When the whole holds no secret, plain or escaped,
   * neither does the part: it is remembered as such, and not searched again. That holds for a part that starts where
   * no escape can be open (no backslash or percent sign in the ESCAPE_REACH characters before it), as a hint does,
   * after ". Hint: ": read alone, such a part decodes as it does within the whole.
   */
  hideEndingWith(text: string, part: string | undefined): string {
    const hidden = this.hide(text);
    if (
      hidden === text &&
      part !== undefined &&
      // Only texts of these lengths are looked up: others would take a place in the ring for nothing.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the same answers, a place in the ring lost
      part.length >= REMEMBERED_LENGTH.min &&
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the same answers, a place in the ring lost
      part.length <= REMEMBERED_LENGTH.max &&
      text.endsWith(part) &&
      startsOutsideEscapes(text, text.length - part.length)
    )
      this.remember(part, part);
    return hidden;
  }

  private hideNow(text: string): string {
    // Folding keeps every character's place: what is found in the folded text is hidden at the same place in the text.
    const spans = this.find(fold(text));
    // A secret the plain search missed is written with at least one escape, so it lies within the reach of one: only
    // those stretches are decoded (as written: `\U` is no `\u`), folded and searched again (a refusal's message
    // quotes a string to sign with its `\n`).
    for (const [start, end] of escapedStretches(text, this.longest, this.adjacentInSecret)) {
      const stretch = text.slice(start, end);
      // Decoded first without noting where each character came from: that is needed only for a secret found, rarely.
      if (this.find(fold(unescapeWithOrigins(stretch, false).text)).length === 0) continue;
      const u = unescapeWithOrigins(stretch);
      for (const [s, e] of this.find(fold(u.text))) spans.push([start + u.from[s], start + u.to[e - 1]]);
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

/**
 * How far before a place an escape that is still open there can start: `\u{10FFFF}` after its backslash, or a
 * character written as four `%XX` bytes.
 */
const ESCAPE_REACH = 12;

/** Whether no escape can be open at `i`: no backslash or percent sign in the ESCAPE_REACH characters before it. */
function startsOutsideEscapes(text: string, i: number): boolean {
  // Stryker disable next-line MethodExpression: looking at more of the text only remembers less
  return !/[\\%]/.test(text.slice(Math.max(0, i - ESCAPE_REACH), i));
}

/**
 * The text with its ASCII capitals made small and every other character as it was: one character for one, so places
 * and lengths stay (a locale's or Unicode's lower case would not keep them all).
 */
function fold(text: string): string {
  // As many UTF-8 bytes as characters: all ASCII, which the engine's own lower case maps one for one.
  return Buffer.byteLength(text) === text.length ? text.toLowerCase() : text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** A character's code, an ASCII capital's made small. */
function foldCode(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** The low bytes of the two characters at `i`, as one index into a 64 KiB table. */
function pairOf(text: string, i: number): number {
  return pairKey(text.charCodeAt(i), text.charCodeAt(i + 1));
}

/** Two characters' low bytes as one index into a 64 KiB table. */
function pairKey(a: number, b: number): number {
  return ((a & 0xff) << 8) | (b & 0xff);
}

function prefixKey(text: string, i: number): number {
  let h = 0;
  for (let k = 0; k < MIN_SECRET_LENGTH; k++) h = (Math.imul(h, 31) + text.charCodeAt(i + k)) | 0;
  return h;
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
    if (e.hint) {
      const text = hide(e.hint.text);
      // Stryker disable next-line ConditionalExpression: a copy of the same hint, made for nothing
      if (text !== e.hint.text) e.hint = { id: e.hint.id, text };
    }
    if (e.wouldFail)
      e.wouldFail = e.wouldFail.map((w) =>
        w.hint
          ? { ...w, reason: hide(w.reason), hint: { id: w.hint.id, text: hide(w.hint.text) } }
          : { ...w, reason: hide(w.reason) },
      );
    if (e.internalError !== undefined) e.internalError = hide(e.internalError);
  }
  if (from < 2 && to >= 2) {
    // A new object (the request's own headers are never changed), with how many headers were left out kept.
    e.request = { ...e.request, headers: hideInHeaders(e.request.headers, hide), body: hide(e.request.body) };
    if (e.response) e.response = { body: hide(e.response.body) };
  }
}

type Headers = AnsweredRequest['request']['headers'];

/**
 * Headers with every secret hidden, in their names as in their values (a name is what a client chose, as a value is);
 * the same object when none holds one (the common case costs no copy). Names that become the same once hidden keep
 * all their values.
 */
function hideInHeaders(headers: Headers, hide: (text: string) => string): Headers {
  let changed = false;
  const shown = Object.entries(headers).map(([name, value]): [string, string | string[] | undefined] => {
    const hiddenName = hide(name);
    const hidden = value === undefined ? value : Array.isArray(value) ? value.map(hide) : hide(value);
    if (
      hiddenName !== name ||
      (Array.isArray(value) ? (hidden as string[]).some((h, i) => h !== value[i]) : hidden !== value)
    )
      changed = true;
    return [hiddenName, hidden];
  });
  if (!changed) return headers;
  const out = Object.create(null) as Headers;
  for (const [name, value] of shown) {
    if (value === undefined) continue;
    const before = out[name];
    out[name] = before === undefined ? value : [before, value].flat();
  }
  return out;
}
