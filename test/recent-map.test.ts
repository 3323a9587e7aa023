import { describe, expect, it } from 'vitest';
import { RecentMap } from '../src/world/recent-map.js';

// The bounded memory of the doctor and the explorer (first uses, ids, challenges followed, signing times).
describe('a map of the most recently set keys', () => {
  it('forgets the oldest key when more than max were set, and iterates oldest first', () => {
    const m = new RecentMap<string, number>(3);
    for (const [i, k] of ['a', 'b', 'c'].entries()) m.set(k, i);
    expect([...m]).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
    m.set('d', 3);
    expect([...m.values()]).toEqual([1, 2, 3]);
    expect([m.has('a'), m.get('a'), m.size]).toEqual([false, undefined, 3]);
  });

  it('a key set again is the newest, and is not forgotten when its old turn comes', () => {
    const m = new RecentMap<string, number>(3);
    m.set('a', 1);
    m.set('b', 2);
    m.set('a', 3);
    expect([...m]).toEqual([
      ['b', 2],
      ['a', 3],
    ]);
    m.set('c', 4);
    expect([...m]).toEqual([
      ['b', 2],
      ['a', 3],
      ['c', 4],
    ]);
    m.set('d', 5);
    expect([...m]).toEqual([
      ['a', 3],
      ['c', 4],
      ['d', 5],
    ]);
    m.set('e', 6);
    expect([...m]).toEqual([
      ['c', 4],
      ['d', 5],
      ['e', 6],
    ]);
  });

  it('a deleted key frees nothing early and is not brought back; clear starts over', () => {
    const m = new RecentMap<number, string>(2);
    m.set(1, 'x');
    m.set(2, 'y');
    expect(m.delete(1)).toBe(true);
    expect(m.delete(1)).toBe(false);
    m.set(3, 'z');
    expect([...m]).toEqual([
      [2, 'y'],
      [3, 'z'],
    ]);
    m.clear();
    expect([m.size, [...m]]).toEqual([0, []]);
    m.set(4, 'w');
    m.set(5, 'v');
    expect([...m.values()]).toEqual(['w', 'v']);
  });

  it('never holds more than max, however keys come and go', () => {
    const m = new RecentMap<number, number>(50);
    let seed = 7;
    for (let i = 0; i < 5_000; i++) {
      // A 32-bit LCG in integer arithmetic, its high bits used: a product past 2^53 loses bits, and an LCG's low bits
      // cycle early (the one written here before gave 28 keys of 120, so the map never filled).
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      const key = (seed >>> 8) % 120;
      if ((seed >>> 16) % 5 === 0) m.delete(key);
      else m.set(key, i);
      expect(m.size).toBeLessThanOrEqual(50);
    }
    // The last key set is always there, with its last value.
    m.set(999, -1);
    expect(m.get(999)).toBe(-1);
  });
});
