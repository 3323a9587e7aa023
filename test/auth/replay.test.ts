import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizationValue, sign, startSimulator } from '../../src/index.js';
import { challengeEnvelope, clientTime, expectEnvelope, raw, send, simulator } from '../helpers.js';

const A = { apiUser: '123456789', secret: 'secret-a' };
const B = { apiUser: '987654321', secret: 'secret-b' };

describe('drift and replay (docs/behaviour.md#time-drift-and-replay)', async () => {
  const sim = await simulator({
    name: 'replay',
    apiUsers: [
      { id: A.apiUser, secret: A.secret },
      { id: B.apiUser, secret: B.secret },
    ],
    clock: { maxDrift: '5m' },
  });
  const time = (opts: Parameters<typeof send>[2] = {}) => send(sim, '/v1/svc/time', { method: 'GET', as: A, ...opts });

  it('accepts a time exactly at the drift limit and rejects one a millisecond past it', async () => {
    sim.simulator.clock.freeze();
    try {
      const now = sim.simulator.now();
      expectEnvelope(await time({ time: now - 300_000 }), 200, 15000);
      expectEnvelope(await time({ time: now + 300_000 }), 200, 15000);
      expectEnvelope(await time({ time: now - 300_001 }), 400, -4036);
      expectEnvelope(await time({ time: now + 300_001 }), 400, -4036);
    } finally {
      sim.simulator.clock.unfreeze();
    }
  });

  it('judges replay per API user: one nonce may be used once by each', async () => {
    const nonce = randomUUID();
    expectEnvelope(await time({ nonce }), 200, 15000);
    expectEnvelope(await time({ nonce, as: B }), 200, 15000);
    expectEnvelope(await time({ nonce, time: sim.simulator.now() + 3 }), 400, -4034);
  });

  it('judges drift and replay on the headers only, never on the envelope utctime or id', async () => {
    const env = { id: 'same-id', utctime: '1', apiUser: A.apiUser, type: 990, body: {} };
    expectEnvelope(await time({ method: 'POST', body: env }), 200, 15000);
    expectEnvelope(await time({ method: 'POST', body: env, time: sim.simulator.now() + 9 }), 200, 15000);
  });

  it('two requests signed in the same millisecond collide (-4035) unless the scenario turns the check off', async () => {
    const t = sim.simulator.now() - 4242;
    expectEnvelope(await time({ time: t }), 200, 15000);
    expectEnvelope(await time({ time: t }), 400, -4035);
    const lax = await startSimulator({ replay: { timestamps: false } });
    try {
      const who = { apiUser: lax.apiUser.id, secret: lax.apiUser.secret };
      const t2 = lax.simulator.now();
      expectEnvelope(await send(lax, '/v1/svc/time', { method: 'GET', as: who, time: t2 }), 200, 15000);
      expectEnvelope(await send(lax, '/v1/svc/time', { method: 'GET', as: who, time: t2 }), 200, 15000);
    } finally {
      await lax.close();
    }
  });

  it('gives exactly one winner when the same signed request arrives many times at once', async () => {
    const t = String(clientTime(sim));
    const nonce = randomUUID();
    const headers: [string, string][] = [
      ['Authorization', authorizationValue(A.apiUser, sign(A.secret, t, nonce))],
      ['x-svc-apiuser', A.apiUser],
      ['x-svc-utctime', t],
      ['x-svc-cnonce', nonce],
      ['content-type', 'application/json'],
    ];
    const body = JSON.stringify(challengeEnvelope(A.apiUser));
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => raw(sim.url, 'POST', '/v1/svc/challenge', headers, body)),
    );
    const codes = answers.map((r) => r.json.code);
    expect(
      codes.filter((c) => c === 2025),
      `codes: ${codes.join(' ')}`,
    ).toHaveLength(1);
    expect(
      codes.filter((c) => c === -4034),
      `codes: ${codes.join(' ')}`,
    ).toHaveLength(59);
    const made = sim.simulator.challenges().filter((c) => c.apiUser === A.apiUser);
    expect(made).toHaveLength(1);
  });

  it('gives exactly one winner among different nonces signed in the same millisecond', async () => {
    const t = clientTime(sim) + 17;
    const answers = await Promise.all(Array.from({ length: 40 }, () => time({ time: t })));
    const codes = answers.map((r) => r.json.code);
    expect(
      codes.filter((c) => c === 15000),
      `codes: ${codes.join(' ')}`,
    ).toHaveLength(1);
    expect(
      codes.filter((c) => c === -4035),
      `codes: ${codes.join(' ')}`,
    ).toHaveLength(39);
  });
});

describe('replay memory is bounded by the drift window', () => {
  it('forgets entries once their time has left the window, however many there were', async () => {
    const sim = await startSimulator({ clock: { frozenAt: '2026-05-01T12:00:00Z', maxDrift: '1m' } });
    try {
      const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
      const base = sim.simulator.now();
      const first = randomUUID();
      for (let i = 0; i < 300; i++) {
        expectEnvelope(
          await send(sim, '/v1/svc/time', {
            method: 'GET',
            as: who,
            time: base - i,
            nonce: i === 0 ? first : undefined,
          }),
          200,
          15000,
        );
      }
      expect(sim.simulator.world.replayStats()[who.apiUser].entries).toBe(600);
      // Inside the window a replay is still caught.
      expectEnvelope(
        await send(sim, '/v1/svc/time', { method: 'GET', as: who, time: base + 1, nonce: first }),
        400,
        -4034,
      );
      // Two windows later every old entry is gone; the memory holds only what came since.
      sim.simulator.clock.advance(2 * 60_000 + 10_000);
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who }), 200, 15000);
      expect(sim.simulator.world.replayStats()[who.apiUser].entries).toBe(2);
      // An old nonce could come back now, but its old time would fail the drift check, so nothing is lost.
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who, time: base, nonce: first }), 400, -4036);
    } finally {
      await sim.close();
    }
  });

  it('remembers a nonce until its time leaves the window, that instant included', async () => {
    const sim = await startSimulator({ clock: { frozenAt: '2026-05-01T12:00:00Z', maxDrift: '1m' } });
    try {
      const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
      const now = sim.simulator.now();
      const nonce = randomUUID();
      // Signed at the edge of the window: remembered until exactly now.
      expectEnvelope(
        await send(sim, '/v1/svc/time', { method: 'GET', as: who, time: now - 60_000, nonce }),
        200,
        15000,
      );
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who, time: now, nonce }), 400, -4034);
      sim.simulator.clock.advance(1);
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who, time: now + 1, nonce }), 200, 15000);
    } finally {
      await sim.close();
    }
  });

  it('keeps replayCap entries, and past it forgets the oldest first', async () => {
    // Each accepted request is two entries: its nonce and its time.
    const sim = await startSimulator({ replayCap: 4, clock: { frozenAt: '2026-05-01T12:00:00Z' } });
    try {
      const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      let at = sim.simulator.now();
      const time = (nonce: string) => send(sim, '/v1/svc/time', { method: 'GET', as: who, time: at++, nonce });
      expectEnvelope(await time(a), 200, 15000);
      expectEnvelope(await time(b), 200, 15000);
      expectEnvelope(await time(a), 400, -4034);
      expectEnvelope(await time(c), 200, 15000);
      expect(sim.simulator.world.replayStats()[who.apiUser].entries).toBe(4);
      expectEnvelope(await time(b), 400, -4034);
      expectEnvelope(await time(a), 200, 15000);
    } finally {
      await sim.close();
    }
  });
});
