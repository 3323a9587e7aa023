import { describe, it } from 'vitest';
import { challengeEnvelope, cancelEnvelope, expectEnvelope, send, simulator, type SendOptions } from '../helpers.js';

/**
 * When a request has several faults, the first failing check of docs/behaviour.md#order-of-checks decides. Each case
 * below has two (or more) faults; the code must be the earlier one's.
 */
const MAIN = { apiUser: '123456789', secret: 'main-secret' };
const DISABLED = { apiUser: '200000003', secret: 'disabled-secret' };
const RESTRICTED = { apiUser: '200000001', secret: 'restricted-secret' };
const IP_USER = { apiUser: '200000004', secret: 'ip-secret' };
const NO_AUTO = { apiUser: '200000002', secret: 'no-auto-secret' };

describe('order of checks (docs/behaviour.md#order-of-checks)', async () => {
  const sim = await simulator({
    name: 'order',
    apiUsers: [
      { id: MAIN.apiUser, secret: MAIN.secret },
      { id: DISABLED.apiUser, secret: DISABLED.secret, state: 'suspended' },
      { id: RESTRICTED.apiUser, secret: RESTRICTED.secret, permissions: ['time'] },
      { id: IP_USER.apiUser, secret: IP_USER.secret, ipRules: { block: ['203.0.113.0/24'] } },
      { id: NO_AUTO.apiUser, secret: NO_AUTO.secret, permissions: ['challenge'] },
    ],
    accounts: { 'locked@example.com': 'locked' },
  });
  const time = (opts: SendOptions) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, ...opts });
  const challenge = (body: Record<string, unknown>, opts: SendOptions = {}, extra: Record<string, unknown> = {}) =>
    send(sim, '/v1/svc/challenge', {
      as: MAIN,
      ...opts,
      body: challengeEnvelope((opts.as || MAIN).apiUser, body, extra),
    });

  const cases: [string, () => ReturnType<typeof send>, number, number][] = [
    ['404 path beats missing authentication', () => send(sim, '/v1/svc/nope', { as: false }), 404, -404],
    [
      '405 method beats missing authentication',
      () => send(sim, '/v1/svc/verify', { method: 'GET', as: false }),
      405,
      -405,
    ],
    [
      'missing Authorization beats missing utctime',
      () => time({ mutate: (h) => (delete h.Authorization, delete h['x-svc-utctime']) }),
      400,
      -4000,
    ],
    [
      'Authorization shape beats a bad nonce',
      () => time({ mutate: (h) => ((h.Authorization = 'svc-hmac apiuser=1'), (h['x-svc-cnonce'] = '!')) }),
      400,
      -4001,
    ],
    [
      'utctime beats nonce',
      () => time({ mutate: (h) => ((h['x-svc-utctime'] = 'x'), delete h['x-svc-cnonce']) }),
      400,
      -4005,
    ],
    [
      'nonce beats apiuser header',
      () => time({ mutate: (h) => ((h['x-svc-cnonce'] = 'short'), delete h['x-svc-apiuser']) }),
      400,
      -4007,
    ],
    [
      'apiuser header beats the Authorization parts',
      () =>
        time({
          mutate: (h) => (
            (h['x-svc-apiuser'] = 'abc'),
            (h.Authorization = h.Authorization.replace(/signature=\w+/, 'signature=zz'))
          ),
        }),
      400,
      -4009,
    ],
    [
      'signature part beats apiuser part',
      () =>
        time({
          mutate: (h) =>
            (h.Authorization = h.Authorization.replace(/signature=\w+/, 'signature=12').replace(/apiuser=\d+,/, '')),
        }),
      400,
      -4027,
    ],
    [
      'apiuser part beats algorithm part',
      () =>
        time({
          mutate: (h) =>
            (h.Authorization = h.Authorization.replace('apiuser=123456789', 'apiuser=123').replace(
              'svc-hmac512',
              'md5',
            )),
        }),
      400,
      -4029,
    ],
    [
      'algorithm beats signedheaders',
      () =>
        time({
          mutate: (h) =>
            (h.Authorization = h.Authorization.replace('svc-hmac512', 'md5').replace(
              /signedheaders=[^,]+/,
              'signedheaders=a',
            )),
        }),
      400,
      -4031,
    ],
    [
      'unknown API user beats drift and signature',
      () => time({ as: { apiUser: '999999999', secret: 'x' }, time: sim.simulator.now() - 3_600_000 }),
      400,
      -1001,
    ],
    [
      'unusable API user beats drift and signature',
      () => time({ as: { apiUser: DISABLED.apiUser, secret: 'wrong' }, time: 1 }),
      400,
      -1003,
    ],
    [
      'drift beats a bad signature',
      () => time({ as: { apiUser: MAIN.apiUser, secret: 'wrong' }, time: sim.simulator.now() + 3_600_000 }),
      400,
      -4036,
    ],
    [
      'permission beats a broken body',
      () => send(sim, '/v1/svc/challenge', { as: RESTRICTED, body: 'not json' }),
      400,
      -1026,
    ],
    [
      'a null body beats a wrong envelope apiUser',
      () => challenge({}, {}, { body: null, apiUser: '111111111' }),
      400,
      -5070,
    ],
    [
      'a non-object body beats a wrong envelope apiUser',
      () => challenge({}, {}, { body: [1, 2], apiUser: '111111111' }),
      400,
      -5071,
    ],
    [
      'the envelope apiUser beats an unknown type',
      () => challenge({}, {}, { apiUser: '111111111', type: 5 }),
      400,
      -1003,
    ],
    [
      'an unknown type beats body errors',
      () => challenge({ svcUser: 'nope', challengeType: 'x' }, {}, { type: 990 }),
      400,
      -5072,
    ],
    [
      '-5075 beats -5076: a bad expiry and a bad challenge type',
      () => challenge({ challengeExpiry: 'TwoMins', challengeType: 'x' }),
      400,
      -5075,
    ],
    [
      '-5076 beats -5077: a bad challenge type and no user',
      () => challenge({ challengeType: 'x', svcUser: undefined }),
      400,
      -5076,
    ],
    [
      '-5077 beats -5078: no user and no challenge type',
      () => challenge({ svcUser: undefined, challengeType: undefined }),
      400,
      -5077,
    ],
    [
      '-5078 beats -5079: no challenge type and a bad e-mail',
      () => challenge({ challengeType: undefined, svcUser: 'bad' }),
      400,
      -5078,
    ],
    [
      'body errors beat IP rules',
      () => challenge({ ipAddress: '203.0.113.5', challengeType: 'x' }, { as: IP_USER }),
      400,
      -5076,
    ],
    [
      'IP rules beat auto-verify permission and account state',
      () =>
        challenge({ ipAddress: '203.0.113.5', svcUser: 'locked@example.com', enableAutoVerify: true }, { as: IP_USER }),
      400,
      -6021,
    ],
    [
      'auto-verify permission beats account state',
      () => challenge({ svcUser: 'locked@example.com', enableAutoVerify: true }, { as: NO_AUTO }),
      400,
      -1095,
    ],
    [
      'account state beats the operation',
      () =>
        send(sim, '/v1/svc/challenge', {
          as: MAIN,
          body: cancelEnvelope(MAIN.apiUser, 'unknown', 'locked@example.com'),
        }),
      400,
      -2006,
    ],
  ];

  for (const [name, run, http, code] of cases) {
    it(`${name} (${code})`, async () => {
      expectEnvelope(await run(), http, code);
    });
  }

  it('signature beats nonce reuse, and the forged request does not burn the nonce', async () => {
    const nonce = 'c0ffee00-0000-4000-8000-000000000001';
    expectEnvelope(await time({ nonce, as: { apiUser: MAIN.apiUser, secret: 'forged' } }), 400, -4037);
    expectEnvelope(await time({ nonce }), 200, 15000);
    expectEnvelope(
      await time({ nonce, as: { apiUser: MAIN.apiUser, secret: 'forged' }, time: sim.simulator.now() + 5 }),
      400,
      -4037,
    );
  });

  it('nonce reuse beats timestamp reuse', async () => {
    const nonce = 'c0ffee00-0000-4000-8000-000000000002';
    const t = sim.simulator.now() - 777;
    expectEnvelope(await time({ nonce, time: t }), 200, 15000);
    expectEnvelope(await time({ nonce, time: t }), 400, -4034);
  });
});
