import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';
import { control, expectNoPollution, expectStillServes, prototypeSnapshot } from './support.js';

/**
 * Class: a scenario's `people:` from hostile hands (huge lists of presses, `__proto__` and `constructor` keys, absurd
 * or negative durations, wrong shapes, 20,000 people, an overlong glob) and magic addresses at their limits. Each is a
 * scenario error that names the key and says what is allowed, or a plain address: never a crash, a hang, a stack
 * trace, a press days away or a polluted prototype.
 */

interface Refusal {
  error: string;
  issues: { path: (string | number)[]; message: string }[];
}

describe('hostile people: in a scenario', async () => {
  const sim = await simulator({ secret: 'hostile-people-secret-2b7e' });
  const load = async (people: unknown, extra: Record<string, unknown> = {}) =>
    control(sim, 'POST', '/__sim/scenario', { scenario: { name: 'hostile', people, ...extra } });
  const refused = async (people: unknown, extra?: Record<string, unknown>) => {
    const r = await load(people, extra);
    expect(r.status, r.text).toBe(400);
    expect(r.text).not.toMatch(/ at .*\.(ts|js):\d+/);
    return r.json as unknown as Refusal;
  };

  it.each<[string, unknown, (string | number)[], RegExp]>([
    [
      'a list of 20,000 presses',
      { 'a@example.com': Array.from({ length: 20_000 }, () => ({ approve: '1s' })) },
      ['people', 'a@example.com'],
      /at most 10 presses/,
    ],
    [
      'a press of 100 years',
      { 'a@example.com': [{ deny: '36500d' }] },
      ['people', 'a@example.com', 0, 'deny'],
      /1 day/,
    ],
    ['a negative press', { 'a@example.com': [{ approve: -5 }] }, ['people', 'a@example.com', 0, 'approve'], /1 day/],
    [
      'a press of Infinity written as text',
      { 'a@example.com': [{ approve: 'Infinity' }] },
      ['people', 'a@example.com', 0, 'approve'],
      /not a duration/,
    ],
    ['a press of both', { 'a@example.com': [{ approve: '1s', deny: '2s' }] }, ['people', 'a@example.com'], /presses/],
    ['an unknown word', { 'a@example.com': 'aprove' }, ['people', 'a@example.com'], /did you mean "approve"/],
    ['a number', { 'a@example.com': 5 }, ['people', 'a@example.com'], /approve, deny, ignore/],
    ['a __proto__ key', JSON.parse('{"__proto__": "approve"}'), ['people', '__proto__'], /e-mail address/],
    ['a constructor key', { constructor: { prototype: 'deny' } }, ['people', 'constructor'], /approve, deny, ignore/],
    ['a list for people', ['approve'], ['people'], /mapping/],
    ['a glob too long', { [`${'*a'.repeat(200)}@example.com`]: 'deny' }, ['people'], /at most 256 characters/],
  ])('%s: a scenario error naming the key', async (_what, people, path, message) => {
    const before = prototypeSnapshot();
    const r = await refused(people);
    const issue = r.issues.find((i) => path.every((p, k) => String(i.path[k]) === String(p)));
    expect(issue, JSON.stringify(r.issues)).toBeDefined();
    expect(issue!.message).toMatch(message);
    expectNoPollution(before);
    await expectStillServes(sim);
  });

  it('magicAddresses must be true or false', async () => {
    const r = await refused({}, { magicAddresses: 'no' });
    expect(r.issues).toEqual([expect.objectContaining({ path: ['magicAddresses'], message: 'must be true or false' })]);
  });

  it('a scenario of many people within the size limit loads, and a challenge for one of them is scripted at once', async () => {
    const people: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) people[`p${i}@example.com`] = i % 2 ? 'deny' : 'approve';
    people['*@glob.example.com'] = 'ignore';
    const started = performance.now();
    const r = await load(people);
    expect(r.status, r.text).toBe(200);
    expect(performance.now() - started).toBeLessThan(10_000);
    await control(sim, 'POST', '/__sim/clock/freeze', {});
    const made = await send(sim, '/v1/svc/challenge', {
      body: challengeEnvelope(sim.apiUser.id, { svcUser: 'p19999@example.com' }),
    });
    const id = (JSON.parse(expectEnvelope(made, 202, 2025).message) as { challengeId: string }).challengeId;
    await control(sim, 'POST', '/__sim/clock/advance', { by: '1s' });
    const [c] = (await control(sim, 'GET', '/__sim/challenges')).json as unknown as { id: string; state: string }[];
    expect([c.id, c.state]).toEqual([id, 'denied']);
    await control(sim, 'POST', '/__sim/clock/unfreeze', {});
  });

  it('magic addresses at their limits: past a day, too many digits, or another word, an address like any other', async () => {
    await load({});
    for (const user of [
      'approve-after-86401s@example.com',
      'approve-after-999999s@example.com',
      'approve-after-1.5s@example.com',
      'approve-after--1s@example.com',
      'approved@example.com',
      'xapprove@example.com',
    ]) {
      const made = await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id, { svcUser: user }) });
      expectEnvelope(made, 202, 2025);
    }
    await control(sim, 'POST', '/__sim/clock/advance', { by: '2d' });
    const list = (await control(sim, 'GET', '/__sim/challenges')).json as unknown as {
      trail: { by: string }[];
    }[];
    // Each expired by the clock: no scripted person answered any of them.
    expect(list.map((c) => c.trail.map((s) => s.by))).toEqual(list.map(() => ['client', 'clock']));
    await control(sim, 'POST', '/__sim/reset', {});
  });
});
