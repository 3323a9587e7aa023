import { describe, expect, it } from 'vitest';
import { FIRST_USES_KEPT, FirstUses } from '../src/doctor/first-uses.js';
import type { Answered } from '../src/observers/answered.js';

// The memory behind "this nonce was used before, by request n": the client-findings and signature-doctor suites
// show its stories through HTTP; here, its bound (a ring of the most recent keys) on its own, with a small ring.
const use = (seq: number) => ({ seq, at: 1_000 * seq, arrived: seq });
const answered = (seq: number, http: number, code: number) => ({ record: { seq, http, code } }) as unknown as Answered;

describe('the first uses of nonces and times', () => {
  it('keeps 10,000 keys by default: the uses of the last 5,000 requests with a nonce', () => {
    const f = new FirstUses();
    for (let i = 0; i < 5_001; i++) f.note('900000001', `n-${i}`, i, use(i));
    expect(FIRST_USES_KEPT).toBe(10_000);
    expect(f.ofNonce('900000001', 'n-0')).toBeUndefined();
    expect(f.ofTime('900000001', 0)).toBeUndefined();
    expect(f.ofNonce('900000001', 'n-1')?.seq).toBe(1);
    expect(f.ofTime('900000001', 5_000)?.seq).toBe(5_000);
  });

  it('forgets the oldest key when a new one comes, one for one', () => {
    const f = new FirstUses(4);
    f.note('u', 'a', 1, use(1));
    f.note('u', 'b', 2, use(2));
    expect([f.ofNonce('u', 'a')?.seq, f.ofTime('u', 1)?.seq, f.ofNonce('u', 'b')?.seq, f.ofTime('u', 2)?.seq]).toEqual([1, 1, 2, 2]);
    f.note('u', undefined, 3, use(3));
    expect(f.ofNonce('u', 'a')).toBeUndefined();
    expect(f.ofTime('u', 1)?.seq).toBe(1);
    f.note('u', 'c', 4, use(4));
    expect([f.ofTime('u', 1), f.ofNonce('u', 'b')]).toEqual([undefined, undefined]);
    expect([f.ofTime('u', 2)?.seq, f.ofTime('u', 3)?.seq, f.ofNonce('u', 'c')?.seq, f.ofTime('u', 4)?.seq]).toEqual([2, 3, 4, 4]);
  });

  it('keys are per API user, and a key taken back and noted again lives its whole new turn', () => {
    const f = new FirstUses(6);
    f.note('u', 'a', 1, use(1));
    f.note('v', 'a', 1, use(2));
    expect([f.ofNonce('u', 'a')?.seq, f.ofNonce('v', 'a')?.seq]).toEqual([1, 2]);
    f.forget('u', 'a', 1);
    expect([f.ofNonce('u', 'a'), f.ofTime('u', 1)]).toEqual([undefined, undefined]);
    f.note('u', 'a', 1, use(3));
    // The two slots the first "a" and 1 were written in come round again: they are no longer theirs.
    f.note('w', undefined, 9, use(4));
    f.note('w', undefined, 10, use(5));
    f.note('w', undefined, 11, use(6));
    expect([f.ofNonce('u', 'a')?.seq, f.ofTime('u', 1)?.seq]).toEqual([3, 3]);
    expect(f.ofNonce('v', 'a')).toBeUndefined();
    expect(f.ofTime('w', 9)?.seq).toBe(4);
  });

  it('settles the answer of the request just noted, and only that one; clear forgets everything', () => {
    const f = new FirstUses(8);
    f.note('u', 'a', 1, use(1));
    f.settle(answered(2, 500, -5000));
    expect(f.ofNonce('u', 'a')).toEqual(use(1));
    f.settle(answered(1, 202, 2025));
    expect(f.ofNonce('u', 'a')).toMatchObject({ seq: 1, http: 202, code: 2025 });
    f.settle(answered(1, 400, -4034));
    expect(f.ofTime('u', 1)).toMatchObject({ http: 202, code: 2025 });
    f.clear();
    expect([f.ofNonce('u', 'a'), f.ofTime('u', 1)]).toEqual([undefined, undefined]);
    for (let i = 0; i < 8; i++) f.note('u', undefined, 100 + i, use(i));
    expect(f.ofTime('u', 100)?.seq).toBe(0);
  });
});
