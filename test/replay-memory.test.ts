import { describe, expect, it } from 'vitest';
import { ReplayMemory } from '../src/auth/replay.js';

/**
 * The replay memory of one API user (docs/behaviour.md#time-drift-and-replay): a nonce or a time is remembered until
 * its time leaves the drift window, then forgotten a generation at a time; a forced error can take back what one
 * request stored; past its cap the generation that expires first goes early.
 */
describe('ReplayMemory', () => {
  it('remembers a request until its time plus the window, rounded up to a slice, and not one millisecond more', () => {
    const memory = new ReplayMemory(1000);
    memory.remember('nonce-one', 5000, 300, true);
    // 5000 + 300 lies in the slice [5000, 6000): remembered until 6000.
    expect(memory.hasNonce('nonce-one', 5999)).toBe(true);
    expect(memory.hasTime(5000, 5999)).toBe(true);
    expect(memory.hasNonce('nonce-one', 6000)).toBe(false);
    expect(memory.hasTime(5000, 6000)).toBe(false);
    expect(memory.size).toBe(0);
  });

  it('tells one time and one nonce from their neighbours', () => {
    const memory = new ReplayMemory(1000);
    memory.remember('nonce-one', 5000, 300, true);
    expect(memory.hasTime(4999, 5100)).toBe(false);
    expect(memory.hasTime(5001, 5100)).toBe(false);
    expect(memory.hasNonce('nonce-onf', 5100)).toBe(false);
    expect(memory.hasNonce('nonce-one', 5100)).toBe(true);
  });

  it('keeps a time in its generation up to the last millisecond of the slice (window 0)', () => {
    const memory = new ReplayMemory(1000);
    memory.remember(undefined, 1999, 0, true);
    expect(memory.hasTime(1999, 1500)).toBe(true);
    memory.remember(undefined, 2000, 0, true);
    expect(memory.hasTime(2000, 1500)).toBe(true);
    expect(memory.size).toBe(2);
  });

  it('finds what it remembers in any generation', () => {
    const memory = new ReplayMemory(100);
    for (let t = 0; t < 1000; t += 50) memory.remember(`nonce-${t}`, t, 1000, true);
    for (let t = 0; t < 1000; t += 50) {
      expect(memory.hasNonce(`nonce-${t}`, 900)).toBe(true);
      expect(memory.hasTime(t, 900)).toBe(true);
    }
    expect(memory.hasTime(25, 900)).toBe(false);
  });

  it('remembers only the parts asked for, and counts what it holds', () => {
    const memory = new ReplayMemory(1000);
    memory.remember('nonce-a', 100, 500, false);
    expect(memory.size).toBe(1);
    expect(memory.hasTime(100, 200)).toBe(false);
    memory.remember(undefined, 101, 500, true);
    expect(memory.size).toBe(2);
    expect(memory.hasTime(101, 200)).toBe(true);
    memory.remember('nonce-b', 102, 500, true);
    expect(memory.size).toBe(4);
  });

  it('past its cap, forgets the generation that expires first', () => {
    const memory = new ReplayMemory(1000, 3);
    memory.remember('old', 100, 0, true);
    memory.remember('new', 5100, 0, true);
    expect(memory.hasNonce('old', 200)).toBe(false);
    expect(memory.hasNonce('new', 200)).toBe(true);
    expect(memory.size).toBe(2);
    // The generation that expires first, whatever the order the generations were made in.
    const late = new ReplayMemory(1000, 3);
    late.remember('new', 5100, 0, true);
    late.remember('old', 100, 0, true);
    expect(late.hasNonce('old', 200)).toBe(false);
    expect(late.hasNonce('new', 200)).toBe(true);
    const roomy = new ReplayMemory(1000, 4);
    roomy.remember('old', 100, 0, true);
    roomy.remember('new', 5100, 0, true);
    expect(roomy.hasNonce('old', 200)).toBe(true);
  });

  it('its bytes are those of its tables: 2 KiB of nonces and 1 KiB of times a generation', () => {
    const memory = new ReplayMemory(1000);
    expect(memory.bytes).toBe(0);
    memory.remember('a-nonce', 100, 0, true);
    expect(memory.bytes).toBe(3072);
    memory.remember('b-nonce', 1100, 0, true);
    expect(memory.bytes).toBe(6144);
  });
});
