import { detached } from '../contract/answer.js';
import { ControlError } from '../errors.js';
import type { AnsweredEvents } from './answered-events.js';
import type { JournalEntry } from './answered.js';
import type { ObserverFailures } from './failures.js';
import { Subscribers } from './subscribers.js';

export type { JournalEntry } from './answered.js';

/**
 * The request journal: an observer of "answered" keeping the last records, sealed before they are shown, with a live
 * feed for the event stream and the log lines.
 */

/** Which entries `query` returns. */
export interface JournalFilter {
  code?: number | number[];
  apiUser?: string;
  limit?: number;
}

/** Bodies are kept in the journal up to this many characters. */
export const JOURNAL_BODY_CHARS = 8192;
/** Default size of the journal ring. */
export const DEFAULT_JOURNAL_SIZE = 1000;

/**
 * The request journal, an observer of "answered": a ring of the last `size` records, each with its secrets hidden as it
 * is kept, and a live feed of each new one for those who show traffic to people (the dashboard's event stream, the
 * command line's log lines).
 */
export class Journal {
  private readonly ring: (JournalEntry | undefined)[];
  private next = 0;
  private count = 0;
  private readonly listeners: Subscribers<JournalEntry>;
  /**
   * For an API user whose own scenario was loaded (a binding, a claimed API user): the first seq of its current
   * scenario. Its journal, asked for by API user, starts there, as the whole journal starts afresh on a load.
   */
  private readonly fromSeq = new Map<string, number>();

  /** `redact` hides every secret in an entry, in place (the simulator's redactor). */
  constructor(
    readonly size = DEFAULT_JOURNAL_SIZE,
    private readonly redact: (e: JournalEntry) => void = () => {},
    /** Where a listener's failure is recorded (it never fails the request it reports). */
    failures?: ObserverFailures,
  ) {
    this.listeners = new Subscribers(failures);
    this.ring = new Array<JournalEntry | undefined>(Math.max(1, size));
  }

  /** Keeps every answered request from now on. */
  observe(events: AnsweredEvents): () => void {
    return events.subscribe('journal', ({ record }) => this.add(record));
  }

  add(e: JournalEntry): void {
    this.redact(e);
    this.ring[this.next] = e;
    this.next = (this.next + 1) % this.ring.length;
    if (this.count < this.ring.length) this.count++;
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

  /** Entries, newest first. */
  entries(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = 1; i <= this.count; i++) out.push(this.ring[(this.next - i + this.ring.length) % this.ring.length]!);
    return out;
  }

  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.count = 0;
    this.fromSeq.clear();
  }

  /**
   * One API user's journal starts afresh at request `seq` (its own scenario was loaded): asked for by API user, it
   * shows from there.
   */
  startAfresh(apiUser: string, seq: number): void {
    this.fromSeq.set(apiUser, seq);
  }

  /** Forgets where an API user's journal starts (it is no longer claimed or bound). */
  forgetStart(apiUser: string): void {
    this.fromSeq.delete(apiUser);
  }

  get length(): number {
    return this.count;
  }

  /** Calls `fn` with every new entry until the returned function is called; `name` names it when it fails. */
  subscribe(fn: (e: JournalEntry) => void, { name = 'journal feed' }: { name?: string } = {}): () => void {
    return this.listeners.add({ fn, name });
  }

  get listenerCount(): number {
    return this.listeners.all.length;
  }
}

/**
 * A string cut to the journal's limit, saying how much was cut (of `length` characters in all, when it was cut before).
 */
export function clip(s: string, max = JOURNAL_BODY_CHARS, length = s.length): string {
  return s.length <= max && length <= max
    ? s
    : detached(`${s.slice(0, max)}… (${length - Math.min(max, s.length)} more characters)`);
}
