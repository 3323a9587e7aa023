import type { AnsweredRequest, Caller } from './answered.js';
import type { ObserverFailures } from './failures.js';
import { Subscribers } from './subscribers.js';

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
