import { createHash, randomBytes } from 'node:crypto';
import { ControlError } from '../contract/errors.js';
import { clampInstant, INSTANT_WORDS, isInstantInRange } from '../contract/response.js';
import { LIMITS } from '../contract/time-limits.js';

/** Where a clock stands: its base when stopped (null running), its shift from real time, its scenario's offset. */
export interface ClockState {
  frozenBase: number | null;
  shift: number;
  offsetMs: number;
}

/** The simulator's virtual clock: the only reader of the machine's time, within the range time-limits.ts sets. */
export class VirtualClock {
  private frozenBase: number | undefined;
  private shift = 0;
  /** The active scenario's offset (ms), which simulator time adds to the base. */
  private offsetMs = 0;
  private readonly moved = new Watchers<void>();

  constructor(private readonly realNow: () => number = machine.time) {}

  /** Calls `fn` after every move of the clock, until the function it returns is called. */
  onMove(fn: () => void): () => void {
    return this.moved.add(fn);
  }

  /** The base instant (without any scenario offset), in epoch ms. */
  base(): number {
    return this.frozenBase ?? this.realNow() + this.shift;
  }

  /** Simulator time now, under the active scenario. */
  now(): number {
    return this.at(this.offsetMs);
  }

  /** Simulator time now under another scenario's offset (a bound or picked one), kept within the clock's range. */
  at(offset: number): number {
    return clampInstant(this.base() + offset);
  }

  get frozen(): boolean {
    return this.frozenBase !== undefined;
  }

  /** Stops the clock at simulator time `at` when given, else where it stands. */
  freeze(at?: number): void {
    if (at !== undefined && !isInstantInRange(at))
      throw new ControlError(400, `the clock cannot stop at ${at}: it must stay ${INSTANT_WORDS}`);
    this.frozenBase = at === undefined ? this.now() - this.offsetMs : at - this.offsetMs;
    this.moved.tell();
  }

  /** Lets the clock run again from where it stands. */
  unfreeze(): void {
    if (this.frozenBase === undefined) return;
    this.shift = this.frozenBase - this.realNow();
    this.frozenBase = undefined;
    this.moved.tell();
  }

  /** Moves the clock by `ms` (negative moves it back), frozen or not. */
  advance(ms: number): void {
    if (!(ms >= LIMITS.advance.min && ms <= LIMITS.advance.max))
      throw new ControlError(400, `one move of the clock must be ${LIMITS.advance.words}`);
    const to = this.base() + this.offsetMs + ms;
    if (!isInstantInRange(to))
      throw new ControlError(400, `the clock would leave its range: it must stay ${INSTANT_WORDS}`);
    if (this.frozenBase !== undefined) this.frozenBase += ms;
    else this.shift += ms;
    this.moved.tell();
  }

  /** Shows the same base time as another clock, running or stopped, each under its own offset. */
  follow(other: VirtualClock): void {
    this.frozenBase = other.frozenBase;
    this.shift = other.shift;
  }

  state(): ClockState {
    return { frozenBase: this.frozenBase ?? null, shift: this.shift, offsetMs: this.offsetMs };
  }

  /** Stands where a clock stood (its watchers are not told: nothing moved for them). */
  restore(state: ClockState): void {
    this.frozenBase = state.frozenBase ?? undefined;
    this.shift = state.shift;
    this.offsetMs = state.offsetMs;
  }

  /** Back to real time, running, under a scenario's offset; or stopped with its base at `frozenAt`. */
  reset(offset: number, frozenAt?: number): void {
    this.offsetMs = offset;
    this.shift = 0;
    this.frozenBase = frozenAt;
    this.moved.tell();
  }
}

/** Those who follow something as it changes; one that throws fails neither the change nor the watchers after it. */
export class Watchers<T> {
  private readonly watchers = new Set<(value: T) => void>();

  /** Calls `watcher` with every change from now on; returns how to stop. */
  add(watcher: (value: T) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  tell(value: T): void {
    for (const watcher of this.watchers) {
      try {
        watcher(value);
      } catch {
        // A watcher's failure is its own.
      }
    }
  }
}

/**
 * What the simulated service reads of the machine it runs on: the time, a monotonic time, random bytes. Alone, a
 * simulator reads the machine's own. Replicas sharing a store (simulator/replicas.ts) apply every change on every
 * replica: while one is applied, these read what the replica that took the change read, so every replica decides it
 * alike.
 */
interface Readings {
  /** Epoch ms. */
  time: number;
  /** Monotonic ms, on a scale the replicas share (epoch ms with a fraction). */
  mono: number;
  /** Random bytes are drawn from this seed (hashed with a counter): unguessable, and the same on every replica. */
  seed: Buffer;
}

let pinned: (Readings & { drawn: number }) | undefined;

export const machine = {
  time: (): number => pinned?.time ?? Date.now(),
  /** Alone, this process's `performance.now()`; applying a change, the taker's on the replicas' shared scale. */
  mono: (): number => pinned?.mono ?? performance.now(),
  bytes(n: number): Buffer {
    if (!pinned) return randomBytes(n);
    const out = Buffer.alloc(n);
    for (let at = 0; at < n; at += 32) {
      const block = createHash('sha256').update(pinned.seed).update(String(pinned.drawn++)).digest();
      block.copy(out, at, 0, Math.min(32, n - at));
    }
    return out;
  },
  /** What this machine reads now, for a change to be applied with. */
  read: (): Readings => ({ time: Date.now(), mono: performance.timeOrigin + performance.now(), seed: randomBytes(16) }),
  /** Runs `fn` (synchronous) with the machine read as `readings` said. */
  as<T>(readings: Readings, fn: () => T): T {
    const before = pinned;
    pinned = { ...readings, drawn: 0 };
    try {
      return fn();
    } finally {
      pinned = before;
    }
  },
};

export type { Readings };
