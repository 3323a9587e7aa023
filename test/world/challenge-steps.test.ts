import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/index.js';
import {
  challengeEnvelope,
  expectEnvelope,
  followEvents,
  lookupEnvelope,
  cancelEnvelope,
  send,
  simulator,
} from '../helpers.js';

/**
 * Who took each step of a challenge's life, and the event stream that tells the dashboard at once: made by a client
 * or the explorer, answered by the user on the phone page or by a control call, verified or cancelled by a client or
 * the explorer, ended by the clock or auto-verify. The control API's view, the dashboard's table and the `challenge`
 * events all say it.
 */

const SECRET = 'steps-secret-5d1e';

interface Step {
  state: string;
  at: string;
  by: string;
}

async function made(
  sim: RunningSimulator,
  user = 'user@example.com',
  extra: Record<string, unknown> = {},
): Promise<string> {
  const r = expectEnvelope(
    await send(sim, '/v1/svc/challenge', {
      as: { apiUser: sim.apiUser.id, secret: SECRET },
      body: challengeEnvelope(sim.apiUser.id, { svcUser: user, ...extra }),
    }),
    202,
    2025,
  );
  return (JSON.parse(r.message) as { challengeId: string }).challengeId;
}

async function explore(
  sim: RunningSimulator,
  body: Record<string, unknown>,
): Promise<{ code: number; message: string }> {
  const r = (await (
    await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json()) as { exchanges: { response: { body: string } }[] };
  return JSON.parse(r.exchanges[0].response.body) as { code: number; message: string };
}

async function trail(sim: RunningSimulator, id: string): Promise<[string, string][]> {
  const list = (await (await fetch(`${sim.url}/__sim/challenges`)).json()) as { id: string; trail: Step[] }[];
  const c = list.find((x) => x.id === id)!;
  for (const step of c.trail) expect(step.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  return c.trail.map((s) => [s.state, s.by]);
}

/** The event stream's `challenge` events, as they come. */
const challengeEvents = (base: string) =>
  followEvents<{ id: string; state: string; user: string; trail: Step[] }>(base, 'challenge');

describe('who took each step of a challenge', async () => {
  // The explorer and this file's client both sign with the frozen clock: the same millisecond is no replay here.
  const sim = await simulator({
    secret: SECRET,
    clock: { frozenAt: '2026-03-01T09:00:00Z' },
    replay: { timestamps: false },
  });
  const as = { apiUser: sim.apiUser.id, secret: SECRET };

  it('a client made it, the user approved it on the phone page, the explorer verified it', async () => {
    const id = await made(sim);
    expect((await fetch(`${sim.url}/phone/${id}/approve`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const code = sim.challenges().find((c) => c.id === id)!.authCode!;
    expect((await explore(sim, { kind: 'verify', challengeId: id, authCode: code })).code).toBe(3080);
    expect(await trail(sim, id)).toEqual([
      ['waiting', 'client'],
      ['approved', 'phone'],
      ['verified', 'explorer'],
    ]);
    const table = await (await fetch(`${sim.url}/__sim/ui/challenges`)).text();
    expect(table).toContain('sent by the client · approved by the user on the phone page · verified by the explorer');
  });

  it('the explorer made it, a control call approved it, a client verified it', async () => {
    const id = (JSON.parse((await explore(sim, { kind: 'challenge' })).message) as { challengeId: string }).challengeId;
    sim.approve(id, '424242');
    expectEnvelope(
      await send(sim, '/v1/svc/verify', { as, body: lookupEnvelope(as.apiUser, 170, id, { authCode: '424242' }) }),
      200,
      3080,
    );
    expect(await trail(sim, id)).toEqual([
      ['waiting', 'explorer'],
      ['approved', 'control'],
      ['verified', 'client'],
    ]);
  });

  it('denied on the phone page, denied or expired by a control call over HTTP, cancelled by a client, expired by the clock', async () => {
    const denied = await made(sim);
    await fetch(`${sim.url}/phone/${denied}/deny`, { method: 'POST', redirect: 'manual' });
    const controlDenied = await made(sim);
    expect((await fetch(`${sim.url}/__sim/challenges/${controlDenied}/deny`, { method: 'POST' })).status).toBe(200);
    const expired = await made(sim);
    expect((await fetch(`${sim.url}/__sim/challenges/${expired}/expire`, { method: 'POST' })).status).toBe(200);
    const cancelled = await made(sim);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as, body: cancelEnvelope(as.apiUser, cancelled) }),
      202,
      2028,
    );
    const timedOut = await made(sim);
    sim.advance('6m');
    expect(await trail(sim, denied)).toEqual([
      ['waiting', 'client'],
      ['denied', 'phone'],
    ]);
    expect(await trail(sim, controlDenied)).toEqual([
      ['waiting', 'client'],
      ['denied', 'control'],
    ]);
    expect(await trail(sim, expired)).toEqual([
      ['waiting', 'client'],
      ['expired', 'control'],
    ]);
    expect(await trail(sim, cancelled)).toEqual([
      ['waiting', 'client'],
      ['cancelled', 'client'],
    ]);
    expect(await trail(sim, timedOut)).toEqual([
      ['waiting', 'client'],
      ['expired', 'clock'],
    ]);
  });

  it('auto-verify approves by itself', async () => {
    const id = await made(sim, 'auto@example.com', { enableAutoVerify: true });
    sim.advance('3s');
    expect(await trail(sim, id)).toEqual([
      ['waiting', 'client'],
      ['approved', 'auto-verify'],
    ]);
  });
});

describe('the event stream tells each step as it happens', async () => {
  const sim = await simulator({ secret: SECRET });

  it('made, answered on the phone page, denied by a control call: one `challenge` event each, in order, secrets hidden', async () => {
    const stream = challengeEvents(sim.url);
    try {
      await expect.poll(() => stream.text()).toContain(': mfa-sim events');
      // The user field quotes what the client sent, a secret included: hidden in the event as everywhere.
      const first = await made(sim, `${SECRET}@example.com`);
      await fetch(`${sim.url}/phone/${first}/approve`, { method: 'POST', redirect: 'manual' });
      const second = await made(sim);
      await fetch(`${sim.url}/__sim/challenges/${second}/deny`, { method: 'POST' });
      await expect.poll(() => stream.events.length).toBe(4);
      expect(stream.events.map((e) => [e.id, e.state, e.trail[e.trail.length - 1].by])).toEqual([
        [first, 'waiting', 'client'],
        [first, 'approved', 'phone'],
        [second, 'waiting', 'client'],
        [second, 'denied', 'control'],
      ]);
      expect(stream.text()).not.toContain(SECRET);
    } finally {
      stream.stop();
    }
  });
});
