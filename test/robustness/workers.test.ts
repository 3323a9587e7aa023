import { describe, expect, it } from 'vitest';
import { MAX_KEPT_SCENARIO_CHARS } from '../../src/scenario/registry.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * Class: a worker (a parallel test worker with an API user it claimed) reaches another, or is refused for what others
 * hold. A claim that names no scenario of its own costs the bound on scenario text nothing; a worker's
 * `x-sim-scenario` picks among its own scenarios first, then the shared ones, never another worker's; and the claim
 * route refuses a body that is not a JSON object as every other route does.
 */

interface Claimed {
  apiUser: string;
  secret: string;
  scenario: string;
}

const post = (url: string, path: string, body?: string, type = 'application/json') =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': type },
    body,
  });

async function claim(url: string, body?: unknown): Promise<Claimed> {
  const r = await post(url, '/__sim/api-users', body === undefined ? undefined : JSON.stringify(body));
  const text = await r.text();
  if (r.status !== 201) throw new Error(`claim refused: ${r.status} ${text}`);
  return JSON.parse(text) as Claimed;
}

async function bind(url: string, apiUser: string, scenario: unknown): Promise<void> {
  const r = await fetch(`${url}/__sim/bindings/${apiUser}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(scenario),
  });
  expect(r.status, await r.text()).toBe(200);
}

/** Accounts enough for `chars` characters of scenario text, give or take one account. */
function accounts(chars: number, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  const each = JSON.stringify({ [`${prefix}-000000@example.com`]: 'locked' }).length - 1;
  for (let i = 0; i * each < chars; i++) out[`${prefix}-${String(i).padStart(6, '0')}@example.com`] = 'locked';
  return out;
}

describe('a claim without a scenario of its own', () => {
  it('does not count the active scenario again: 16 and then 64 workers of a 186 KB suite scenario all claim', async () => {
    const sim = await simulator({ name: 'suite', accounts: accounts(186_000, 'suite') });
    expect(JSON.stringify(sim.simulator.scenario.input).length).toBeGreaterThan(180_000);
    const first = await Promise.all(Array.from({ length: 16 }, () => claim(sim.url)));
    expect(new Set(first.map((c) => c.apiUser)).size).toBe(16);
    const more = await Promise.all(Array.from({ length: 48 }, () => claim(sim.url, {})));
    expect(more.every((c) => c.scenario === 'suite')).toBe(true);
    // Each runs the suite scenario, on its own.
    for (const w of [first[0], first[15], more[47]]) {
      const as = { apiUser: w.apiUser, secret: w.secret };
      const body = challengeEnvelope(w.apiUser, { svcUser: 'suite-000007@example.com' });
      expectEnvelope(await send(sim, '/v1/svc/challenge', { as, body }), 400, -2006);
    }
  });

  it('the bound still holds for scenarios of their own: each counted once, the one past 2 MiB refused', async () => {
    const sim = await simulator({ name: 'suite', accounts: accounts(186_000, 'suite') });
    await Promise.all(Array.from({ length: 16 }, () => claim(sim.url)));
    const big = (i: number) => ({ name: `own-${i}`, accounts: accounts(400_000, `own${i}`) });
    const room = Math.floor((MAX_KEPT_SCENARIO_CHARS - 186_000) / 400_000);
    for (let i = 0; i < room; i++) await claim(sim.url, big(i));
    const refused = await post(sim.url, '/__sim/api-users', JSON.stringify(big(room)));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/more than 2 MiB of scenario text/);
    // Claims without a scenario of their own still fit.
    await claim(sim.url);
  });
});

describe("a worker's x-sim-scenario", async () => {
  const sim = await simulator({ name: 'base', accounts: { 'user@example.com': 'active' } });
  const CODES = [-2006, -2007, -2038, -2004];
  const STATES = ['locked', 'disabled', 'lockdown', 'blocked'];
  /** Worker i's own `shared`: every account in state STATES[i]. */
  const shared = (i: number) => ({ name: 'shared', accounts: { '*': STATES[i] } });

  const challenge = async (w: Claimed, pick?: string) =>
    (
      await send(sim, '/v1/svc/challenge', {
        as: { apiUser: w.apiUser, secret: w.secret },
        body: challengeEnvelope(w.apiUser),
        headers: pick === undefined ? {} : { 'x-sim-scenario': pick },
      })
    ).json.code;

  it("picks its own scenario by name, never another worker's of the same name", async () => {
    const workers = await Promise.all(CODES.map((_, i) => claim(sim.url, shared(i))));
    // Each then runs a scenario of no rules: `shared` is reached only by the header.
    await Promise.all(workers.map((w, i) => bind(sim.url, w.apiUser, { name: `plain-${i}`, rules: [] })));
    for (let round = 0; round < 2; round++) {
      const codes = await Promise.all(workers.map((w) => challenge(w, 'shared')));
      expect(codes).toEqual(CODES);
    }
    expect(await Promise.all(workers.map((w) => challenge(w)))).toEqual(CODES.map(() => 2025));
  });

  it('then the shared ones: a scenario loaded for everyone, which its own of the same name hides', async () => {
    const loaded = await post(
      sim.url,
      '/__sim/scenario',
      JSON.stringify({ name: 'everyone', accounts: { '*': 'notActive' } }),
    );
    expect(loaded.status).toBe(200);
    const mine = await claim(sim.url, { name: 'mine', accounts: { '*': 'temporarilyDisabled' } });
    const other = await claim(sim.url);
    await bind(sim.url, mine.apiUser, { name: 'everyone', accounts: { '*': 'lockEnabled' } });
    await bind(sim.url, mine.apiUser, { name: 'plain-mine', rules: [] });
    expect(await challenge(mine, 'everyone')).toBe(-2017);
    expect(await challenge(other, 'everyone')).toBe(-2008);
    expect(await challenge(mine, 'mine')).toBe(-2010);
    // Another worker's name is no scenario to it, as an unknown one is.
    const unknown = await send(sim, '/v1/svc/time', {
      method: 'GET',
      as: { apiUser: other.apiUser, secret: other.secret },
      headers: { 'x-sim-scenario': 'mine' },
    });
    expect(expectEnvelope(unknown, 500, -5000).message).toMatch(/x-sim-scenario: no scenario named `mine`/);
  });
});

describe('a claim body that is not a JSON object', async () => {
  const sim = await simulator();
  const bodies = ['[]', '""', '[{}]', '"default"', '5', 'null', 'true'];

  it('is refused with 400 as every other route refuses it, and claims nothing', async () => {
    const before = sim.simulator.sizes().bindings;
    for (const body of bodies) {
      const other = await post(sim.url, '/__sim/clock/freeze', body);
      const answer = await post(sim.url, '/__sim/api-users', body);
      expect(answer.status, body).toBe(400);
      expect(await answer.json(), body).toEqual(await other.json());
      expect(other.status).toBe(400);
      // The other routes that take a scenario answer it the same way.
      expect(await (await post(sim.url, '/__sim/scenario', body)).json(), body).toEqual(
        await (await post(sim.url, '/__sim/clock/freeze', body)).json(),
      );
    }
    expect(sim.simulator.sizes().bindings).toBe(before);
    // No body, `{}`, and a scenario as YAML text still claim.
    await claim(sim.url);
    await claim(sim.url, {});
    const yaml = await post(sim.url, '/__sim/api-users', 'name: from-yaml\n', 'application/yaml');
    expect(yaml.status).toBe(201);
    expect(sim.simulator.sizes().bindings).toBe(before + 3);
  });
});
