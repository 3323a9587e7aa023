import { createHash, randomBytes } from 'node:crypto';

/**
 * What the simulated service reads of the machine it runs on: the time, a monotonic time, random bytes. Alone, a
 * simulator reads the machine's own. Replicas sharing a store (simulator/replicas.ts) apply every change on every
 * replica: while one is applied, these read what the replica that took the change read, so every replica decides it
 * alike.
 */
interface Readings {
  /** Epoch ms. */
  time: number;
  /** Monotonic ms, on a scale shared by the replicas (epoch ms with a fraction). */
  mono: number;
  /** Random bytes are drawn from this seed (hashed with a counter): unguessable, and the same on every replica. */
  seed: Buffer;
}

let pinned: (Readings & { drawn: number }) | undefined;

export const machine = {
  time: (): number => pinned?.time ?? Date.now(),
  mono: (): number => pinned?.mono ?? performance.timeOrigin + performance.now(),
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
