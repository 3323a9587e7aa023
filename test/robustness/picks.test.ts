import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { challengeEnvelope, clientTime, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * Class: a request header that grants what the operator did not. A scenario picked by `x-sim-scenario` may change
 * the rules and how the world behaves, but its API users, secrets, authentication mode, replay checks and drift
 * window never let a request through that the scenario it would otherwise run under refuses.
 */

// Secrets printed in shipped scenario files, which anyone can read.
const PUBLISHED = {
  'restricted-api-user': [
    { apiUser: '123456789', secret: 'full-access-secret' },
    { apiUser: '200000001', secret: 'time-only-secret' },
  ],
  'ip-rules': [{ apiUser: '123456789', secret: 'ip-rules-secret' }],
};

describe('x-sim-scenario never grants', async () => {
  const sim = await simulator({ secret: 'the-real-secret' });
  const pick = (name: string) => ({ 'x-sim-scenario': name });

  for (const [name, users] of Object.entries(PUBLISHED)) {
    for (const who of users) {
      it(`${name}: signed with its published secret for ${who.apiUser}, nothing is accepted or burned`, async () => {
        const time = clientTime(sim);
        const nonce = randomUUID();
        const challenge = await send(sim, '/v1/svc/challenge', {
          as: who,
          body: challengeEnvelope(who.apiUser),
          headers: pick(name),
          time,
          nonce,
        });
        expect([-4037, -1001]).toContain(challenge.json.code);
        const t = await send(sim, '/v1/svc/time', { method: 'GET', as: who, headers: pick(name), time: time + 1 });
        expect([-4037, -1001]).toContain(t.json.code);
        expect(sim.challenges()).toHaveLength(0);
        // The real client's time and nonce were not burned by the forgeries.
        expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', time, nonce }), 200, 15000);
      });
    }
  }

  it('a picked scenario with auth: off or log still authenticates as the world does', async () => {
    sim.bindScenario('999999001', { name: 'open-door', auth: 'off' });
    sim.bindScenario('999999002', { name: 'log-door', auth: 'log' });
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', as: false, headers: pick('open-door') }),
      400,
      -4000,
    );
    const forged = { apiUser: sim.apiUser.id, secret: 'not-the-secret' };
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', as: forged, headers: pick('log-door') }),
      400,
      -4037,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', as: forged, headers: pick('open-door') }),
      400,
      -4037,
    );
  });

  it('a picked scenario with replay checks off still refuses a replay', async () => {
    sim.bindScenario('999999003', { name: 'no-replay', replay: { nonces: false, timestamps: false } });
    const time = clientTime(sim);
    const nonce = randomUUID();
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', time, nonce, headers: pick('no-replay') }),
      200,
      15000,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', time: clientTime(sim), nonce, headers: pick('no-replay') }),
      400,
      -4034,
    );
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', time, headers: pick('no-replay') }), 400, -4035);
  });

  it('a picked scenario with a wide drift window still refuses what the world calls drift', async () => {
    sim.bindScenario('999999004', { name: 'wide-window', clock: { maxDrift: '7d' } });
    const off = sim.simulator.now() + 3_600_000;
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', time: off, headers: pick('wide-window') }),
      400,
      -4036,
    );
    // Its own drift still applies: a correct client picking a server whose clock is ahead gets -4036.
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', headers: pick('clock-ahead') }), 400, -4036);
  });

  it('a request remembered under a short picked window is not forgotten before the world forgets it', async () => {
    sim.bindScenario('999999005', { name: 'short-window', clock: { maxDrift: '1s' } });
    sim.freeze();
    const time = sim.simulator.now();
    const nonce = randomUUID();
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', time, nonce, headers: pick('short-window') }),
      200,
      15000,
    );
    sim.advance('2m');
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', time, nonce }), 400, -4034);
    sim.unfreeze();
  });

  it('an API user known only to its bound scenario may still pick one', async () => {
    const own = { apiUser: '333000333', secret: 'bound-user-secret' };
    sim.bindScenario(own.apiUser, { name: 'own-users', apiUsers: [{ id: own.apiUser, secret: own.secret }] });
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: own, headers: pick('catalog') }), 200, 15000);
    expectEnvelope(
      await send(sim, '/v1/svc/time', {
        method: 'GET',
        as: own,
        headers: { ...pick('catalog'), 'x-sim-code': '-4036' },
      }),
      400,
      -4036,
    );
  });
});
