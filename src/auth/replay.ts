import { IntegerSet, hash53 } from './integer-set.js';

/**
 * Replay memory (docs/behaviour.md#time-drift-and-replay): the nonces and timestamps one API user sent inside the drift
 * window, bounded, forgotten by generation as they leave the window.
 */

/** Default hard cap of remembered requests per API user, whatever the drift window (issue: memory stays bounded). */
export const DEFAULT_REPLAY_CAP = 2_000_000;

interface Generation {
  /** Every entry in it expires by this instant (virtual ms). */
  until: number;
  nonces: IntegerSet;
  times: IntegerSet;
}

/**
 * What one API user has sent inside the drift window: nonces (by a 53-bit hash) and x-utctime values.
 * An entry is needed only until its timestamp leaves the drift window (after that the drift check
 * rejects a replay anyway), so entries live in generations by expiry and a whole generation is dropped
 * when it expires: memory is bounded by the requests of one drift window, about 20 bytes each.
 */
export class ReplayMemory {
  private generations = new Map<number, Generation>();

  constructor(
    private readonly sliceMs: number,
    private readonly cap: number = DEFAULT_REPLAY_CAP,
    /** Keeps these hashes apart from the doctor's (first-uses.ts). */
    private readonly seed = 0x5eed,
  ) {}

  /** Whether the nonce was sent before (and is still remembered). */
  hasNonce(nonce: string, now: number): boolean {
    this.expire(now);
    const key = hash53(nonce, this.seed);
    for (const g of this.generations.values()) if (g.nonces.has(key)) return true;
    return false;
  }

  /** Whether the x-utctime value was sent before (and is still remembered). */
  hasTime(time: number, now: number): boolean {
    this.expire(now);
    for (const g of this.generations.values()) {
      const key = timeKey(g, time);
      // Stryker disable next-line ConditionalExpression: has(undefined) is false
      if (key !== undefined && g.times.has(key)) return true;
    }
    return false;
  }

  /** Remembers an accepted request until `time + window`. Either part may be skipped (replay checks switched off). */
  remember(nonce: string | undefined, time: number, window: number, rememberTime: boolean): void {
    const index = Math.floor((time + window) / this.sliceMs);
    let g = this.generations.get(index);
    if (!g) {
      g = { until: (index + 1) * this.sliceMs, nonces: new IntegerSet(), times: new IntegerSet(256, true) };
      this.generations.set(index, g);
    }
    if (nonce !== undefined) g.nonces.add(hash53(nonce, this.seed));
    if (rememberTime) g.times.add(timeKey(g, time)!);
    if (this.size > this.cap) this.dropOldest();
  }

  /** Entries remembered now (nonces plus timestamps). */
  get size(): number {
    let n = 0;
    for (const g of this.generations.values()) n += g.nonces.size + g.times.size;
    return n;
  }

  /** Bytes held by the tables. */
  get bytes(): number {
    let n = 0;
    for (const g of this.generations.values()) n += g.nonces.bytes + g.times.bytes;
    return n;
  }

  private expire(now: number): void {
    for (const [index, g] of this.generations) if (g.until <= now) this.generations.delete(index);
  }

  /**
   * Past the cap, the generation that expires first is forgotten early: replay protection weakens for the oldest
   * requests only.
   */
  private dropOldest(): void {
    let oldest: number | undefined;
    // Stryker disable next-line EqualityOperator: a map's keys are distinct
    for (const index of this.generations.keys()) if (oldest === undefined || index < oldest) oldest = index;
    // Stryker disable next-line ConditionalExpression: deleting a key that is absent changes nothing
    if (oldest !== undefined) this.generations.delete(oldest);
  }
}

/**
 * A time as its generation stores it: milliseconds before the generation ends, 4 bytes instead of 8. A time
 * remembered in a generation lies within one drift window (at most 7 days) and one slice before its end, so
 * the key is from 1 to below 2^31; a time that cannot be in the generation has no key.
 */
function timeKey(g: Generation, time: number): number | undefined {
  const key = g.until - time;
  // Equivalent mutants: remember() stores only keys in range, and has() compares numbers exactly, so a key out of
  // range is never found, returned or not.
  // Stryker disable next-line all: a key out of range is never stored
  return key >= 1 && key < 2 ** 31 ? key : undefined;
}
