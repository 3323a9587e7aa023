import { setImmediate } from 'node:timers';
import type { ParsedJson } from '../contract/envelope.js';
import type { AnsweredRequest, Caller } from './answered.js';
import type { ObserverFailures } from './failures.js';
import { Subscribers } from './subscribers.js';

/**
 * The one event of the request path: "a request was answered", with the one record every observer of traffic
 * reads (answered.ts). The request path emits it once per request; observers subscribe, so a new observer is one new
 * file and no change to the path.
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
  /**
   * The request's body as the checks parsed it (strict JSON), when that parse was still at hand as the answer was
   * given: the client doctor reads the body after the turn's answers, when other bodies have been parsed since.
   */
  parsedBody?: ParsedJson;
}

/**
 * The subscribers of "answered", each with a name, called in the order they subscribed. One that throws never fails
 * the request it is told of, and never fails silently either: the failure is recorded under its name (failures.ts).
 *
 * The request path tells them after the answer is on the wire (`emitLater`): the answers of one turn of the event
 * loop are written first, and their observers are told together once the turn's answers are out (setImmediate),
 * as Fastify's onResponse hooks run after the response is sent. Under load that is a tenth more requests a second
 * (docs/performance.md): the observers' code runs over a batch while it is hot, and each answer leaves earlier.
 * Nothing can tell the difference: every reader of what the observers hold (the journal, the run's record) calls
 * `settle` first, and a request that comes after an answer is read in a later turn, after the batch.
 */
export class AnsweredEvents {
  private readonly observers: Subscribers<Answered>;
  /** Answers not told yet, in the order they were answered: each its seq and how to make its event. */
  private pending: { seq: number; event: () => Answered }[] = [];

  constructor(private readonly failures: ObserverFailures) {
    this.observers = new Subscribers(failures);
  }

  subscribe(name: string, observer: (event: Answered) => void): () => void {
    return this.observers.add({ name, fn: observer });
  }

  /** Tells every observer now, after the answers still waiting (so they are told in the order answered). */
  emit(event: Answered): void {
    this.settle();
    this.observers.tell(event, event.record.seq);
  }

  /**
   * Tells every observer of request `seq` once this turn's answers are written; `event` makes its record then (what
   * it reads of the request no longer changes).
   */
  emitLater(seq: number, event: () => Answered): void {
    this.pending.push({ seq, event });
    if (this.pending.length === 1) setImmediate(this.settle);
  }

  /** Tells the observers of every answer not told yet, in order. Called before anything reads what they hold. */
  readonly settle = (): void => {
    // Stryker disable next-line ConditionalExpression,BlockStatement: a fast way to do nothing (no list is made)
    if (this.pending.length === 0) return;
    // Taken whole first: a reader that settles while an observer is told finds nothing left to tell.
    const batch = this.pending;
    this.pending = [];
    for (const { seq, event } of batch) {
      let made: Answered;
      try {
        made = event();
      } catch (e) {
        // A record that cannot be made is a bug of the simulator's: no observer is told, and the run says so.
        this.failures.record('record', e, seq);
        continue;
      }
      this.observers.tell(made, seq);
    }
  };
}
