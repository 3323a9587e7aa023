import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { failedInTransit, nonceReuseHint, timeReuseHint } from '../../src/doctor/doctor.js';
import { expectEnvelope, send, simulator } from '../helpers.js';

// "This nonce was used before, by request n": the client-findings and signature-doctor suites show these stories
// through HTTP; here, the hints word for word, and, through HTTP, a time reused on both sides of a second.

describe('the stories of a nonce or time used again', () => {
  it('a failure of the network or the server (HTTP 500 and above) is one a client retries; 499 and a success are not', () => {
    expect(
      [{ fault: 'reset' }, { http: 500 }, { http: 503 }, { http: 499 }, { http: 200 }, {}].map(failedInTransit),
    ).toEqual([true, true, true, false, false, false]);
  });

  it('a first use answered, failed in transit, or sent in the same millisecond', () => {
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
