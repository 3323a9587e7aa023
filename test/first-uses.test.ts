import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  failedInTransit,
  FIRST_USES_KEPT,
  FirstUses,
  nonceReuseHint,
  timeReuseHint,
} from '../src/doctor/first-uses.js';
import { expectEnvelope, send, simulator } from './helpers.js';

// The memory behind "this nonce was used before, by request n": the client-findings and signature-doctor suites show
// its stories through HTTP; here, its bound (a ring of the last accepted requests) on its own, with a small ring, the
// hints it gives word for word, and, through HTTP, a time reused on both sides of a second.
const use = (seq: number) => ({ seq, at: 1_000 * seq, arrived: seq, http: 200, code: 15000 });

describe('the first uses of nonces and times', () => {
  it('keeps the last 10,000 accepted requests by default', () => {
    const f = new FirstUses();
    for (let i = 0; i < 10_001; i++) f.note('900000001', `n-${i}`, i, use(i));
    expect(FIRST_USES_KEPT).toBe(10_000);
    expect(f.ofNonce('900000001', 'n-0')).toBeUndefined();
    expect(f.ofTime('900000001', 0)).toBeUndefined();
    expect(f.ofNonce('900000001', 'n-1')?.seq).toBe(1);
    expect(f.ofTime('900000001', 1)?.seq).toBe(1);
    expect(f.ofNonce('900000001', 'n-10000')?.seq).toBe(10_000);
    expect(f.ofTime('900000001', 10_000)?.seq).toBe(10_000);
  });

  it('forgets the oldest request when a new one comes, its nonce and time together', () => {
    const f = new FirstUses(2);
    f.note('u', 'a', 1, use(1));
    f.note('u', 'b', 2, use(2));
    expect([f.ofNonce('u', 'a')?.seq, f.ofTime('u', 1)?.seq, f.ofNonce('u', 'b')?.seq, f.ofTime('u', 2)?.seq]).toEqual([
      1, 1, 2, 2,
    ]);
    // A request whose nonce is not remembered (nonce replay checks off) still has its time.
    f.note('u', undefined, 3, use(3));
    expect([f.ofNonce('u', 'a'), f.ofTime('u', 1)]).toEqual([undefined, undefined]);
    expect([f.ofNonce('u', 'b')?.seq, f.ofTime('u', 3)?.seq]).toEqual([2, 3]);
    f.note('u', 'c', 4, use(4));
    expect([f.ofNonce('u', 'b'), f.ofTime('u', 2)]).toEqual([undefined, undefined]);
    expect([f.ofTime('u', 3)?.seq, f.ofNonce('u', 'c')?.seq, f.ofTime('u', 4)?.seq]).toEqual([3, 4, 4]);
  });

  it('uses are per API user; a nonce or time used again is told by its newest use', () => {
    const f = new FirstUses(6);
    f.note('u', 'a', 1, use(1));
    f.note('v', 'a', 1, use(2));
    expect([f.ofNonce('u', 'a')?.seq, f.ofNonce('v', 'a')?.seq, f.ofTime('u', 1)?.seq, f.ofTime('v', 1)?.seq]).toEqual([
      1, 2, 1, 2,
    ]);
    expect([f.ofNonce('w', 'a'), f.ofTime('w', 1), f.ofNonce('u', 'b'), f.ofTime('u', 2)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // Accepted again once the replay memory let it go (past the drift window): the newer use tells the story.
    f.note('u', 'a', 1, use(3));
    expect([f.ofNonce('u', 'a')?.seq, f.ofTime('u', 1)?.seq, f.ofNonce('v', 'a')?.seq]).toEqual([3, 3, 2]);
  });

  it('the newest use wins also when the ring has gone round and the older one sits after it', () => {
    const f = new FirstUses(4);
    f.note('u', 'p', 1, use(1));
    f.note('u', 'a', 2, use(2));
    f.note('u', 'q', 3, use(3));
    f.note('u', 'r', 4, use(4));
    // Round again: slot 0 now holds the newer use of "a" and 2; the older one is still in slot 1.
    f.note('u', 'a', 2, use(5));
    expect([f.ofNonce('u', 'a')?.seq, f.ofTime('u', 2)?.seq]).toEqual([5, 5]);
    expect([f.ofNonce('u', 'p'), f.ofNonce('u', 'r')?.seq]).toEqual([undefined, 4]);
  });

  it("one API user's uses are forgotten with its scenario's start, the others' kept; clear forgets everything", () => {
    const f = new FirstUses(8);
    f.note('u', 'a', 1, use(1));
    f.note('v', 'a', 1, { ...use(2), http: 202, code: 2025 });
    f.note('u', 'b', 2, use(3));
    f.forgetApiUser('u');
    expect([f.ofNonce('u', 'a'), f.ofNonce('u', 'b'), f.ofTime('u', 2)]).toEqual([undefined, undefined, undefined]);
    expect(f.ofNonce('v', 'a')).toEqual({ seq: 2, at: 2000, arrived: 2, http: 202, code: 2025 });
    f.clear();
    expect([f.ofNonce('v', 'a'), f.ofTime('v', 1)]).toEqual([undefined, undefined]);
    for (let i = 0; i < 8; i++) f.note('u', undefined, 100 + i, use(i));
    expect(f.ofTime('u', 100)?.seq).toBe(0);
  });
});

describe('the hints of a replay, from the first use', () => {
  it('a failure of the network or the server (HTTP 500 and above) is one a client retries; 499 and a success are not', () => {
    expect(
      [{ fault: 'reset' }, { http: 500 }, { http: 503 }, { http: 499 }, { http: 200 }, {}].map(failedInTransit),
    ).toEqual([true, true, true, false, false, false]);
  });

  it('a first use forgotten, answered, failed', () => {
    expect(nonceReuseHint(undefined)).toEqual({
      id: 'nonce-reused',
      text: 'an earlier accepted request used this nonce: make a new nonce (a UUID) for every request',
    });
    expect(timeReuseHint(undefined, 5)).toEqual({
      id: 'time-reused',
      text: 'an earlier accepted request was signed with this time: sign every request with the time it is sent',
    });
    const at = Date.UTC(2026, 0, 15, 12, 34, 56, 789);
    expect(nonceReuseHint({ seq: 4, at, arrived: 0, http: 200, code: 15000 }).text).toBe(
      'request 4 used this nonce first (at 12:34:56.789, answered HTTP 200 (15000)): make a new nonce for every request',
    );
    expect(nonceReuseHint({ seq: 4, at, arrived: 0, http: 500, code: -5000 })).toEqual({
      id: 'retry-not-resigned',
      text: 'request 4 used this nonce and got HTTP 500 (-5000): a retry must be signed again, with a new nonce and time',
    });
    expect(nonceReuseHint({ seq: 4, at, arrived: 0, http: 200, code: 15000, fault: 'garbage' }).text).toBe(
      'request 4 used this nonce and got a network fault (garbage): a retry must be signed again, with a new nonce and time',
    );
    expect(timeReuseHint({ seq: 4, at, arrived: 1000, http: 200, code: 15000 }, 1999).id).toBe('same-millisecond');
    expect(timeReuseHint({ seq: 4, at, arrived: 1000, http: 200, code: 15000 }, 2000)).toEqual({
      id: 'time-reused',
      text: 'request 4 was signed with this time 1 s earlier: sign every request, retries included, with the time it is sent',
    });
  });
});

// At its edge: reused a second or more after its first use (a replay, with how long ago) or less than a second after
// it.
const EDGE = { apiUser: '123456789', secret: 'first-use-secret' };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the first use of a time at its edge', async () => {
  const sim = await simulator({ name: 'first-use-edges', apiUsers: [{ id: EDGE.apiUser, secret: EDGE.secret }] });
  const time = (t: number, nonce = randomUUID()) =>
    send(sim, '/v1/svc/time', { method: 'GET', as: EDGE, time: t, nonce });

  it('a time reused: within a second, two requests signed together; a second or more later, a replay with how long ago', async () => {
    const t = sim.simulator.now() + 10;
    expectEnvelope(await time(t), 200, 15000);
    const seq = sim.journal({ limit: 1 })[0].seq;
    expect(expectEnvelope(await time(t), 400, -4035).message).toContain(
      `Hint: request ${seq} was signed in the same millisecond: two requests signed in one millisecond collide`,
    );
    await pause(1100);
    expect(expectEnvelope(await time(t), 400, -4035).message).toMatch(
      new RegExp(
        `Hint: request ${seq} was signed with this time 1 s earlier: sign every request, retries included, with the time it is sent$`,
      ),
    );
  });
});
