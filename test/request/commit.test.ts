import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cancelEnvelope,
  challengeEnvelope,
  clientTime,
  expectEnvelope,
  lookupEnvelope,
  send,
  simulator,
} from '../helpers.js';

/**
 * A request's effects are committed at one point, once its answer is decided (src/request/commit.ts): its nonce and
 * time remembered with who used them first, and the step it took in a challenge's life. The checks only read. A
 * forced error commits nothing; a real refusal after the replay checks commits the nonce and time; a bug answered
 * -5000 commits the nonce and time but no challenge.
 */

const WHO = { apiUser: '123456789', secret: 'commit-secret' };
const challengeId = (r: { json: { message: string } }) =>
  (JSON.parse(r.json.message) as { challengeId: string }).challengeId;

describe('one point commits what a request leaves behind', async () => {
  const sim = await simulator({ name: 'commit', apiUsers: [{ id: WHO.apiUser, secret: WHO.secret }] });
  const force = (code: number, endpoint: 'challenge' | 'time' | 'status' | 'verify' = 'challenge') =>
    sim.loadScenario({
      name: `force-${code}`,
      apiUsers: [{ id: WHO.apiUser, secret: WHO.secret }],
      rules: [{ when: { endpoint }, times: 1, respond: { code } }],
    });
  const plain = () => sim.loadScenario({ name: 'plain', apiUsers: [{ id: WHO.apiUser, secret: WHO.secret }] });

  it('an error forced after the replay checks (-2006 at the account check) burns no nonce or time and makes no first use', async () => {
    force(-2006);
    const nonce = randomUUID();
    const time = sim.simulator.now();
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: WHO, nonce, time, body: challengeEnvelope(WHO.apiUser) }),
      400,
      -2006,
    );
    expect(sim.challenges()).toEqual([]);
    // The same nonce and time again, the rule spent: accepted, and this one is the first use a replay is told of.
    const made = await send(sim, '/v1/svc/challenge', { as: WHO, nonce, time, body: challengeEnvelope(WHO.apiUser) });
    expectEnvelope(made, 202, 2025);
    const seq = sim.journal({ limit: 1 })[0].seq;
    const replay = await send(sim, '/v1/svc/time', { method: 'GET', as: WHO, nonce });
    expect(expectEnvelope(replay, 400, -4034).message).toContain(`Hint: request ${seq} used this nonce first`);
    expect(sim.challenges()).toHaveLength(1);
  });

  it('a real refusal after the replay checks (-5076, a body error) commits the nonce: the first use it names was answered -5076', async () => {
    plain();
    const nonce = randomUUID();
    const refused = await send(sim, '/v1/svc/challenge', {
      as: WHO,
      nonce,
      body: challengeEnvelope(WHO.apiUser, { challengeType: 'NoSuchType' }),
    });
    expectEnvelope(refused, 400, -5076);
    const seq = sim.journal({ limit: 1 })[0].seq;
    const again = await send(sim, '/v1/svc/challenge', { as: WHO, nonce, body: challengeEnvelope(WHO.apiUser) });
    expect(expectEnvelope(again, 400, -4034).message).toContain(`Hint: request ${seq} used this nonce first (at `);
    expect(again.json.message).toContain('answered HTTP 400 (-5076)');
    expect(sim.challenges()).toEqual([]);
  });

  it('a bug answered -5000 inside the operation: the nonce is remembered, no challenge is kept', async () => {
    plain();
    const challenges = sim.simulator.world.challenges;
    const make = challenges.make.bind(challenges);
    challenges.make = (...args) => {
      const c = make(...args);
      // The challenge was made, then the operation failed before it answered.
      throw new Error(`lost ${c.id}`);
    };
    const nonce = randomUUID();
    try {
      expectEnvelope(
        await send(sim, '/v1/svc/challenge', { as: WHO, nonce, body: challengeEnvelope(WHO.apiUser) }),
        500,
        -5000,
      );
    } finally {
      challenges.make = make;
    }
    expect(sim.journal({ limit: 1 })[0].internalError).toMatch(/^lost /);
    expect(sim.challenges()).toEqual([]);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: WHO, nonce, body: challengeEnvelope(WHO.apiUser) }),
      400,
      -4034,
    );
  });

  it('a forced success takes the step where it makes sense: 2028 cancels a waiting challenge, and of an unknown one changes nothing', async () => {
    sim.loadScenario({
      name: 'cancel-forced',
      apiUsers: [{ id: WHO.apiUser, secret: WHO.secret }],
      rules: [{ when: { endpoint: 'challenge', type: 151 }, respond: { code: 2028 } }],
    });
    const made = await send(sim, '/v1/svc/challenge', { as: WHO, body: challengeEnvelope(WHO.apiUser) });
    expectEnvelope(made, 202, 2025);
    const id = challengeId(made);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: WHO, body: cancelEnvelope(WHO.apiUser, 'no-such-challenge-id') }),
      202,
      2028,
    );
    expect(sim.challenges().map((c) => c.state)).toEqual(['waiting']);
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: WHO, body: cancelEnvelope(WHO.apiUser, id) }), 202, 2028);
    expect(sim.challenges().map((c) => [c.id, c.state])).toEqual([[id, 'cancelled']]);
  });

  it("an error forced at the operation's own check (-2035 on a cancel) cancels nothing and burns no nonce", async () => {
    sim.loadScenario({
      name: 'cancel-refused',
      apiUsers: [{ id: WHO.apiUser, secret: WHO.secret }],
      rules: [{ when: { endpoint: 'challenge', type: 151 }, times: 1, respond: { code: -2035 } }],
    });
    const made = await send(sim, '/v1/svc/challenge', { as: WHO, body: challengeEnvelope(WHO.apiUser) });
    expectEnvelope(made, 202, 2025);
    const id = challengeId(made);
    const nonce = randomUUID();
    // A millisecond of its own: the challenge above may have been signed in the one the clock shows now (-4035).
    const time = clientTime(sim);
    const cancel = () =>
      send(sim, '/v1/svc/challenge', { as: WHO, nonce, time, body: cancelEnvelope(WHO.apiUser, id) });
    expectEnvelope(await cancel(), 400, -2035);
    expect(sim.challenges().map((c) => [c.id, c.state])).toEqual([[id, 'waiting']]);
    // The same signed request again, the rule spent: not a replay, and now it cancels.
    expectEnvelope(await cancel(), 202, 2028);
    expect(sim.challenges().map((c) => [c.id, c.state])).toEqual([[id, 'cancelled']]);
  });

  it('forced 3080 on verify verifies a waiting challenge; a natural verify of a waiting one takes no step', async () => {
    plain();
    const made = await send(sim, '/v1/svc/challenge', { as: WHO, body: challengeEnvelope(WHO.apiUser) });
    expectEnvelope(made, 202, 2025);
    const id = challengeId(made);
    expectEnvelope(
      await send(sim, '/v1/svc/verify', {
        as: WHO,
        body: lookupEnvelope(WHO.apiUser, 170, id, { authCode: '000000' }),
      }),
      400,
      -3091,
    );
    expect(sim.challenges()[0].state).toBe('waiting');
    force(3080, 'verify');
    const again = await send(sim, '/v1/svc/challenge', { as: WHO, body: challengeEnvelope(WHO.apiUser) });
    expectEnvelope(again, 202, 2025);
    const second = challengeId(again);
    expectEnvelope(
      await send(sim, '/v1/svc/verify', {
        as: WHO,
        body: lookupEnvelope(WHO.apiUser, 170, second, { authCode: 'anything' }),
      }),
      200,
      3080,
    );
    const verified = sim.challenges().find((c) => c.id === second)!;
    expect([verified.state, verified.endedBy, verified.trail.map((s) => `${s.state} ${s.by}`)]).toEqual([
      'verified',
      'client',
      ['waiting client', 'verified client'],
    ]);
  });

  it('a natural verify with the code the user was shown takes the step once; the same verify again answers 3080 and adds none', async () => {
    plain();
    const made = await send(sim, '/v1/svc/challenge', { as: WHO, body: challengeEnvelope(WHO.apiUser) });
    expectEnvelope(made, 202, 2025);
    const id = challengeId(made);
    sim.approve(id, '424242');
    for (let i = 0; i < 2; i++)
      expectEnvelope(
        await send(sim, '/v1/svc/verify', {
          as: WHO,
          body: lookupEnvelope(WHO.apiUser, 170, id, { authCode: '424242' }),
        }),
        200,
        3080,
      );
    expect(sim.challenges()[0].trail.map((s) => `${s.state} ${s.by}`)).toEqual([
      'waiting client',
      'approved control',
      'verified client',
    ]);
  });
});
