import type { AnsweredRequest, Caller } from './answered.js';
import type { ObserverFailures } from './failures.js';

export interface Answered {
  record: AnsweredRequest;
  /** Whether the answer counts as one the service gave. */
  counts: boolean;
  caller: Caller;
}

/** The subscribers of "answered", each with a name, called in the order they subscribed. */
export class AnsweredEvents {
  private readonly observers: Subscribers<Answered>;

  constructor(private readonly failures: ObserverFailures) {
    this.observers = new Subscribers(failures);
  }

  subscribe(name: string, observer: (event: Answered) => void): () => void {
    return this.observers.add({ name, fn: observer });
  }

  /** Tells every observer of request `seq`, with the event `make` makes. */
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

/** Subscribers of traffic, told of each value in the order they subscribed. */
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
