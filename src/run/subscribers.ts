import type { ObserverFailures } from './failures.js';

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
