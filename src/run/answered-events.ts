import type { JournalEntry, Caller } from './answered.js';
import type { ObserverFailures } from './failures.js';

export interface Answered {
  record: JournalEntry;
  /** Whether the answer counts as one the service gave. */
  counts: boolean;
  caller: Caller;
}

/** Subscribers of traffic, each with a name, told of each value in the order they subscribed. */
export class Subscribers<T> {
  private list: readonly { name: string; fn: (value: T) => void }[] = [];

  /** Where a subscriber's failure is recorded (none: it is only kept from the others). */
  constructor(protected readonly failures?: ObserverFailures) {}

  /** Adds `fn`; returns the function that takes it off (once; calling it again changes nothing). */
  subscribe(name: string, fn: (value: T) => void): () => void {
    const s = { name, fn };
    this.list = [...this.list, s];
    return () => {
      this.list = this.list.filter((x) => x !== s);
    };
  }

  get size(): number {
    return this.list.length;
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

/** The subscribers of "answered". */
export class AnsweredEvents extends Subscribers<Answered> {
  constructor(failures: ObserverFailures) {
    super(failures);
  }

  /** Tells every observer of request `seq`, with the event `make` makes. */
  emit(seq: number, make: () => Answered): void {
    let event: Answered;
    try {
      event = make();
    } catch (e) {
      this.failures!.record('record', e, seq);
      return;
    }
    this.tell(event, seq);
  }
}
