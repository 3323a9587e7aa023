/**
 * The envelope's parts made once and shared by the answers after it (the time's message within a second, the last
 * message's and `moreInfo`'s JSON text) are each answer's own: across seconds of the clock, across codes, and across
 * simulators in one process with different base URLs.
 */
import { describe, expect, it } from 'vitest';
import { expectEnvelope, send, simulator } from '../helpers.js';

const AT = Date.parse('2031-05-06T07:08:09.000Z');

describe('what answers share is each answer’s own', async () => {
  const a = await simulator({ secret: 'memo-secret-a', replay: { timestamps: false } });
  const b = await simulator({ secret: 'memo-secret-b', replay: { timestamps: false } });
  const time = async (sim: typeof a) => expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);

  it("the time's message follows the clock second by second", async () => {
    a.freeze(AT);
    const seconds: string[] = [];
    for (const by of [0, 999, 1, 0, 60_000, -61_000]) {
      a.advance(by);
      seconds.push((JSON.parse((await time(a)).message) as { 'utc-time': string })['utc-time']);
    }
    const s = AT / 1000;
    expect(seconds).toEqual([s, s, s + 1, s + 1, s + 61, s].map(String));
    a.unfreeze();
  });

  it('answers of two simulators, interleaved, each link to their own base URL and carry their own message', async () => {
    // The same code from one simulator, then the other.
    for (const sim of [a, b, a]) expect((await time(sim)).moreInfo).toBe(`${sim.url}/status?code=15000`);
    for (let i = 0; i < 3; i++) {
      for (const sim of [a, b]) {
        expect((await time(sim)).moreInfo).toBe(`${sim.url}/status?code=15000`);
        const refused = expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: false }), 400, -4000);
        expect(refused.moreInfo).toBe(`${sim.url}/status?code=-4000`);
        expect(refused.message).toMatch(/^Authorization header missing/);
      }
    }
  });
});
