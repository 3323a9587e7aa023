import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, raw, send, simulator } from '../helpers.js';
import { control, expectNoPollution, expectStillServes, prototypeSnapshot, signedPairs } from './support.js';

/**
 * Class: a name a user supplies that is also a property of Object.prototype. Header names, account keys, scenario
 * names, route parameters and query values are ordinary names: read as own properties only, they match, miss or
 * are refused like any other, and nothing reaches a prototype.
 */

const NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
];
const before = prototypeSnapshot();

describe('names that collide with Object.prototype are ordinary names', () => {
  it('a rule on a header named like a prototype property matches only a request that sends it', async () => {
    const rules = NAMES.map((name) => ({
      name: `on ${name}`,
      when: { headers: { [name]: '*' } },
      respond: { code: -2038 },
    }));
    const sim = await simulator({ rules });
    // No such header sent: no rule matches (it used to read Object.prototype.constructor, a function, and answer 500).
    await expectStillServes(sim);
    expectEnvelope(await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) }), 202, 2025);
    // Sent: the rule for it matches, as for any header. (`__proto__` cannot arrive as a header: Node drops it.)
    for (const name of NAMES.filter((n) => n !== '__proto__')) {
      const r = await raw(
        sim.url,
        'POST',
        '/v1/svc/challenge',
        [...signedPairs(sim), ['content-type', 'application/json'], [name, 'x']],
        JSON.stringify(challengeEnvelope(sim.apiUser.id)),
      );
      expect(expectEnvelope(r, 400, -2038).code, name).toBe(-2038);
    }
    expectNoPollution(before);
  });

  it('account keys and globs named like prototype properties', async () => {
    const accounts = Object.fromEntries(NAMES.map((n) => [`${n}@example.com`, 'locked']));
    const sim = await simulator({ accounts: { ...accounts, '*constructor*': 'disabled' } });
    for (const name of NAMES) {
      const r = await send(sim, '/v1/svc/challenge', {
        body: challengeEnvelope(sim.apiUser.id, { svcUser: `${name}@example.com` }),
      });
      expectEnvelope(r, 400, -2006);
    }
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', {
        body: challengeEnvelope(sim.apiUser.id, { svcUser: 'a.constructor.b@example.org' }),
      }),
      400,
      -2007,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', {
        body: challengeEnvelope(sim.apiUser.id, { svcUser: 'someone@example.com' }),
      }),
      202,
      2025,
    );
    expectNoPollution(before);
  });

  it('scenario names: given, bound, picked by header and unknown', async () => {
    const sim = await simulator();
    for (const [i, name] of NAMES.entries()) {
      const bound = await control(sim, 'PUT', `/__sim/bindings/20000000${i}`, {
        name,
        rules: [{ when: { endpoint: 'time' }, respond: { code: -5000, message: `from ${name}` } }],
      });
      expect(bound.status, name).toBe(200);
      const picked = await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': name } });
      expect(expectEnvelope(picked, 500, -5000).message).toBe(`from ${name}`);
    }
    for (const name of ['propertyIsEnumerable', 'toLocaleString', '__lookupGetter__']) {
      const r = await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': name } });
      expect(expectEnvelope(r, 500, -5000).message).toMatch(/no scenario named/);
    }
    for (const name of NAMES) expect((await control(sim, 'POST', '/__sim/scenario', { name })).status, name).toBe(400);
    expectNoPollution(before);
    await expectStillServes(sim);
  });

  it('route parameters, query values and bodies of the control API and pages', async () => {
    const sim = await simulator();
    for (const name of NAMES) {
      const e = encodeURIComponent(name);
      expect((await control(sim, 'POST', `/__sim/challenges/${e}/approve`)).status).toBe(404);
      expect((await control(sim, 'PUT', `/__sim/bindings/${e}`, { name: 'default' })).status).toBe(400);
      expect((await control(sim, 'DELETE', `/__sim/bindings/${e}`)).json).toMatchObject({ removed: false });
      expect((await control(sim, 'GET', `/__sim/journal?code=${e}`)).status).toBe(400);
      expect((await control(sim, 'GET', `/__sim/journal?apiUser=${e}`)).status).toBe(200);
      expect((await control(sim, 'GET', `/status?code=${e}`)).status).toBe(404);
      expect((await control(sim, 'GET', `/phone/${e}`)).status).toBe(404);
      expect((await control(sim, 'POST', '/__sim/explore', { kind: name })).status).toBe(400);
      expect((await control(sim, 'POST', '/__sim/scenario', `name: x\n${name}: 1\n`)).status).toBe(400);
      expect((await control(sim, 'POST', '/__sim/scenario', { name: 'x', clock: { [name]: 1 } })).status).toBe(400);
      expect((await control(sim, 'POST', '/__sim/clock/advance', { [name]: '1m' })).status).toBe(400);
    }
    expectNoPollution(before);
    await expectStillServes(sim);
  });
});
