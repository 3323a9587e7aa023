/**
 * A compact hash set of integers for the replay memory, where an integer key starts its probe (also for the doctor's
 * RecentNumbers), and the keyed string hash nonces are remembered by.
 */

/**
 * A set of non-negative integers below 2^53, stored in a Float64Array with open addressing: 8 bytes a slot,
 * at most 70% full; with `small`, keys must be below 2^31 and a slot is 4 bytes of an Int32Array. Nothing is
 * deleted: a request's effects are committed only once it is answered (request/commit.ts), and whole sets are dropped
 * at once when their entries expire (see ReplayMemory). A JavaScript Set of such numbers costs about five times as
 * much memory.
 */
export class IntegerSet {
  private slots: Float64Array | Int32Array;
  private readonly Slots: typeof Float64Array | typeof Int32Array;
  private mask: number;
  private count = 0;
  private hasZero = false;

  constructor(capacity = 256, small = false) {
    let size = 16;
    while (size < capacity) size *= 2;
    this.Slots = small ? Int32Array : Float64Array;
    this.slots = new this.Slots(size);
    this.mask = size - 1;
  }

  get size(): number {
    return this.count + (this.hasZero ? 1 : 0);
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.slots.byteLength;
  }

  has(key: number): boolean {
    if (key === 0) return this.hasZero;
    const slots = this.slots;
    let i = slotOf(key) & this.mask;
    for (;;) {
      const k = slots[i];
      if (k === key) return true;
      if (k === 0) return false;
      i = (i + 1) & this.mask;
    }
  }

  add(key: number): void {
    if (key === 0) {
      this.hasZero = true;
      return;
    }
    // Stryker disable next-line EqualityOperator: 7 times a power of two is never a multiple of 10, so > and >= agree
    if ((this.count + 1) * 10 > this.slots.length * 7) this.rehash(this.slots.length * 2);
    if (insert(this.slots, this.mask, key)) this.count++;
  }

  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new this.Slots(size);
    this.mask = size - 1;
    // Equivalent mutants: inserting 0 (the empty slot) adds nothing, and undefined (read past the end) takes a slot
    // no key ever equals; has() and add() answer the same either way.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: no key added or lost
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) insert(this.slots, this.mask, old[i]);
  }
}

function insert(slots: Float64Array | Int32Array, mask: number, key: number): boolean {
  let i = slotOf(key) & mask;
  for (;;) {
    const k = slots[i];
    if (k === key) return false;
    if (k === 0) {
      slots[i] = key;
      return true;
    }
    i = (i + 1) & mask;
  }
}

// Where a key starts its probe only spreads the keys: from any start every key is still found (a cost, no behaviour).
// Stryker disable next-line all: a probe's start
export function slotOf(key: number): number {
  const lo = key >>> 0;
  // Stryker disable next-line ArithmeticOperator: the high bits only spread the keys across slots
  const hi = (key / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A 53-bit hash of a string (cyrb53, public domain), keyed by a seed. Nonces are remembered by this hash:
 * two different nonces of one API user collide with odds of about n²/2^54 (1 in 18,000 for a million
 * nonces inside one drift window).
 */
export function hash53(str: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  // Equivalent mutant: one round more gives another hash, as deterministic, and every set is built and read with it.
  // Stryker disable next-line EqualityOperator: another deterministic hash
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
