import { describe, expect, it } from 'vitest';
import { RecentMap } from '../src/world/recent-map.js';
import { RecentNumbers } from '../src/world/recent-numbers.js';

// The doctor's memories of 53-bit hashes (envelope ids, nonces that failed in transit): RecentMap's behaviour in
// typed arrays, checked against RecentMap itself.
describe('a map of the most recently set integer keys, in typed arrays', () => {
  it('forgets the oldest key once max were set after it; a key set again is the newest', () => {
    const m = new RecentNumbers(3);
    expect(m.swap(10, 1)).toBeUndefined();
    expect(m.swap(20, 2)).toBeUndefined();
    expect(m.swap(10, 3)).toBe(1);
    m.set(30, 4);
    expect([m.get(10), m.get(20), m.get(30), m.size]).toEqual([3, 2, 4, 3]);
    m.set(40, 5);
    // 20 was the oldest: 10 was set again after it.
    expect([m.get(20), m.get(10), m.get(40), m.size]).toEqual([undefined, 3, 5, 3]);
    m.set(50, 6);
    expect([m.get(10), m.get(30), m.get(50)]).toEqual([undefined, 4, 6]);
  });

  it('keeps 0 and keys up to 2^53 apart, and clear starts over', () => {
    const m = new RecentNumbers(4);
    m.set(0, 7);
    m.set(2 ** 53 - 1, 8);
    m.set(2 ** 32, 9);
    expect([m.get(0), m.get(2 ** 53 - 1), m.get(2 ** 32), m.get(1), m.get(2 ** 53 - 2)]).toEqual([
      7,
      8,
      9,
      undefined,
      undefined,
    ]);
    m.clear();
    expect([m.size, m.get(0), m.get(2 ** 32)]).toEqual([0, undefined, undefined]);
    m.set(5, 1);
    expect([m.size, m.get(5)]).toEqual([1, 1]);
  });

  it('holds max distinct keys and still answers for a key it lacks', () => {
    for (const max of [16, 64]) {
      const m = new RecentNumbers(max);
      for (let i = 0; i < max * 3; i++) m.set(i * 7919 + 1, i);
      expect([m.size, m.get(1), m.get((max * 3 - 1) * 7919 + 1), m.get(2)]).toEqual([
        max,
        undefined,
        max * 3 - 1,
        undefined,
      ]);
    }
  });

  it('answers as RecentMap does through many evictions, keys set again, and colliding probes', () => {
    for (const max of [1, 2, 7, 64, 300]) {
      const typed = new RecentNumbers(max);
      const reference = new RecentMap<number, number>(max);
      let seed = 11;
      for (let i = 0; i < 5_000; i++) {
        // A 32-bit LCG in integer arithmetic (a product past 2^53 would lose bits and cycle early).
        seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
        // Few distinct keys (many set again) and keys that differ only above 32 bits (probes that collide).
        const key = (seed >>> 20) % 3 === 0 ? (seed >>> 4) % (max * 2 + 3) : ((seed >>> 9) % 50) * 2 ** 33;
        const want = reference.get(key);
        expect(typed.swap(key, i)).toBe(want);
        reference.set(key, i);
        expect(typed.size).toBe(reference.size);
        const probe = (seed >>> 7) % (max * 2 + 3);
        expect(typed.get(probe)).toBe(reference.get(probe));
      }
      for (const [key, value] of reference) expect(typed.get(key)).toBe(value);
    }
  });
});
