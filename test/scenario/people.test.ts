import { describe, expect, it } from 'vitest';
import {
  challengeEnvelope,
  expectEnvelope,
  followEvents,
  lookupEnvelope,
  send,
  simulator,
  type Envelope,
} from '../helpers.js';

/**
 * The person on the phone, scripted: a scenario's `people:` and the magic addresses (`approve@`, `deny-after-5s@`,
 * `ignore@`) answer a challenge by themselves, on the simulator's clock. The status and verify operations, the
 * journal, the event stream and coverage show it as if a person had pressed the button on the phone page, and the
 * trail says it was the scenario. Every move of the clock settles what fell due within it, in time order, before it
 * answers; while the clock runs, a scripted press falls due on time with no request at all. Driven over HTTP with
 * real signatures, a scenario loaded per test.
 */

const AT = Date.parse('2031-03-04T05:06:07.000Z');

interface Step {
  state: string;
  at: string;
  by: string;
  pressed?: string;
}
interface ChallengeView {
  id: string;
  user: string;
  state: string;
  authCode?: string;
  trail: Step[];
}

describe('a scripted person', async () => {
  const sim = await simulator({ secret: 'people-secret-7f3a' });
  const as = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
  const post = async (path: string, body: unknown = {}) => {
    const r = await fetch(`${sim.url}/__sim/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    return JSON.parse(text) as unknown;
  };
  /** Where this test's clock stops: an hour after the last test's (a client's clock never goes back). */
  let start = AT;
  /** A scenario for this test, loaded over the control API, with the clock stopped at `start`. */
  const load = async (scenario: Record<string, unknown>) => {
    await post('scenario', { name: 'people-test', description: 'one test', ...scenario });
    start += 3_600_000;
    await post('clock/freeze', { at: start });
  };
  const make = async (user: string, expiry = 'FiveMins') => {
    const r = await send(sim, '/v1/svc/challenge', {
      as,
      body: challengeEnvelope(as.apiUser, { svcUser: user, challengeExpiry: expiry }),
    });
    return (JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId;
  };
  const status = (id: string, user: string) =>
    send(sim, '/v1/svc/status', { as, body: lookupEnvelope(as.apiUser, 171, id, {}, user) });
  const verify = (id: string, user: string, authCode: string) =>
    send(sim, '/v1/svc/verify', { as, body: lookupEnvelope(as.apiUser, 170, id, { authCode }, user) });
  const view = async (id: string): Promise<ChallengeView> => {
    const list = (await (await fetch(`${sim.url}/__sim/challenges`)).json()) as ChallengeView[];
    return list.find((c) => c.id === id)!;
  };
  const steps = async (id: string) =>
    (await view(id)).trail.map((s) => [s.state, s.by, Date.parse(s.at) - start, ...(s.pressed ? [s.pressed] : [])]);
  const message = (e: Envelope) => JSON.parse(e.message) as { status: string };

  it('approve@example.com: approved by the scenario 1 s after it is made; status, verify, journal, events, coverage show it', async () => {
    await load({});
    const events = followEvents<ChallengeView>(sim.url, 'challenge');
    try {
      await expect.poll(events.opened).toBe(true);
      const user = 'approve@example.com';
      const id = await make(user);
      expectEnvelope(await status(id, user), 400, -3091);
      await post('clock/advance', { by: '999ms' });
      expectEnvelope(await status(id, user), 400, -3091);
      await post('clock/advance', { by: '1ms' });
      expect(message(expectEnvelope(await status(id, user), 200, 3080)).status).toBe('APPROVED');
      // No one types a code the scripted person was shown: verify takes any, as for auto-verify.
      expect(message(expectEnvelope(await verify(id, user, '000000'), 200, 3080)).status).toBe('VERIFIED');
      expect(await steps(id)).toEqual([
        ['waiting', 'client', 0],
        ['approved', 'scenario', 1000],
        ['verified', 'client', 1000],
      ]);
      // The event stream told each step as it was taken.
      await expect
        .poll(() => events.events.filter((e) => e.id === id).map((e) => [e.state, e.trail.at(-1)!.by]))
        .toEqual([
          ['waiting', 'client'],
          ['approved', 'scenario'],
          ['verified', 'client'],
        ]);
    } finally {
      events.stop();
    }
    const journal = (await (await fetch(`${sim.url}/__sim/journal?code=3080`)).json()) as { operation: string }[];
    expect(journal.map((e) => e.operation)).toEqual(['verify', 'status']);
    const coverage = (await (await fetch(`${sim.url}/__sim/coverage?scope=scenario`)).json()) as {
      counts: Record<string, number>;
    };
    expect(coverage.counts).toMatchObject({ '2025': 1, '-3091': 2, '3080': 2 });
  });

  it('deny-after-5s@example.com: denied by the scenario 5 s after it is made, -3092 from then on', async () => {
    await load({});
    const user = 'Deny-After-5s@Example.COM';
    const id = await make(user);
    await post('clock/advance', { by: '4999ms' });
    expectEnvelope(await status(id, user), 400, -3091);
    await post('clock/advance', { by: '1ms' });
    expect(expectEnvelope(await status(id, user), 400, -3092).message).toMatch(/denied/);
    expectEnvelope(await verify(id, user, '123456'), 400, -3092);
    expect(await steps(id)).toEqual([
      ['waiting', 'client', 0],
      ['denied', 'scenario', 5000],
    ]);
  });

  it('ignore@example.com with ThreeMins, after an advance of 4 minutes, reads expired in the same breath', async () => {
    await load({});
    const user = 'ignore@example.com';
    const id = await make(user, 'ThreeMins');
    await post('clock/advance', { by: '4m' });
    expect(expectEnvelope(await status(id, user), 400, -3092).message).toMatch(/expired/);
    expect(await steps(id)).toEqual([
      ['waiting', 'client', 0],
      ['expired', 'clock', 180_000],
    ]);
  });

  it('any other address, and every address once a scenario turns magic off, waits for a person as before', async () => {
    await load({});
    const plain = await make('approver@example.com');
    await load({ magicAddresses: false });
    const off = await make('approve@example.com');
    await post('clock/advance', { by: '10s' });
    expectEnvelope(await status(off, 'approve@example.com'), 400, -3091);
    expect((await view(off)).trail).toHaveLength(1);
    expect(await view(plain)).toBeUndefined();
    await load({});
    const other = await make('approver@example.com');
    await post('clock/advance', { by: '10s' });
    expectEnvelope(await status(other, 'approver@example.com'), 400, -3091);
  });

  it('people: wins over magic, matches globs, and one advance fires every step in time order, late presses changing nothing', async () => {
    await load({
      people: {
        'approve@example.com': 'deny',
        '*@late.example.com': [{ approve: '4m' }],
        'twice@example.com': [{ deny: '6s' }, { approve: '5s' }],
        'quiet@example.com': 'ignore',
      },
    });
    const ids = {
      magic: await make('approve@example.com'),
      late: await make('slow@late.example.com', 'ThreeMins'),
      twice: await make('twice@example.com'),
      quiet: await make('quiet@example.com'),
    };
    const events = followEvents<ChallengeView>(sim.url, 'challenge');
    try {
      await expect.poll(events.opened).toBe(true);
      await post('clock/advance', { by: '5m' });
      // Told by the advance itself, with no request looking at a challenge, in the order they fell due.
      const expected = [
        [ids.magic, 'denied', 'scenario', 1000],
        [ids.twice, 'approved', 'scenario', 5000],
        [ids.twice, 'approved', 'scenario', 6000, 'deny'],
        [ids.late, 'expired', 'clock', 180_000],
        [ids.late, 'expired', 'scenario', 240_000, 'approve'],
        [ids.quiet, 'expired', 'clock', 300_000],
      ];
      await expect
        .poll(() =>
          events.events.map((e) => {
            const s = e.trail.at(-1)!;
            return [e.id, s.state, s.by, Date.parse(s.at) - start, ...(s.pressed ? [s.pressed] : [])];
          }),
        )
        .toEqual(expected);
    } finally {
      events.stop();
    }
    expect(message(expectEnvelope(await status(ids.twice, 'twice@example.com'), 200, 3080)).status).toBe('APPROVED');
    expect(await steps(ids.twice)).toEqual([
      ['waiting', 'client', 0],
      ['approved', 'scenario', 5000],
      ['approved', 'scenario', 6000, 'deny'],
    ]);
    expectEnvelope(await status(ids.late, 'slow@late.example.com'), 400, -3092);
    expectEnvelope(await status(ids.magic, 'approve@example.com'), 400, -3092);
    // The dashboard's table words the late press as the phone page does.
    const table = await (await fetch(`${sim.url}/__sim/ui/challenges`)).text();
    expect(table).toContain('approve pressed by the scenario (a scripted person): nothing changed, already expired');
  });

  it('a press at the very instant of expiry is too late', async () => {
    await load({ people: { 'edge@example.com': [{ approve: '3m' }] } });
    const id = await make('edge@example.com', 'ThreeMins');
    await post('clock/advance', { by: '3m' });
    expect(await steps(id)).toEqual([
      ['waiting', 'client', 0],
      ['expired', 'clock', 180_000],
      ['expired', 'scenario', 180_000, 'approve'],
    ]);
  });
});

describe('a scripted person while the clock runs', async () => {
  const sim = await simulator({ secret: 'people-running-secret-51c0' });
  const as = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };

  it('a scripted press falls due on time with no request', async () => {
    const loaded = await fetch(`${sim.url}/__sim/scenario`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'soon', people: { 'soon@example.com': [{ approve: '300ms' }] } }),
    });
    expect(loaded.status).toBe(200);
    const events = followEvents<ChallengeView>(sim.url, 'challenge');
    try {
      await expect.poll(events.opened).toBe(true);
      const r = await send(sim, '/v1/svc/challenge', {
        as,
        body: challengeEnvelope(as.apiUser, { svcUser: 'soon@example.com' }),
      });
      const id = (JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId;
      await expect
        .poll(() => events.events.filter((e) => e.id === id).map((e) => e.state), { timeout: 3000 })
        .toEqual(['waiting', 'approved']);
      expect(events.events.at(-1)!.trail.at(-1)!.by).toBe('scenario');
    } finally {
      events.stop();
    }
  });
});
