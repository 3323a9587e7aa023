import { slotOf } from '../auth/integer-set.js';

/**
 * A map from integer keys (0 to 2^53, the doctor's 53-bit hashes of values clients chose) to numbers (request seqs)
 * that keeps only the most recently set keys: once `max` keys have been set since a key was, that key is forgotten.
 * What `RecentMap` does, without a JavaScript Map: the keys and values live in a ring of two Float64Arrays and are
 * found through an open-addressing table of ring slots in an Int32Array. Setting a key allocates nothing, where a Map
 * of 53-bit keys boxes each key as a heap number (which the collector must then follow); the doctor sets one on every
 * request that sends an envelope id.
 */
export class RecentNumbers {
  private readonly keys: Float64Array;
  private readonly values: Float64Array;
  /** Whether each slot of the ring holds a key (a key may be 0, so an empty slot cannot be told by its key). */
  private readonly live: Uint8Array;
  /** Open addressing with linear probing: each entry is a ring slot plus one; 0 is empty. At most half full. */
  private readonly table: Int32Array;
  private readonly mask: number;
  private nextSlot = 0;
  private count = 0;

  constructor(readonly max: number) {
    const ring = Math.max(1, max);
    this.keys = new Float64Array(ring);
    this.values = new Float64Array(ring);
    this.live = new Uint8Array(ring);
    let size = 16;
    while (size < ring * 2) size *= 2;
    this.table = new Int32Array(size);
    this.mask = size - 1;
  }

  get size(): number {
    return this.count;
  }

  get(key: number): number | undefined {
    const at = this.find(key);
    return at < 0 ? undefined : this.values[this.table[at] - 1];
  }

  /** Sets the key as the newest (set again, it counts again) and gives the value it had, if it was there. */
  swap(key: number, value: number): number | undefined {
    const at = this.find(key);
    let before: number | undefined;
    if (at >= 0) {
      const slot = this.table[at] - 1;
      before = this.values[slot];
      this.live[slot] = 0;
      this.remove(at);
    }
    const slot = this.nextSlot;
    // The key in the slot the new one takes is the oldest: it goes.
    if (this.live[slot] === 1) this.remove(this.find(this.keys[slot]));
    this.keys[slot] = key;
    this.values[slot] = value;
    this.live[slot] = 1;
    this.nextSlot = (slot + 1) % this.keys.length;
    let i = slotOf(key) & this.mask;
    while (this.table[i] !== 0) i = (i + 1) & this.mask;
    this.table[i] = slot + 1;
    this.count++;
    return before;
  }

  set(key: number, value: number): void {
    this.swap(key, value);
  }

  clear(): void {
    this.live.fill(0);
    this.table.fill(0);
    this.count = 0;
  }

  /** The table entry that leads to the key's slot, or -1. */
  private find(key: number): number {
    const table = this.table;
    let i = slotOf(key) & this.mask;
    for (;;) {
      const entry = table[i];
      if (entry === 0) return -1;
      if (this.keys[entry - 1] === key) return i;
      i = (i + 1) & this.mask;
    }
  }

  /**
   * Empties a table entry, moving back the entries after it that probed past it (deletion without tombstones, so a
   * table set on every request never fills with them).
   */
  private remove(at: number): void {
    const table = this.table;
    const mask = this.mask;
    this.count--;
    let hole = at;
    let i = at;
    for (;;) {
      i = (i + 1) & mask;
      const entry = table[i];
      if (entry === 0) break;
      const home = slotOf(this.keys[entry - 1]) & mask;
      // The entry may fill the hole when its home is not in the cyclic range (hole, i].
      if (hole <= i ? home <= hole || home > i : home <= hole && home > i) {
        table[hole] = entry;
        hole = i;
      }
    }
    table[hole] = 0;
  }
}
