import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CODES, type Operation } from '../../src/index.js';
import {
  cancelEnvelope,
  challengeEnvelope,
  expectEnvelope,
  lookupEnvelope,
  send,
  simulator,
  type SendOptions,
} from '../helpers.js';

/**
 * The catalog scenario produces every code of the one code table through HTTP. The test walks the table:
 * a code added to it without a catalog rule fails here.
 */
describe('the catalog scenario: every code on demand', async () => {
  const sim = await simulator({ scenario: 'catalog', secret: 'catalog-secret' });
  const who = { apiUser: sim.apiUser.id, secret: 'catalog-secret' };

  async function waitingChallenge(): Promise<string> {
    const r = await send(sim, '/v1/svc/challenge', { as: who, body: challengeEnvelope(who.apiUser) });
    return (JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId;
  }

  /** A request of an operation the code applies to, with the header that picks the code. */
  async function request(op: Operation | undefined, code: number, extra: SendOptions = {}) {
    const opts: SendOptions = { as: who, headers: { 'x-sim-code': String(code) }, ...extra };
    switch (op ?? 'challenge') {
      case 'challenge':
        return send(sim, '/v1/svc/challenge', { ...opts, body: challengeEnvelope(who.apiUser) });
      case 'cancel':
        return send(sim, '/v1/svc/challenge', { ...opts, body: cancelEnvelope(who.apiUser, await waitingChallenge()) });
      case 'time':
        return send(sim, '/v1/svc/time', { ...opts, method: 'GET' });
      case 'status':
        return send(sim, '/v1/svc/status', {
          ...opts,
          body: lookupEnvelope(who.apiUser, 171, await waitingChallenge()),
        });
      case 'verify':
        return send(sim, '/v1/svc/verify', {
          ...opts,
          body: lookupEnvelope(who.apiUser, 170, await waitingChallenge(), { authCode: '1' }),
        });
      case 'blocked':
        return send(sim, '/v1/svc/blocked', {
          ...opts,
          body: { apiUser: who.apiUser, type: 950, body: { ipAddress: '192.0.2.1', svcUser: 'user@example.com' } },
        });
    }
  }

  for (const c of CODES) {
    it(`produces ${c.code} (${c.title})`, async () => {
      const r = await request(c.scope?.[0], c.code);
      expectEnvelope(r, c.http, c.code);
      const entry = sim.journal({ limit: 1 })[0];
      expect(entry.rule).toMatch(new RegExp(`^${c.code} `));
      expect(entry.scenario).toBe('catalog');
    });
  }

  it('without the header, the catalog is the default world', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who }), 200, 15000);
  });

  it('a forced 2025 creates the challenge; a forced 2028 really cancels it', async () => {
    const before = sim.challenges().length;
    const made = await request('challenge', 2025);
    const id = (JSON.parse(expectEnvelope(made, 202, 2025).message) as { challengeId: string }).challengeId;
    expect(sim.challenges()).toHaveLength(before + 1);
    const cancel = await send(sim, '/v1/svc/challenge', {
      as: who,
      headers: { 'x-sim-code': '2028' },
      body: cancelEnvelope(who.apiUser, id),
    });
    expectEnvelope(cancel, 202, 2028);
    expect(sim.challenges().find((c) => c.id === id)?.state).toBe('cancelled');
  });

  it('a forced -40xx answers before the body is read, and a forced error creates nothing and burns no nonce', async () => {
    const nonce = randomUUID();
    const before = sim.challenges().length;
    const forced = await send(sim, '/v1/svc/challenge', {
      as: who,
      nonce,
      headers: { 'x-sim-code': '-4031' },
      body: 'not even JSON',
    });
    expectEnvelope(forced, 400, -4031);
    const locked = await send(sim, '/v1/svc/challenge', {
      as: who,
      headers: { 'x-sim-code': '-2006' },
      body: challengeEnvelope(who.apiUser),
    });
    expectEnvelope(locked, 400, -2006);
    expect(sim.challenges()).toHaveLength(before);
    // The same nonce again, now without forcing: it was never burned.
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: who, nonce, body: challengeEnvelope(who.apiUser) }),
      202,
      2025,
    );
  });

  it('a forced code still waits for every earlier real check: a bad signature wins over a forced -2006', async () => {
    const r = await send(sim, '/v1/svc/challenge', {
      as: { ...who, secret: 'wrong' },
      headers: { 'x-sim-code': '-2006' },
      body: challengeEnvelope(who.apiUser),
    });
    expectEnvelope(r, 400, -4037);
  });
});
