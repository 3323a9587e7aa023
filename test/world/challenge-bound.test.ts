import { describe, expect, it } from 'vitest';
import { Challenges } from '../../src/world/challenges.js';
import { RandomSource } from '../../src/world/random.js';
import { challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator } from '../helpers.js';

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

  it('a challenge kept again under an id it holds keeps its place: it is forgotten once, in its turn', () => {
    // Ids repeat only if the random source does: this one gives a, a, b, c.
    const ids = ['a', 'a', 'b', 'c'];
    const random = Object.assign(new RandomSource(1), { uuid: () => ids.shift()! });
    const store = new Challenges(random, 2);
    const body = { user: 'u@example.com', challengeType: 'UserKeyAndPattern', expiry: 'FiveMins', expiryMs: 300_000 };
    const make = () => store.make('123456789', body as Parameters<Challenges['make']>[1], 0, 0);
    const [first, again] = [make(), make()];
    store.add(first);
    store.add(again);
    store.add(make());
    expect(store.list().map((c) => c.id)).toEqual(['b', 'a']);
    expect(store.get('a', 0)).toBe(again);
    store.add(make());
    expect(store.list().map((c) => c.id)).toEqual(['c', 'b']);
  });
});
