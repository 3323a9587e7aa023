import { describe, expect, it } from 'vitest';
import { Simulator } from '../../src/index.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * Class: a secret drawn from the seeded generator. `--seed` (option `seed`) makes the simulated world repeatable:
 * challenge ids, response ids, names, the QR image. It never makes what must not be guessed: the control token and
 * the default API user's secret come from the machine's crypto source whatever the seed, so one run's token or secret
 * opens no other run's simulator (the seed is 32 bits, and a seed is often written in a CI file).
 */

/** The ids of the first three challenges a simulator makes. */
async function challengeIds(seed: number): Promise<string[]> {
  const sim = await simulator({ seed });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) });
    ids.push((JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId);
  }
  await sim.close();
  return ids;
}

describe('the seed makes the world repeatable, never a secret', () => {
  it('two simulators with the same seed make different default secrets', () => {
    const secrets = [42, 42, 42, 7, 0].map((seed) => new Simulator({ seed }).world.defaultApiUser.secret);
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const s of secrets) expect(s).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('two simulators with the same seed listening beyond loopback make different control tokens', () => {
    const tokens = [42, 42, 7, 7].map((seed) => {
      const sim = new Simulator({ seed });
      sim.secrets.needControlToken();
      return sim.secrets.controlToken;
    });
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // A token given is kept.
    const given = new Simulator({ seed: 42, controlToken: 'given-token' });
    given.secrets.needControlToken();
    expect(given.secrets.controlToken).toBe('given-token');
  });

  it('the seeded world stays repeatable: the same challenge ids for the same seed, others for another', async () => {
    const first = await challengeIds(42);
    expect(await challengeIds(42)).toEqual(first);
    expect(new Set(first).size).toBe(3);
    expect((await challengeIds(43))[0]).not.toBe(first[0]);
  });
});
