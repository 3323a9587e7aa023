import { errorText } from '../output/error-text.js';

/** One observer's failures, however often. */
export interface ObserverFailure {
  /** Which observer failed: `coverage`, `findings`, `journal`, `log`, `events`, ... */
  observer: string;
  count: number;
  message: string;
  /** The request (journal seq) it failed on first and last. */
  firstSeq: number;
  lastSeq: number;
}

type Counted = { count: number; lastSeq: number };

/** One more request that showed a row (a failure, a finding, a hint) under `key`; a new row from `make`. */
export function count<T extends Counted>(rows: Map<string, T>, key: string, seq: number, make: () => T): T {
  const row = rows.get(key);
  if (!row) return rows.set(key, make()).get(key)!;
  row.count++;
  row.lastSeq = seq;
  return row;
}

export class ObserverFailures {
  private readonly byObserver = new Map<string, ObserverFailure>();
  private readonly listeners = new Set<(f: ObserverFailure) => void>();

  /** An observer threw while told of request `seq`. Never throws itself. */
  record(observer: string, error: unknown, seq: number): void {
    const message = errorText(error);
    const first = { observer, count: 1, message, firstSeq: seq, lastSeq: seq };
    const f = count(this.byObserver, observer, seq, () => first);
    f.message = message;
    for (const listener of this.listeners) {
      try {
        listener({ ...f });
      } catch {
        // Whoever is told of a failure must not fail the request either.
      }
    }
  }

  /** Calls `fn` with each failure from now on; returns the function that stops it. */
  onFailure(fn: (f: ObserverFailure) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  list(): ObserverFailure[] {
    return [...this.byObserver.values()].map((f) => ({ ...f }));
  }

  clear(): void {
    this.byObserver.clear();
  }

  /** The failures as plain data, in the order first seen. */
  state(): ObserverFailure[] {
    return this.list();
  }

  restore(failures: ObserverFailure[]): void {
    this.clear();
    for (const f of failures) this.byObserver.set(f.observer, { ...f });
  }
}
