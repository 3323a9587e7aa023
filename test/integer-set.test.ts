import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntegerSet, hash53 } from '../src/auth/integer-set.js';

/**
 * The replay memory's hash set of integers: it must behave exactly as a Set of the same keys under any sequence of
 * additions and look-ups (0 and keys near 2^53 included), and grow at 70% full. Nothing is ever deleted from it.
 */

type Op = { add: number } | { has: number };

function agreesWithSet(keys: fc.Arbitrary<number>, small: boolean) {
  const op = fc.oneof(
    keys.map((k): Op => ({ add: k })),
    keys.map((k): Op => ({ has: k })),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 400 }), fc.integer({ min: 1, max: 64 }), (ops, capacity) => {
      const ours = new IntegerSet(capacity, small);
      const model = new Set<number>();
      for (const o of ops) {
        if ('add' in o) {
          ours.add(o.add);
          model.add(o.add);
        } else expect(ours.has(o.has)).toBe(model.has(o.has));
        expect(ours.size).toBe(model.size);
      }
      for (const k of model) expect(ours.has(k)).toBe(true);
    }),
    { numRuns: 300 },
  );
}

describe('IntegerSet', () => {
  it('agrees with a Set, for few keys (many collisions and re-additions) and 0', () => {
    agreesWithSet(fc.integer({ min: 0, max: 40 }), false);
    agreesWithSet(fc.integer({ min: 0, max: 40 }), true);
  });

  it('agrees with a Set across the whole range of its keys: below 2^53, and below 2^31 when small', () => {
    agreesWithSet(
      fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constantFrom(2 ** 31 - 1, 2 ** 31 - 2, 1)),
      true,
    );
    agreesWithSet(
      fc.oneof(
        fc.maxSafeInteger().filter((n) => n >= 0),
        fc.constantFrom(2 ** 53 - 1, 2 ** 32, 2 ** 32 + 1, 4294967295),
      ),
      false,
    );
  });

  it('its table is a power of two of at least 16 slots, 8 bytes each, or 4 when small', () => {
    expect(new IntegerSet(1).bytes).toBe(16 * 8);
    expect(new IntegerSet(16).bytes).toBe(16 * 8);
    expect(new IntegerSet(17).bytes).toBe(32 * 8);
    expect(new IntegerSet(256).bytes).toBe(256 * 8);
    expect(new IntegerSet(257).bytes).toBe(512 * 8);
    expect(new IntegerSet(256, true).bytes).toBe(256 * 4);
  });

  it('grows when an addition would make it more than 70% full, doubling', () => {
    const set = new IntegerSet(16);
    for (let k = 1; k <= 11; k++) set.add(k);
    expect(set.bytes).toBe(16 * 8);
    set.add(12);
    expect(set.bytes).toBe(32 * 8);
    // Adding a key already there takes no room.
    for (let k = 1; k <= 12; k++) set.add(k);
    expect(set.size).toBe(12);
    const big = new IntegerSet(16);
    for (let k = 1; k <= 1000; k++) big.add(k * 7919);
    // 1000 keys at most 70% full: 2048 slots.
    expect(big.bytes).toBe(2048 * 8);
    expect(big.size).toBe(1000);
  });

  it('0 is a key like any other, kept beside the table', () => {
    const set = new IntegerSet();
    expect(set.has(0)).toBe(false);
    set.add(0);
    expect(set.has(0)).toBe(true);
    expect(set.size).toBe(1);
    set.add(0);
    expect(set.size).toBe(1);
    expect(set.bytes).toBe(256 * 8);
  });
});

describe('hash53', () => {
  it('is a whole number from 0 to below 2^53, the same for the same string and seed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 0, max: 0x7fffffff }), (s, seed) => {
        const h = hash53(s, seed);
        expect(Number.isSafeInteger(h) && h >= 0).toBe(true);
        expect(hash53(s, seed)).toBe(h);
      }),
    );
  });

  it('tells apart nonces that differ in one character, in their order, or in the seed', () => {
    const hashes = new Set<number>();
    for (let i = 0; i < 10_000; i++) hashes.add(hash53(`nonce-${i}`, 1));
    expect(hashes.size).toBe(10_000);
    expect(hash53('ab', 1)).not.toBe(hash53('ba', 1));
    expect(hash53('nonce', 1)).not.toBe(hash53('nonce', 2));
    expect(hash53('', 1)).not.toBe(hash53('', 2));
    // The high part is used: over many strings, some hashes are at or above 2^32.
    expect([...hashes].some((h) => h >= 2 ** 32)).toBe(true);
  });
});
