import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHECKS, codeInfo } from '../../src/contract/codes.js';
import {
  cancelEnvelope,
  challengeEnvelope,
  clientTime,
  expectEnvelope,
  send,
  simulator,
  type SendOptions,
} from '../helpers.js';

/**
 * A code a scenario rule forces answers at its own check (docs/behaviour.md#scenarios-and-forced-codes), after every
 * earlier check passed and before any later one: for every check of the request path, its code is forced on a request
 * that a later check would refuse, and the forced code must be the answer.
 */
const MAIN = { apiUser: '123456789', secret: 'main-secret' };
const SUSPENDED = { apiUser: '200000003', secret: 'suspended-secret' };
const CHALLENGE_ONLY = { apiUser: '200000002', secret: 'challenge-only-secret' };
const IP_USER = { apiUser: '200000004', secret: 'ip-secret' };

describe('a forced code answers at its own check', async () => {
  const sim = await simulator({
    name: 'forced',
    apiUsers: [
      { id: MAIN.apiUser, secret: MAIN.secret },
      { id: SUSPENDED.apiUser, secret: SUSPENDED.secret, state: 'suspended' },
      { id: CHALLENGE_ONLY.apiUser, secret: CHALLENGE_ONLY.secret, permissions: ['challenge'] },
      { id: IP_USER.apiUser, secret: IP_USER.secret, ipRules: { block: ['203.0.113.0/24'] } },
    ],
    accounts: { 'locked@example.com': 'locked' },
  });
  // One rule per forced code, keyed on a header: `x-force: <code>`.
  const codes = [
    -413, -5000, -404, -4000, -4004, -4006, -4008, -4026, -4028, -4030, -4032, -1001, -1003, -4036, -4037, -4034, -4035,
    -1026, -5072, -5077, -6021, -1095, -2004,
  ];
  sim.loadScenario({
    ...sim.simulator.scenario.input,
    rules: codes.map((code) => ({ when: { headers: { 'x-force': String(code) } }, respond: { code } })),
  });

  const force = (code: number, opts: SendOptions = {}) => ({
    ...opts,
    headers: { ...opts.headers, 'x-force': String(code) },
  });
  const time = (opts: SendOptions) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, ...opts });
  const drop =
    (...names: string[]) =>
    (h: Record<string, string>) =>
      names.forEach((n) => delete h[n]);
  const withoutPart = (part: string) => (h: Record<string, string>) =>
    (h.Authorization = h.Authorization.replace(new RegExp(`${part}=[^,]*,?`), '').replace(/,$/, ''));

  // [check, forced code, a request that fails a later check, the code that later check answers]
  const cases: [string, number, () => ReturnType<typeof send>, number][] = [
    ['transport', -413, () => send(sim, '/v1/svc/nope', force(-413, { as: false })), -404],
    ['internal', -5000, () => send(sim, '/v1/svc/nope', force(-5000, { as: false })), -404],
    ['route', -404, () => time(force(-404, { as: false })), -4000],
    ['authorization-header', -4000, () => time(force(-4000, { mutate: drop('x-svc-utctime') })), -4004],
    ['utctime-header', -4004, () => time(force(-4004, { mutate: drop('x-svc-cnonce') })), -4006],
    ['nonce-header', -4006, () => time(force(-4006, { mutate: drop('x-svc-apiuser') })), -4008],
    ['apiuser-header', -4008, () => time(force(-4008, { mutate: withoutPart('signature') })), -4026],
    ['signature-part', -4026, () => time(force(-4026, { mutate: withoutPart('apiuser') })), -4028],
    ['apiuser-part', -4028, () => time(force(-4028, { mutate: withoutPart('algorithm') })), -4030],
    ['algorithm-part', -4030, () => time(force(-4030, { mutate: withoutPart('signedheaders') })), -4032],
    ['signedheaders-part', -4032, () => time(force(-4032, { as: { apiUser: '999999999', secret: 'x' } })), -1001],
    ['api-user-known', -1001, () => time(force(-1001, { as: SUSPENDED })), -1003],
    ['api-user-usable', -1003, () => time(force(-1003, { time: sim.simulator.now() + 3_600_000 })), -4036],
    ['drift', -4036, () => time(force(-4036, { as: { apiUser: MAIN.apiUser, secret: 'wrong' } })), -4037],
    ['permission', -1026, () => send(sim, '/v1/svc/challenge', force(-1026, { as: MAIN, body: 'not json' })), -5071],
    [
      'envelope',
      -5072,
      () =>
        send(
          sim,
          '/v1/svc/challenge',
          force(-5072, { as: MAIN, body: challengeEnvelope(MAIN.apiUser, { svcUser: undefined }) }),
        ),
      -5077,
    ],
    [
      'body',
      -5077,
      () =>
        send(
          sim,
          '/v1/svc/challenge',
          force(-5077, { as: IP_USER, body: challengeEnvelope(IP_USER.apiUser, { ipAddress: '203.0.113.9' }) }),
        ),
      -6021,
    ],
    [
      'ip-rules',
      -6021,
      () =>
        send(
          sim,
          '/v1/svc/challenge',
          force(-6021, {
            as: CHALLENGE_ONLY,
            body: challengeEnvelope(CHALLENGE_ONLY.apiUser, { enableAutoVerify: true }),
          }),
        ),
      -1095,
    ],
    [
      'auto-verify',
      -1095,
      () =>
        send(
          sim,
          '/v1/svc/challenge',
          force(-1095, { as: MAIN, body: challengeEnvelope(MAIN.apiUser, { svcUser: 'locked@example.com' }) }),
        ),
      -2006,
    ],
    // The account check's own refusal comes after a forced code of the same check, too.
    [
      'account',
      -2004,
      () =>
        send(
          sim,
          '/v1/svc/challenge',
          force(-2004, { as: MAIN, body: cancelEnvelope(MAIN.apiUser, 'nope', 'locked@example.com') }),
        ),
      -2006,
    ],
  ];

  for (const [check, code, request, later] of cases) {
    it(`${check}: a forced ${code} answers before ${later}`, async () => {
      expect(codeInfo(code)!.check).toBe(check);
      const r = await request();
      expectEnvelope(r, codeInfo(code)!.http, code);
    });
  }

  it('signature, nonce-reuse and timestamp-reuse: each forced code answers before the next check', async () => {
    const nonce = randomUUID();
    const t = clientTime(sim);
    expectEnvelope(await time({ nonce, time: t }), 200, 15000);
    // The same nonce again would be -4034 at nonce-reuse: a forced -4037 answers first, at signature.
    expectEnvelope(await time(force(-4037, { nonce, time: clientTime(sim) })), 400, -4037);
    // The same time again would be -4035 at timestamp-reuse: a forced -4034 answers first.
    expectEnvelope(await time(force(-4034, { time: t })), 400, -4034);
    // An API user who may not read the time would be -1026 at permission: a forced -4035 answers first.
    expectEnvelope(await time(force(-4035, { as: CHALLENGE_ONLY })), 400, -4035);
  });

  it('covers every check but the operation', () => {
    const covered = new Set([...cases.map(([c]) => c), 'signature', 'nonce-reuse', 'timestamp-reuse']);
    expect(CHECKS.filter((c) => c !== 'operation' && !covered.has(c))).toEqual([]);
  });
});
