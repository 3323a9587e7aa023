import { detached } from '../contract/answer.js';
import { ControlError } from '../errors.js';
import type { AnsweredEvents } from './answered-events.js';
import type { JournalEntry } from './answered.js';
import type { ObserverFailures } from './failures.js';
import { Subscribers, type Subscriber } from './subscribers.js';

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

/** How far an entry is sealed (its secrets hidden): not yet, its summary (what a log line shows), or all of it. */
export type Sealed = 0 | 1 | 2;
const NOT_SEALED: Sealed = 0;
const SUMMARY: Sealed = 1;
const WHOLE: Sealed = 2;

/** Seals an entry (hides its secrets) from how far it was sealed to how far it is asked to be. */
export type Seal = (e: JournalEntry, to: Sealed, from: Sealed) => void;

/** Bodies are kept in the journal up to this many characters. */
export const JOURNAL_BODY_CHARS = 8192;
/** Default size of the journal ring. */
export const DEFAULT_JOURNAL_SIZE = 1000;

/**
 * The request journal, an observer of "answered": a ring of the last `size` records, and a live feed of each new
 * one, sealed, for those who show traffic to people (the dashboard's event stream, the command line's log lines).
 */
export class Journal {
  private readonly ring: (JournalEntry | undefined)[];
  private next = 0;
  private count = 0;
  /** The feed's listeners, each with how far it shows an entry. */
  private readonly listeners: Subscribers<JournalEntry, Subscriber<JournalEntry> & { level: Sealed }>;
  /**
   * For an API user whose own scenario was loaded (a binding, a claimed API user): the first seq of its current
   * scenario. Its journal, asked for by API user, starts there, as the whole journal starts afresh on a load.
   */
  private readonly fromSeq = new Map<string, number>();

  /** How far a new entry is sealed before the listeners are told of it: the most any listener shows. */
  private feedLevel: Sealed = NOT_SEALED;

  /** How far the entry in each slot has been sealed. */
  private readonly sealed: Uint8Array;

  /**
   * Takes in the answers the event it observes has not told yet (answered-events.ts tells its observers after the
   * answers of a turn are written).
   */
  private settleEvents: () => void = () => {};

  /**
   * `seal` makes an entry fit to be shown (the simulator hides secrets with it), as far as asked: its summary (what
   * a log line shows) or all of it. It runs once per entry and part, when the entry is first read or sent to a
   * listener, never for an entry nobody reads: under load with no one watching, recording costs next to nothing.
   */
  constructor(
    readonly size = DEFAULT_JOURNAL_SIZE,
    private readonly seal: Seal = () => {},
    /** Where a listener's failure is recorded (it never fails the request it reports). */
    failures?: ObserverFailures,
  ) {
    this.listeners = new Subscribers(failures);
    this.ring = new Array<JournalEntry | undefined>(Math.max(1, size));
    this.sealed = new Uint8Array(this.ring.length);
  }

  /** Keeps every answered request from now on. */
  observe(events: AnsweredEvents): () => void {
    this.settleEvents = events.settle;
    return events.subscribe('journal', ({ record }) => this.add(record));
  }

  add(e: JournalEntry): void {
    const slot = this.next;
    this.ring[slot] = e;
    this.sealed[slot] = 0;
    this.next = (this.next + 1) % this.ring.length;
    if (this.count < this.ring.length) this.count++;
    // Stryker disable next-line ConditionalExpression: with no listener, the seal and the telling below do nothing
    if (this.listeners.all.length === 0) return;
    this.sealSlot(slot, this.feedLevel);
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

  /**
   * Takes in the answers not told yet: called first by everything that reads or changes what the journal holds, and
   * before the process exits (their log lines are in the last batch).
   */
  settle(): void {
    this.settleEvents();
  }

  /** Entries, newest first. */
  entries(): JournalEntry[] {
    this.settle();
    const out: JournalEntry[] = [];
    for (let i = 1; i <= this.count; i++) {
      const slot = (this.next - i + this.ring.length) % this.ring.length;
      this.sealSlot(slot, WHOLE);
      out.push(this.ring[slot] as JournalEntry);
    }
    return out;
  }

  /** Seals every entry not sealed yet (before the simulator stops holding a secret an entry may carry). */
  sealAll(): void {
    this.settle();
    for (let i = 1; i <= this.count; i++) this.sealSlot((this.next - i + this.ring.length) % this.ring.length, WHOLE);
  }

  private sealSlot(slot: number, to: Sealed): void {
    const from = this.sealed[slot] as Sealed;
    if (from >= to) return;
    this.seal(this.ring[slot] as JournalEntry, to, from);
    this.sealed[slot] = to;
  }

  clear(): void {
    this.settle();
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
    this.settle();
    return this.count;
  }

  /**
   * Calls `fn` with every new entry until the returned function is called; `summary: true` when it shows only the
   * entry's summary (a log line), so that headers and bodies need not be sealed for it; `name` names it when it fails.
   */
  subscribe(
    fn: (e: JournalEntry) => void,
    { summary = false, name = 'journal feed' }: { summary?: boolean; name?: string } = {},
  ): () => void {
    this.settle();
    const leave = this.listeners.add({ fn, name, level: summary ? SUMMARY : WHOLE });
    this.feedLevel = this.mostSealed();
    return () => {
      leave();
      this.feedLevel = this.mostSealed();
    };
  }

  private mostSealed(): Sealed {
    let level: Sealed = NOT_SEALED;
    // Stryker disable next-line EqualityOperator: taking an equal level again leaves the most the same
    for (const l of this.listeners.all) if (l.level > level) level = l.level;
    return level;
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
