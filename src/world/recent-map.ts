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
  /**
   * Each key with the slot of the ring it was last set in; its value is in `valueIn` at that slot. A number per key,
   * no object: a map set on every request allocates nothing for it.
   */
  private readonly slots = new Map<K, number>();
  private readonly keys: (K | undefined)[];
  private readonly valueIn: (V | undefined)[];
  private nextSlot = 0;

  constructor(readonly max: number) {
    this.keys = new Array<K | undefined>(Math.max(1, max)).fill(undefined);
    // Stryker disable next-line ArrayDeclaration,MethodExpression: an array made shorter grows as its slots are written
    this.valueIn = new Array<V | undefined>(Math.max(1, max)).fill(undefined);
  }

  get size(): number {
    return this.slots.size;
  }

  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    // Stryker disable next-line ConditionalExpression: an array read at undefined gives undefined too
    return slot === undefined ? undefined : this.valueIn[slot];
  }

  has(key: K): boolean {
    return this.slots.has(key);
  }

  /** Sets the key as the newest (set again, it counts again), forgetting the oldest once `max` were set after it. */
  set(key: K, value: V): void {
    const slot = this.nextSlot;
    const oldest = this.keys[slot];
    // The key written in this slot goes, unless it was deleted or set again since (it then lives in a later slot).
    // Stryker disable next-line ConditionalExpression: no key maps to a slot at undefined
    if (oldest !== undefined && this.slots.get(oldest) === slot) this.slots.delete(oldest);
    // Deleted first so that iteration, too, goes from the oldest to the newest; its old slot lets its value go.
    const before = this.slots.get(key);
    // Stryker disable next-line ConditionalExpression: deleting a key not there changes nothing
    if (before !== undefined) {
      this.slots.delete(key);
      this.valueIn[before] = undefined;
    }
    this.keys[slot] = key;
    this.valueIn[slot] = value;
    // Stryker disable next-line ArithmeticOperator: going round backwards (-0 is 0) keeps the same ring
    this.nextSlot = (slot + 1) % this.keys.length;
    this.slots.set(key, slot);
  }

  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    this.slots.delete(key);
    this.valueIn[slot] = undefined;
    return true;
  }

  clear(): void {
    this.slots.clear();
    this.keys.fill(undefined);
    this.valueIn.fill(undefined);
    this.nextSlot = 0;
  }

  /** Oldest first. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, slot] of this.slots) yield [key, this.valueIn[slot] as V];
  }

  *values(): IterableIterator<V> {
    for (const slot of this.slots.values()) yield this.valueIn[slot] as V;
  }
}
