import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator } from './helpers.js';

describe('the challenge store', () => {
  it('keeps the newest maxChallenges challenges and forgets the oldest, in the order they were made', async () => {
    const sim = await simulator({ maxChallenges: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) });
      ids.push(JSON.parse(expectEnvelope(r, 202, 2025).message).challengeId);
    }
    const codes: number[] = [];
    for (const id of ids)
      codes.push((await send(sim, '/v1/svc/status', { body: lookupEnvelope(sim.apiUser.id, 171, id) })).json.code);
    // Forgotten ones are unknown (-3087); the three newest still wait for the user (-3091).
    expect(codes).toEqual([-3087, -3087, -3087, -3087, -3091, -3091, -3091]);
    expect(sim.challenges().map((c) => c.id)).toEqual(ids.slice(4).reverse());
  });
});
