import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_BINDINGS, MAX_GIVEN_SCENARIOS } from '../../src/scenario/registry.js';
import { MAX_GLOB_LENGTH, valueMatcher, type StepCounter } from '../../src/scenario/glob.js';
import { challengeEnvelope, expectEnvelope, raw, send, simulator } from '../helpers.js';
import { control, expectStillServes } from './support.js';

/**
 * Class: work that grows with what a scenario or a request holds, or with history. Globs match in linear time;
 * before authentication a body is read as plain JSON only; what the simulator keeps of given scenarios, bindings
 * and secrets is bounded, and reset clears it.
 */

describe('globs match in time linear in the value (counted in steps)', () => {
  const patterns = [
    '*a*a*a*a*a*a*b',
    `${'*a'.repeat(40)}*b`,
    '*@*.*.*.*.example',
    `*${'a'.repeat(100)}b*x`,
    '*aaaaaaaaab*aaaaaaaaac*d',
    '?*?*?*?*?*?*?*!',
  ];
  // Each value also with the pattern's literal end after it, so that it gets past the comparison of the ends and the
  // pieces between the stars are looked for over all of it.
  const tail = (pattern: string) => /[^*?]*$/.exec(pattern)![0];
  const inputs = (n: number, pattern: string) =>
    ['a'.repeat(n), 'ab'.repeat(n / 2), `${'a.'.repeat(n / 2)}`].flatMap((v) => [v, `${v}${tail(pattern)}`]);

  for (const pattern of patterns) {
    it(`${pattern.slice(0, 30)}: steps per character stay flat from 100 to 100,000 characters`, () => {
      const match = valueMatcher(pattern);
      const perChar: number[] = [];
      for (const n of [100, 1_000, 10_000, 100_000]) {
        for (const value of inputs(n, pattern)) {
          const counter: StepCounter = { steps: 0 };
          match(value, counter);
          // Never more than one comparison per character of the value and of the pattern: no backtracking.
          expect(counter.steps).toBeLessThanOrEqual((value.length + 1) * (pattern.length + 1));
          perChar.push(counter.steps / value.length);
        }
      }
      // Linear: the cost per character of values ten times longer is the same to within a few percent.
      expect(Math.max(...perChar.slice(-6)) / Math.max(...perChar.slice(-12, -6))).toBeLessThan(1.05);
    });
  }

  it('a value whose literal start or end the glob has not is ruled out at once; the rest match as written', () => {
    const cases: [string, string, boolean][] = [
      ['*@glob-7.example', 'user@example.com', false],
      ['*@glob-7.example', 'USER@Glob-7.Example', true],
      ['user-*@x.io', 'someone@x.io', false],
      ['user-*@x.io', 'user-1@x.io', true],
      ['a?c', 'ac', false],
      ['a?c', 'abc', true],
      ['a*a', 'a', false],
      ['a*a', 'aa', true],
      ['*', '', true],
      // Brackets and braces are themselves: only * and ? are special.
      ['[a-c]*z', '[a-c]bz', true],
      ['[a-c]*z', 'bz', false],
      ['{a,b}*', '{a,b}x', true],
      // Characters beyond ASCII, one code point each: an emoji is one character.
      ['İ*', 'İx', true],
      ['İ*', 'ix', false],
      ['*İ', 'xİ', true],
      ['a?İ', 'abİ', true],
      ['*@x.😀', 'u@X.😀', true],
      ['*@x.😀', 'u@x.😁', false],
      ['?@x.io', '😀@x.io', true],
    ];
    for (const [pattern, value, matches] of cases) {
      const counter: StepCounter = { steps: 0 };
      expect(valueMatcher(pattern)(value, counter), `${pattern} ~ ${value}`).toBe(matches);
      // Ruled out by the ends (or the length): at most one comparison, however long the pattern.
      if (!matches) expect(counter.steps, `${pattern} ~ ${value}`).toBeLessThanOrEqual(1);
    }
  });

  it('a rule glob that would backtrack for minutes answers at once through the front door', async () => {
    const sim = await simulator({
      rules: [
        { when: { headers: { 'x-case': '*a*a*a*a*a*a*b' }, svcUser: '*a*a*a*a*a*a*b@*' }, respond: { code: -5000 } },
      ],
    });
    for (const n of [100, 3_000, 12_000]) {
      // Unsigned: rules are matched before authentication.
      const r = await raw(
        sim.url,
        'POST',
        '/v1/svc/challenge',
        [
          ['x-case', 'a'.repeat(n)],
          ['content-type', 'application/json'],
        ],
        JSON.stringify(challengeEnvelope('123456789', { svcUser: `${'a'.repeat(n)}@x.io` })),
      );
      expect(r.json.code).toBe(-4000);
    }
    await expectStillServes(sim);
  });

  it('a glob too long is refused where the scenario is loaded', async () => {
    const sim = await simulator();
    const long = await control(sim, 'POST', '/__sim/scenario', {
      name: 'g',
      accounts: { [`*${'a'.repeat(MAX_GLOB_LENGTH)}@x.io`]: 'locked' },
    });
    expect(long.status).toBe(400);
    expect(long.json.error).toMatch(/a glob is at most 256 characters/);
    const header = await control(sim, 'POST', '/__sim/scenario', {
      name: 'g',
      rules: [{ when: { headers: { 'x-a': `${'?'.repeat(MAX_GLOB_LENGTH)}*` } }, respond: { code: -5000 } }],
    });
    expect(header.status).toBe(400);
    expect(header.json.error).toMatch(/rules\[0\]\.when\.headers\.x-a: a glob is at most 256 characters/);
  });

  it('a scenario at its size limit made of globs (some 10,000) loads, and its globs match as written', async () => {
    const sim = await simulator();
    let text = 'name: globs\naccounts:\n';
    for (let i = 0; text.length < 1024 * 1024 - 300; i++) text += `  "${'?a'.repeat(40)}${i}*": locked\n`;
    const loaded = await control(sim, 'POST', '/__sim/scenario', text);
    expect(loaded.status, loaded.text).toBe(200);
    const challenge = (svcUser: string) =>
      send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id, { svcUser }) });
    expectEnvelope(await challenge(`${'XA'.repeat(40)}4000@x.io`), 400, -2006);
    expectEnvelope(await challenge(`${'xa'.repeat(39)}xb4000@x.io`), 202, 2025);
  });
});

