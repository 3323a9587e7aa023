/**
 * Replay memory (docs/behaviour.md#time-drift-and-replay): the nonces and timestamps one API user sent inside the drift
 * window, each with the request that used it first, kept until its time leaves the window (after that the drift check
 * refuses a replay anyway).
 */

/** Default cap of remembered nonces and times per API user, whatever the drift window: memory stays bounded. */
export const DEFAULT_REPLAY_CAP = 500_000;

/** The request that used a nonce or time first, and how it was answered: the story a -4034 or -4035 tells. */
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

/** A first use, and the instant (simulator time) after which it is forgotten. */
export type Remembered = FirstUse & { until: number };

/**
 * What one API user has sent inside the drift window: each nonce and `x-utctime` value with its first use. Past the
 * cap (nonces and times together), the entries remembered first are forgotten first.
 */
export class ReplayMemory {
  private readonly nonces = new Map<string, Remembered>();
  private readonly times = new Map<number, Remembered>();
  /** Entries are swept for expiry once the memory has doubled since the last sweep: O(1) a request on average. */
  private sweepAt = 1024;

  constructor(private readonly cap: number = DEFAULT_REPLAY_CAP) {}

  /** The first use of a nonce still remembered at `now`, if any. */
  nonce(nonce: string, now: number): FirstUse | undefined {
    return live(this.nonces.get(nonce), now);
  }

  /** The first use of an x-utctime value still remembered at `now`, if any. */
  time(time: number, now: number): FirstUse | undefined {
    return live(this.times.get(time), now);
  }

  /** Remembers an accepted request's nonce and time (each undefined when its check is off) until `entry.until`. */
  remember(nonce: string | undefined, time: number | undefined, entry: Remembered, now: number): void {
    if (nonce !== undefined) this.nonces.set(nonce, entry);
    if (time !== undefined) this.times.set(time, entry);
    while (this.size > this.cap) {
      if (this.nonces.size >= this.times.size) this.nonces.delete(this.nonces.keys().next().value!);
      else this.times.delete(this.times.keys().next().value!);
    }
    if (this.size >= this.sweepAt) this.sweep(now);
  }

  /** Entries remembered (nonces plus times), the expired ones not yet swept included. */
  get size(): number {
    return this.nonces.size + this.times.size;
  }

  /** Forgets what has expired at `now`. */
  sweep(now: number): void {
    for (const map of [this.nonces, this.times] as Map<unknown, Remembered>[])
      for (const [key, entry] of map) if (entry.until < now) map.delete(key);
    this.sweepAt = Math.max(1024, this.size * 2);
  }
}

/** An entry as long as it is remembered: the instant its time leaves the drift window still counts. */
function live(entry: Remembered | undefined, now: number): FirstUse | undefined {
  return entry !== undefined && entry.until >= now ? entry : undefined;
}
