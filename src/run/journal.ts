import type { Redactor } from '../output/redactor.js';
import { detached } from '../contract/response.js';
import { ControlError } from '../contract/errors.js';
import { Subscribers, type AnsweredEvents } from './answered-events.js';
import type { JournalEntry } from './answered.js';
import type { Hint } from '../doctor/hint.js';
import type { ObserverFailures } from './failures.js';

export type { JournalEntry } from './answered.js';

/** Which entries `query` returns. */
export interface JournalFilter {
  code?: number | number[];
  apiUser?: string;
  limit?: number;
}

/** The journal as plain data: its entries, oldest first, and where API users' own journals start. */
export interface JournalState {
  entries: JournalEntry[];
  fromSeq: [string, number][];
}

/** Bodies are kept in the journal up to this many characters. */
export const JOURNAL_BODY_CHARS = 8192;
export const DEFAULT_JOURNAL_SIZE = 1000;

/** The request journal, an observer of "answered". */
export class Journal {
  private list: JournalEntry[] = [];
  private readonly listeners: Subscribers<JournalEntry>;
  /** For an API user whose own scenario was loaded (a binding, a claimed API user). */
  private readonly fromSeq = new Map<string, number>();

  /** `redact` hides every secret in an entry, in place (the simulator's redactor). */
  constructor(
    readonly size = DEFAULT_JOURNAL_SIZE,
    private readonly redact: (e: JournalEntry) => void = () => {},
    /** Where a listener's failure is recorded (it never fails the request it reports). */
    failures?: ObserverFailures,
  ) {
    this.listeners = new Subscribers(failures);
  }

  observe(events: AnsweredEvents): () => void {
    return events.subscribe('journal', ({ record }) => this.add(record));
  }

  add(e: JournalEntry): void {
    this.redact(e);
    this.list.push(e);
    if (this.list.length > Math.max(1, this.size)) this.list.shift();
    this.listeners.tell(e, e.seq);
  }

  /** Entries, newest first, optionally only some codes and one API user, at most `limit`. */
  query(filter: JournalFilter): JournalEntry[] {
    if (typeof filter !== 'object' || filter === null)
      throw new ControlError(400, 'the journal filter is an object: { code?, apiUser?, limit? }');
    // In-process callers pass anything: a wrong filter would otherwise answer a wrong list (slice(0, -1) drops one).
    const wanted = filter.code === undefined ? undefined : Array.isArray(filter.code) ? filter.code : [filter.code];
    if (wanted?.some((c) => !Number.isInteger(c)))
      throw new ControlError(400, 'code must be a code or a list of codes');
    if (filter.apiUser !== undefined && typeof filter.apiUser !== 'string')
      throw new ControlError(400, 'apiUser must be a string');
    if (filter.limit !== undefined && !(Number.isInteger(filter.limit) && filter.limit >= 0))
      throw new ControlError(400, 'limit must be a whole number');
    const codes = wanted === undefined ? undefined : new Set(wanted);
    const from = filter.apiUser ? (this.fromSeq.get(filter.apiUser) ?? 0) : 0;
    const out = this.entries().filter(
      (e) =>
        (!codes || (e.code !== undefined && codes.has(e.code))) &&
        (!filter.apiUser || (e.apiUser === filter.apiUser && e.seq >= from)),
    );
    return filter.limit !== undefined ? out.slice(0, filter.limit) : out;
  }

  entries(): JournalEntry[] {
    return this.list.slice().reverse();
  }

  clear(): void {
    this.list = [];
    this.fromSeq.clear();
  }

  /** The journal as plain data, for a snapshot (`restore` takes it); the caller copies it. */
  state(): JournalState {
    return { entries: [...this.list], fromSeq: [...this.fromSeq] };
  }

  /** Holds these entries (already hidden; the listeners are not told: they were when the requests came). */
  restore(state: JournalState): void {
    // Headers are kept without a prototype (hideInHeaders): a header named like one of Object's members is a header.
    this.list = state.entries.map((e) => ({
      ...e,
      request: { ...e.request, headers: Object.assign(Object.create(null) as Headers, e.request.headers) },
    }));
    this.fromSeq.clear();
    for (const [apiUser, seq] of state.fromSeq) this.fromSeq.set(apiUser, seq);
  }

  /** One API user's journal starts afresh at request `seq` (its own scenario was loaded). */
  startAfresh(apiUser: string, seq: number): void {
    this.fromSeq.set(apiUser, seq);
  }

  /** Forgets where an API user's journal starts (it is no longer claimed or bound). */
  forgetStart(apiUser: string): void {
    this.fromSeq.delete(apiUser);
  }

  get length(): number {
    return this.list.length;
  }

  /** Calls `fn` with every new entry until the returned function is called; `name` names it when it fails. */
  subscribe(fn: (e: JournalEntry) => void, { name = 'journal feed' }: { name?: string } = {}): () => void {
    return this.listeners.subscribe(name, fn);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

/** A string cut to the journal's limit, saying how much was cut. */
export function clip(s: string, max = JOURNAL_BODY_CHARS, length = s.length): string {
  return s.length <= max && length <= max
    ? s
    : detached(`${s.slice(0, max)}… (${length - Math.min(max, s.length)} more characters)`);
}

/** Hides every secret in a record, in place, before the journal keeps it: its summary, headers and bodies. */
export function hideSecrets(redactor: Redactor, e: JournalEntry): void {
  const hide = (text: string) => redactor.hide(text);
  const hideHint = (h: Hint) => ({ id: h.id, text: hide(h.text) });
  e.path = hide(e.path);
  if (e.apiUser !== undefined) e.apiUser = hide(e.apiUser);
  if (typeof e.user === 'string') e.user = hide(e.user);
  if (e.message !== undefined) e.message = hide(e.message);
  if (e.expectedStringToSign !== undefined) e.expectedStringToSign = hide(e.expectedStringToSign);
  if (e.hint) e.hint = hideHint(e.hint);
  e.wouldFail &&= e.wouldFail.map((w) => ({ ...w, reason: hide(w.reason), ...(w.hint && { hint: hideHint(w.hint) }) }));
  if (e.internalError !== undefined) e.internalError = hide(e.internalError);
  // A new object (the request's own headers are never changed), with how many headers were left out kept.
  e.request = { ...e.request, headers: hideInHeaders(e.request.headers, hide), body: hide(e.request.body) };
  if (e.response) e.response = { body: hide(e.response.body) };
}

type Headers = JournalEntry['request']['headers'];

/** Headers with every secret hidden, in their names as in their values (two names hidden alike become one). */
function hideInHeaders(headers: Headers, hide: (text: string) => string): Headers {
  const out = Object.create(null) as Headers;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const hidden = Array.isArray(value) ? value.map(hide) : hide(value);
    const key = hide(name);
    out[key] = out[key] === undefined ? hidden : [out[key], hidden].flat();
  }
  return out;
}
