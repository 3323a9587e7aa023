import type { Hint } from '../doctor/hint.js';
import type { Forwarding } from '../proxy/deviation.js';
import type { ObserverFailures } from './failures.js';
import { Subscribers } from './subscribers.js';

/**
 * The one event of the request path: "a request was answered", with the one record every observer of traffic
 * reads (the journal, coverage, and through the journal's feed the event stream and the log lines). The request
 * path emits it once per request; observers subscribe, so a new observer is one new file and no change to the path.
 */

/**
 * One request as the simulator saw and answered it. Stored as it came; sealed (every secret hidden) before anyone is
 * shown it.
 */
export interface AnsweredRequest {
  /**
   * 1, 2, 3, ... through the whole run (scenario loads do not start it again); also the `id` of answers to callers that
   * sent none (`sim-<seq>`).
   */
  seq: number;
  /** Simulator (virtual) time of the request, ISO 8601. */
  at: string;
  method: string;
  path: string;
  endpoint?: string;
  operation?: string;
  type?: number;
  apiUser?: string;
  user?: string;
  /** HTTP status and code answered (undefined when a fault broke the wire). */
  http?: number;
  code?: number;
  message?: string;
  latencyMs: number;
  /** The scenario the request ran under, and the rule that decided, if any. */
  scenario: string;
  rule?: string;
  fault?: string;
  challengeId?: string;
  /** For -4037: the exact string the simulator expected to be signed (it is not secret). */
  expectedStringToSign?: string;
  /** The client doctor's diagnosis of the refusal: the likely mistake and its fix (src/doctor/). */
  hint?: Hint;
  /** auth: log: every authentication check that would have failed, with the doctor's hint when it has one. */
  wouldFail?: { code: number; reason: string; hint?: Hint }[];
  /** A bug of the simulator's that was answered -5000. */
  internalError?: string;
  /** Sent by the simulator itself (the dashboard's explorer), not by a client: the client doctor does not count it. */
  by?: 'explorer';
  /**
   * The headers as sent, at most MAX_HEADERS_KEPT of them (`headersLeftOut` says how many more there were), and the
   * body.
   */
  request: { headers: Record<string, string | string[] | undefined>; body: string; headersLeftOut?: number };
  response?: { body: string };
  /** Proxy mode (src/proxy/): the request was forwarded; `http`, `code` and `response` are the upstream's answer. */
  upstream?: Forwarding;
}

/** The journal's name for the same record. */
export type JournalEntry = AnsweredRequest;

/**
 * How far a request showed who sent it: it named no API user the simulator knows (`unknown`), named one (`known`),
 * or also carried that API user's right signature (`signed`; every request is, under a scenario that does not verify
 * signatures). The client doctor watches only known API users, and reads what a request sent only when it was signed:
 * anyone can name an API user, and a forgery must not make findings or fill the doctor's memories.
 */
export type Caller = 'unknown' | 'known' | 'signed';

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
