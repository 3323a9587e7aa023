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

export class ObserverFailures {
  private readonly byObserver = new Map<string, ObserverFailure>();
  private readonly listeners = new Set<(f: ObserverFailure) => void>();

  /** An observer threw while told of request `seq`. Never throws itself. */
  record(observer: string, error: unknown, seq: number): void {
    const message = errorText(error);
    let f = this.byObserver.get(observer);
    if (f) {
      f.count++;
      f.message = message;
      f.lastSeq = seq;
    } else {
      f = { observer, count: 1, message, firstSeq: seq, lastSeq: seq };
      this.byObserver.set(observer, f);
    }
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

  get count(): number {
    let n = 0;
    for (const f of this.byObserver.values()) n += f.count;
    return n;
  }

  clear(): void {
    this.byObserver.clear();
  }
}
