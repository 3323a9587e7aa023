/** One request as the simulator saw and answered it. Never holds a secret. */
export interface JournalEntry {
  /** 1, 2, 3, ... per simulator; also the `id` of answers to callers that sent none (`sim-<seq>`). */
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
  /** auth: log: every authentication check that would have failed. */
  wouldFail?: { code: number; reason: string }[];
  /** A bug of the simulator's that was answered -5000. */
  internalError?: string;
  request: { headers: Record<string, string | string[] | undefined>; body: string };
  response?: { body: string };
}

/** Bodies are kept in the journal up to this many characters. */
export const JOURNAL_BODY_CHARS = 8192;
/** Default size of the journal ring. */
export const DEFAULT_JOURNAL_SIZE = 1000;

/**
 * The request journal: a ring of the last `size` entries, with listeners (the dashboard's live log, the
 * CLI's log lines) told of each new entry.
 */
export class Journal {
  private readonly ring: (JournalEntry | undefined)[];
  private next = 0;
  private count = 0;
  private readonly listeners = new Set<(e: JournalEntry) => void>();

  /** Whether the entry in each slot has been sealed yet. */
  private readonly sealed: Uint8Array;

  /**
   * `seal` makes an entry fit to be shown (the simulator hides secrets with it). It runs once per entry, when the
   * entry is first read or sent to a listener, never for an entry nobody reads: under load with no one watching,
   * recording a request costs next to nothing.
   */
  constructor(
    readonly size = DEFAULT_JOURNAL_SIZE,
    private readonly seal: (e: JournalEntry) => void = () => {},
  ) {
    this.ring = new Array(Math.max(1, size));
    this.sealed = new Uint8Array(this.ring.length);
  }

  add(e: JournalEntry): void {
    const slot = this.next;
    this.ring[slot] = e;
    this.sealed[slot] = 0;
    this.next = (this.next + 1) % this.ring.length;
    if (this.count < this.ring.length) this.count++;
    if (this.listeners.size === 0) return;
    this.sealSlot(slot);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A listener's failure must not fail the request it reports.
      }
    }
  }

  /** Entries, newest first. */
  entries(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = 1; i <= this.count; i++) {
      const slot = (this.next - i + this.ring.length) % this.ring.length;
      this.sealSlot(slot);
      out.push(this.ring[slot] as JournalEntry);
    }
    return out;
  }

  /** Seals every entry not sealed yet (before the simulator stops holding a secret an entry may carry). */
  sealAll(): void {
    for (let i = 1; i <= this.count; i++) this.sealSlot((this.next - i + this.ring.length) % this.ring.length);
  }

  private sealSlot(slot: number): void {
    if (this.sealed[slot]) return;
    this.seal(this.ring[slot] as JournalEntry);
    this.sealed[slot] = 1;
  }

  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.count = 0;
  }

  get length(): number {
    return this.count;
  }

  /** Calls `fn` with every new entry until the returned function is called. */
  subscribe(fn: (e: JournalEntry) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

/** A string cut to the journal's limit, saying how much was cut (of `length` characters in all, when it was cut before). */
export function clip(s: string, max = JOURNAL_BODY_CHARS, length = s.length): string {
  return s.length <= max && length <= max ? s : `${s.slice(0, max)}… (${length - Math.min(max, s.length)} more characters)`;
}
