/**
 * A map that keeps only the most recently set keys: once `max` keys have been set since a key was, that key is
 * forgotten. The doctor's memories (first uses of nonces, ids a client sent, challenges it follows) and the
 * explorer's signing times are bounded this way, and written on every request.
 *
 * Why not a Map and "delete its first key": a Map leaves a hole where a key was deleted until it next rehashes, and
 * finding its first key walks past every hole before it. Deleting the oldest key on every request then costs time
 * in proportion to the bound (some 30 µs a request for 10,000 keys). Here the keys are also written in a ring, and
 * the key in the slot a new one takes is the oldest: constant time.
 */
export class RecentMap<K, V> implements Iterable<[K, V]> {
  /** Each value with the slot of `order` its key was last set in. */
  private readonly entries = new Map<K, { value: V; slot: number }>();
  private readonly order: (K | undefined)[];
  private nextSlot = 0;

  constructor(readonly max: number) {
    this.order = new Array<K | undefined>(Math.max(1, max)).fill(undefined);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets the key as the newest (set again, it counts again), forgetting the oldest once `max` were set after it. */
  set(key: K, value: V): void {
    const slot = this.nextSlot;
    const oldest = this.order[slot];
    // The key written in this slot goes, unless it was deleted or set again since (it then lives in a later slot).
    if (oldest !== undefined && this.entries.get(oldest)?.slot === slot) this.entries.delete(oldest);
    this.order[slot] = key;
    this.nextSlot = (slot + 1) % this.order.length;
    // Deleted first so that iteration, too, goes from the oldest to the newest.
    this.entries.delete(key);
    this.entries.set(key, { value, slot });
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.order.fill(undefined);
    this.nextSlot = 0;
  }

  /** Oldest first. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, e] of this.entries) yield [key, e.value];
  }

  *values(): IterableIterator<V> {
    for (const e of this.entries.values()) yield e.value;
  }
}
