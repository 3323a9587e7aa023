import { hash53 } from '../auth/integer-set.js';
import type { Hint } from './hint.js';

/**
 * Which request first used a nonce or a time, so that a -4034 or -4035 can say when and by which request (the replay
 * memory keeps only hashes, as small as it can). Bounded: the last requests the replay checks accepted, by default
 * 10,000; an older first use is still refused by the replay memory, only without the story.
 */

/** A request that used a nonce or time first, and how it was answered. */
export interface FirstUse {
  seq: number;
  /** Simulator time of the request (ms). */
  at: number;
  /** This machine's monotonic time when it arrived (ms), to tell requests sent together from a replay. */
  arrived: number;
  http: number;
  code: number;
  fault?: string;
}

export const FIRST_USES_KEPT = 10_000;

/**
 * Nonces are kept by a 53-bit hash, as the replay memory keeps them (the replay memory's own hashes are seeded apart).
 */
const NONCE_SEED = 0x6e6f6e;

/**
 * The last `kept` accepted requests in a ring, each with its API user, nonce and time. Noting one is a few writes
 * into arrays: every accepted request is noted, while the story is asked for only when a request is refused as a
 * replay, which then reads the ring from the newest request back (a map of each nonce and time, written on every
 * request, took about an eighth of a signed request's CPU). The uses are kept as numbers in typed arrays too, not as
 * an object per request: ten thousand objects each living for ten thousand requests would all be moved to the old
 * generation and collected there, the costliest way for a heap to hold them.
 */
export class FirstUses {
  private readonly apiUsers: (string | undefined)[];
  /** The nonce's hash, or NaN when the request's nonce is not remembered (nonce replay checks off). */
  private readonly nonces: Float64Array;
  private readonly times: Float64Array;
  /** Each use's seq, at and arrived; its HTTP status and code; its fault, if any (rare). */
  private readonly seqs: Float64Array;
  private readonly ats: Float64Array;
  private readonly arrivals: Float64Array;
  private readonly statuses: Int32Array;
  private readonly codes: Int32Array;
  private readonly faults: (string | undefined)[];
  private next = 0;

  constructor(kept = FIRST_USES_KEPT) {
    const size = Math.max(1, kept);
    this.apiUsers = new Array<string | undefined>(size).fill(undefined);
    this.nonces = new Float64Array(size).fill(NaN);
    this.times = new Float64Array(size);
    this.seqs = new Float64Array(size);
    this.ats = new Float64Array(size);
    this.arrivals = new Float64Array(size);
    this.statuses = new Int32Array(size);
    this.codes = new Int32Array(size);
    this.faults = new Array<string | undefined>(size).fill(undefined);
  }

  /** A request accepted by the replay checks was answered: it is the first use of its nonce and time. */
  note(apiUser: string, nonce: string | undefined, time: number, use: FirstUse): void {
    const slot = this.next;
    this.apiUsers[slot] = apiUser;
    this.nonces[slot] = nonce === undefined ? NaN : hash53(nonce, NONCE_SEED);
    this.times[slot] = time;
    this.seqs[slot] = use.seq;
    this.ats[slot] = use.at;
    this.arrivals[slot] = use.arrived;
    this.statuses[slot] = use.http;
    this.codes[slot] = use.code;
    this.faults[slot] = use.fault;
    this.next = (slot + 1) % this.apiUsers.length;
  }

  ofNonce(apiUser: string, nonce: string): FirstUse | undefined {
    return this.newest(this.nonces, hash53(nonce, NONCE_SEED), apiUser);
  }

  ofTime(apiUser: string, time: number): FirstUse | undefined {
    return this.newest(this.times, time, apiUser);
  }

  /**
   * The use of the newest request of this API user whose nonce hash or time (`keys`) is `key`: the keys are read
   * first, in a tight loop over a typed array, so that a refusal reads the whole ring in a few microseconds.
   */
  private newest(keys: Float64Array, key: number, apiUser: string): FirstUse | undefined {
    // Newest first: from the slot before `next` down to the start, then from the end down to `next`.
    for (let slot = this.next - 1; slot >= 0; slot--)
      if (keys[slot] === key && this.apiUsers[slot] === apiUser) return this.use(slot);
    for (let slot = keys.length - 1; slot >= this.next; slot--)
      if (keys[slot] === key && this.apiUsers[slot] === apiUser) return this.use(slot);
    return undefined;
  }

  private use(slot: number): FirstUse {
    const use: FirstUse = {
      seq: this.seqs[slot],
      at: this.ats[slot],
      arrived: this.arrivals[slot],
      http: this.statuses[slot],
      code: this.codes[slot],
    };
    const fault = this.faults[slot];
    if (fault !== undefined) use.fault = fault;
    return use;
  }

  /** Forgets one API user's first uses (its replay memory was forgotten with its own scenario's start). */
  forgetApiUser(apiUser: string): void {
    for (let slot = 0; slot < this.apiUsers.length; slot++) if (this.apiUsers[slot] === apiUser) this.forget(slot);
  }

  clear(): void {
    // Filled whole rather than slot by slot: a simulator clears its 10,000 slots as it starts.
    this.apiUsers.fill(undefined);
    this.nonces.fill(NaN);
    this.faults.fill(undefined);
    this.next = 0;
  }

  private forget(slot: number): void {
    this.apiUsers[slot] = undefined;
    this.nonces[slot] = NaN;
    this.faults[slot] = undefined;
  }
}

/** A failure of the network or of the server: a client retries such a request, and must sign the retry again. */
export function failedInTransit(use: { http?: number; fault?: string }): boolean {
  return use.fault !== undefined || (use.http !== undefined && use.http >= 500);
}

/** The answer a first use got (once it has one). */
function outcomeOf(use: FirstUse): string {
  return use.fault !== undefined ? `a network fault (${use.fault})` : `HTTP ${use.http} (${use.code})`;
}

const clockOf = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/** -4034: when and by which request the nonce was first used, and what to do. */
export function nonceReuseHint(first: FirstUse | undefined): Hint {
  if (!first)
    return {
      id: 'nonce-reused',
      text: 'an earlier accepted request used this nonce: make a new nonce (a UUID) for every request',
    };
  if (failedInTransit(first)) {
    return {
      id: 'retry-not-resigned',
      text: `request ${first.seq} used this nonce and got ${outcomeOf(first)}: a retry must be signed again, with a new nonce and time`,
    };
  }
  return {
    id: 'nonce-reused',
    text: `request ${first.seq} used this nonce first (at ${clockOf(first.at)}, answered ${outcomeOf(first)}): make a new nonce for every request`,
  };
}

/**
 * -4035: the request that used the time first; whether the two were sent together (the same millisecond) or this is a
 * replay.
 */
export function timeReuseHint(first: FirstUse | undefined, arrived: number): Hint {
  if (!first)
    return {
      id: 'time-reused',
      text: 'an earlier accepted request was signed with this time: sign every request with the time it is sent',
    };
  const apart = arrived - first.arrived;
  if (apart < 1000) {
    return {
      id: 'same-millisecond',
      text: `request ${first.seq} was signed in the same millisecond: two requests signed in one millisecond collide; give each its own time (keep the last time used and add 1 ms)`,
    };
  }
  return {
    id: 'time-reused',
    text: `request ${first.seq} was signed with this time ${Math.round(apart / 1000)} s earlier: sign every request, retries included, with the time it is sent`,
  };
}
