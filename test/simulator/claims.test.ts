import { describe, expect, it } from 'vitest';
import { connect, ControlError } from '../../src/control.js';
import { MAX_BINDINGS } from '../../src/scenario/registry.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * Claimed API users: one per parallel test worker, each with its own id, secret and scenario, isolated from every
 * other API user's rules, challenges, replay memory and journal; every request counts towards the run. Driven
 * through mfa-sim/control, the typed control client, as a worker does.
 */

describe('a claimed API user', async () => {
  const sim = await simulator({ secret: 'claims-secret' });
  const control = connect(sim.url);

  it('is new, signs like any other, and is unknown again once released', async () => {
    const me = await control.claimApiUser();
    expect(me.apiUser).toMatch(/^\d{9}$/);
    expect(me.apiUser).not.toBe(sim.apiUser.id);
    expect(me.secret.length).toBeGreaterThanOrEqual(32);
    expect(me).toMatchObject({ url: sim.url, token: 'svc', scenario: sim.simulator.scenario.name });
    const as = { apiUser: me.apiUser, secret: me.secret };
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as }), 200, 15000);
    // The secret is hidden wherever secrets are, as a scenario's are.
    const leaked = await send(sim, `/v1/svc/time?s=${me.secret}`, { method: 'GET', as });
    expect(JSON.stringify(await me.journal())).not.toContain(me.secret);
    expect(leaked.text).not.toContain(me.secret);
    expect(await me.release()).toBe(true);
    expect(await me.release()).toBe(false);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as }), 400, -1001);
  });

  it("two workers: neither sees the other's rules, challenges or journal; loading a scenario starts only one's afresh", async () => {
    const [a, b] = await Promise.all([control.claimApiUser(), control.claimApiUser({ scenario: 'default' })]);
    const asA = { apiUser: a.apiUser, secret: a.secret };
    const asB = { apiUser: b.apiUser, secret: b.secret };
    await a.loadScenario({
      name: 'a-locked',
      rules: [{ name: 'A: every account locked', when: { endpoint: 'challenge' }, respond: { code: -2006 } }],
    });
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: asA, body: challengeEnvelope(a.apiUser) }), 400, -2006);
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: asB, body: challengeEnvelope(b.apiUser) }), 202, 2025);
    expect((await a.journal()).map((e) => [e.apiUser, e.code, e.rule])).toEqual([
      [a.apiUser, -2006, 'A: every account locked'],
    ]);
    expect((await b.journal()).map((e) => [e.apiUser, e.code])).toEqual([[b.apiUser, 2025]]);
    expect(await b.challenges()).toHaveLength(1);
    expect(await a.challenges()).toHaveLength(0);
    // B starts its next test: its challenge, journal and replay memory go; A's stay.
    const nonce = 'reused-nonce-123';
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: asB, nonce }), 200, 15000);
    await b.loadScenario('default');
    expect(await b.challenges()).toEqual([]);
    expect(await b.journal()).toEqual([]);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: asB, nonce }), 200, 15000);
    expect((await a.journal()).map((e) => e.code)).toEqual([-2006]);
    // Both count towards the run.
    const run = await control.coverage();
    expect(run.counts['-2006']).toBeGreaterThanOrEqual(1);
    expect(run.counts['2025']).toBeGreaterThanOrEqual(1);
    await Promise.all([a.release(), b.release()]);
  });

  it('refuses a scenario it cannot use with its problems, and leaves no API user behind', async () => {
    const before = sim.simulator.sizes().bindings;
    const refused = await control
      .claimApiUser({ scenario: { name: 'bad', rules: [{ when: { endpoint: 'nowhere' } }] } as never })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ControlError);
    expect(refused).toMatchObject({ code: 'MFA_SIM_CONTROL' });
    expect((refused as ControlError).status).toBe(400);
    expect((refused as ControlError).issues.length).toBeGreaterThan(0);
    expect(sim.simulator.sizes().bindings).toBe(before);
    const unknown = await control.claimApiUser({ scenario: 'no-such-scenario' }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 400 });
  });

  it('is bounded: claims and bindings together at most 256, and a release makes room', async () => {
    const claimed = [];
    for (let i = sim.simulator.sizes().bindings; i < MAX_BINDINGS; i++) claimed.push(sim.claimApiUser());
    await expect(control.claimApiUser()).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/at most 256 scenarios can be bound at once/),
    });
    expect(sim.releaseApiUser(claimed[0].apiUser)).toBe(true);
    const again = await control.claimApiUser();
    await again.release();
    for (const c of claimed.slice(1)) sim.releaseApiUser(c.apiUser);
    expect(sim.simulator.sizes().bindings).toBe(0);
  });

  it('release takes only what was claimed: the default API user, a bound one, prototype names and junk are not', async () => {
    sim.bindScenario('444444444', 'default');
    expect((await fetch(`${sim.url}/__sim/api-users/`, { method: 'DELETE' })).status).toBe(405);
    for (const id of [sim.apiUser.id, '444444444', '__proto__', 'constructor', 'hasOwnProperty', '1'.repeat(10_000)]) {
      const r = await fetch(`${sim.url}/__sim/api-users/${encodeURIComponent(id)}`, { method: 'DELETE' });
      expect(r.status, id.slice(0, 20)).toBe(200);
      expect(((await r.json()) as { released: boolean }).released).toBe(false);
    }
    expect(sim.scenarios().bindings['444444444']).toBe('default');
    expect(sim.releaseApiUser(undefined as never)).toBe(false);
    sim.unbindScenario('444444444');
  });

  it('ids and secrets never come from the seed: two seeded simulators hand out different ones', async () => {
    const [one, two] = [await simulator({ seed: 7 }), await simulator({ seed: 7 })];
    const [x, y] = [one.claimApiUser(), two.claimApiUser()];
    expect(x.secret).not.toBe(y.secret);
  });
});
