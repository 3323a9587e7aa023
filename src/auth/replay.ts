// Replay memory (docs/behaviour.md#time-drift-and-replay): kept until its time leaves the drift window.

/** Default cap of remembered nonces and times per API user. */
export const DEFAULT_REPLAY_CAP = 500_000;

/** The request that used a nonce or time first, and how it was answered (told by -4034 and -4035). */
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

/** One API user's replay memory as plain data: nonces and times in the order remembered, and when it sweeps next. */
export interface ReplayState {
  nonces: [string, Remembered][];
  times: [number, Remembered][];
  sweepAt: number;
}

/**
 * One API user's nonces and times inside the drift window; past the cap, the oldest are forgotten first
 * (docs/behaviour.md#time-drift-and-replay).
 */
export class ReplayMemory {
  private readonly nonces = new Map<string, Remembered>();
  private readonly times = new Map<number, Remembered>();
  /** Swept once the memory has doubled since the last sweep. */
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

  state(): ReplayState {
    return { nonces: [...this.nonces], times: [...this.times], sweepAt: this.sweepAt };
  }

  restore(state: ReplayState): void {
    this.nonces.clear();
    this.times.clear();
    for (const [nonce, entry] of state.nonces) this.nonces.set(nonce, entry);
    for (const [time, entry] of state.times) this.times.set(time, entry);
    this.sweepAt = state.sweepAt;
  }

  sweep(now: number): void {
    for (const map of [this.nonces, this.times] as Map<unknown, Remembered>[])
      for (const [key, entry] of map) if (entry.until < now) map.delete(key);
    this.sweepAt = Math.max(1024, this.size * 2);
  }
}

/** An entry until it expires (the instant it leaves the window still counts). */
function live(entry: Remembered | undefined, now: number): FirstUse | undefined {
  return entry !== undefined && entry.until >= now ? entry : undefined;
}