describe('before authentication, a body is read as plain JSON only', () => {
  const json5 = createRequire(import.meta.url)('json5') as { parse: (t: string) => unknown };
  afterEach(() => vi.restoreAllMocks());

  it('an unauthenticated body that is not JSON, or a long string body, never reaches the relaxed parser', async () => {
    const sim = await simulator({ rules: [{ when: { svcUser: '*@rule.example' }, respond: { code: -2006 } }] });
    const parse = vi.spyOn(json5, 'parse');
    const notJson = `{${"'k': 'v', ".repeat(6_000)}}`;
    const longString = JSON.stringify({
      ...challengeEnvelope(sim.apiUser.id),
      body: `{'svcUser': 'a@rule.example', 'pad': '${'p'.repeat(60_000)}'}`,
    });
    for (const body of [notJson, longString]) {
      expect(
        (await raw(sim.url, 'POST', '/v1/svc/challenge', [['content-type', 'application/json']], body)).json.code,
      ).toBe(-4000);
      const forged = await send(sim, '/v1/svc/challenge', { as: { apiUser: sim.apiUser.id, secret: 'wrong' }, body });
      expect(forged.json.code).toBe(-4037);
    }
    expect(parse).not.toHaveBeenCalled();
    // Once authenticated, the lenient reading is as before: a short string body is relaxed JSON, and rules see it.
    const relaxed = JSON.stringify({
      ...challengeEnvelope(sim.apiUser.id),
      body: "{'svcUser': 'a@rule.example', 'challengeType': 'UserKeyAndPattern'}",
    });
    expectEnvelope(await send(sim, '/v1/svc/challenge', { body: relaxed }), 400, -2006);
    expect(parse).toHaveBeenCalled();
  });
});

describe('what the simulator keeps is bounded, whatever its history', () => {
  it(`scenarios given at run time: at most ${MAX_GIVEN_SCENARIOS} besides the live ones, and their secrets go with them`, async () => {
    const sim = await simulator();
    for (let i = 0; i < 300; i++) {
      const r = await control(sim, 'PUT', '/__sim/bindings/111111111', {
        name: `s${i}`,
        apiUsers: [{ id: '111111111', secret: `secret-number-${i}` }],
      });
      expect(r.status).toBe(200);
    }
    const sizes = sim.simulator.sizes();
    expect(sizes.givenScenarios).toBeLessThanOrEqual(MAX_GIVEN_SCENARIOS + 1 + sizes.bindings);
    expect(sizes.secrets).toBeLessThanOrEqual(2 + MAX_GIVEN_SCENARIOS + 1);
    // The newest stays pickable by name; the oldest is forgotten.
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': 's299' } }),
      200,
      15000,
    );
    expect(
      (await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': 's0' } })).json.message,
    ).toMatch(/no scenario named `s0`/);
  });

  it('reset forgets the given scenarios that are neither active nor bound, and their secrets', async () => {
    const sim = await simulator();
    sim.bindScenario('111111111', { name: 'kept', apiUsers: [{ id: '111111111', secret: 'kept-secret' }] });
    for (let i = 0; i < 10; i++)
      sim.bindScenario('222222222', { name: `gone-${i}`, apiUsers: [{ id: '222222222', secret: `gone-secret-${i}` }] });
    sim.unbindScenario('222222222');
    expect(sim.simulator.sizes()).toMatchObject({ givenScenarios: 11, secrets: 12 });
    sim.reset();
    expect(sim.simulator.sizes()).toMatchObject({ givenScenarios: 1, bindings: 1, secrets: 2 });
    expect(
      (await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': 'gone-3' } })).json.code,
    ).toBe(-5000);
    expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': 'kept' } }),
      200,
      15000,
    );
  });

  it(`at most ${MAX_BINDINGS} bindings at once; one more is a 400 that says what to do`, async () => {
    const sim = await simulator();
    for (let i = 0; i < MAX_BINDINGS; i++) sim.bindScenario(String(100_000_000 + i), 'locked-account');
    const r = await control(sim, 'PUT', '/__sim/bindings/999999999', { name: 'locked-account' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/at most 256 scenarios can be bound at once: end one first/);
    // Re-binding one already bound is not one more.
    expect((await control(sim, 'PUT', '/__sim/bindings/100000000', { name: 'default' })).status).toBe(200);
    expect(sim.unbindScenario('100000001')).toBe(true);
    expect((await control(sim, 'PUT', '/__sim/bindings/999999999', { name: 'locked-account' })).status).toBe(200);
  });
});
