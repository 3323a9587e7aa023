import type { AnsweredRequest, Caller } from './answered.js';
import type { ObserverFailures } from './failures.js';

/**
 * The one event of the request path: "a request was answered", with the one record every observer of traffic
 * reads (answered.ts). The request path emits it once per request, synchronously, before the answer is written (as
 * MSW's lifecycle events are told); observers subscribe, so a new observer is one new file and no change to the path.
 */

/** What observers receive. */
export interface Answered {
  record: AnsweredRequest;
  /**
   * Whether the answer counts as one the service gave (a mistake of the test set-up, such as an unknown x-sim-scenario,
   * does not).
   */
  counts: boolean;
  caller: Caller;
}

/**
 * The subscribers of "answered", each with a name, called in the order they subscribed. One that throws never fails
 * the request it is told of, and never fails silently either: the failure is recorded under its name (failures.ts).
 */
export class AnsweredEvents {
  private readonly observers: Subscribers<Answered>;

  constructor(private readonly failures: ObserverFailures) {
    this.observers = new Subscribers(failures);
  }

  subscribe(name: string, observer: (event: Answered) => void): () => void {
    return this.observers.add({ name, fn: observer });
  }

  /**
   * Tells every observer of request `seq`, with the event `make` makes. A record that cannot be made is a bug of the
   * simulator's: no observer is told, and the run says so.
   */
  emit(seq: number, make: () => Answered): void {
    let event: Answered;
    try {
      event = make();
    } catch (e) {
      this.failures.record('record', e, seq);
      return;
    }
    this.observers.tell(event, seq);
  }
}

/** One subscriber: told of each value, and named for the record when it fails. */
export interface Subscriber<T> {
  name: string;
  fn: (value: T) => void;
}

/**
 * Subscribers of traffic, told of each value in the order they subscribed: the observers of "answered"
 * (answered-events.ts) and the journal's feed (journal.ts). One that throws never stops the others, nor the request:
 * the failure is recorded under its name (failures.ts).
 *
 * The list is replaced on each change, never changed in place: telling goes on over the list it began with, so one
 * that leaves, or makes another leave, while it is told changes who is told from the next value on. An array, not a
 * map: walking a map's entries makes an object for each on every request.
 */
export class Subscribers<T, S extends Subscriber<T> = Subscriber<T>> {
  private list: readonly S[] = [];

  /** Where a subscriber's failure is recorded (none: it is only kept from the others). */
  constructor(private readonly failures?: ObserverFailures) {}

  /** Adds `s`; returns the function that takes it off (once; calling it again changes nothing). */
  add(s: S): () => void {
    this.list = [...this.list, s];
    return () => {
      this.list = this.list.filter((x) => x !== s);
    };
  }

  get all(): readonly S[] {
    return this.list;
  }

  /** Tells each subscriber of `value`, the `seq` of the request it is about. */
  tell(value: T, seq: number): void {
    for (const { fn, name } of this.list) {
      try {
        fn(value);
      } catch (e) {
        // A subscriber's failure must not fail the request it is told of, nor go unseen.
        this.failures?.record(name, e, seq);
      }
    }
  }
}
