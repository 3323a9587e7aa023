import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CODES, startSimulator, type RunningSimulator, type StartOptions } from '../../src/index.js';
import {
  bodyOf,
  cancelEnvelope,
  challengeEnvelope,
  expectEnvelope,
  lookupEnvelope,
  rawSocket,
  send,
  simulator,
  type Sent,
  type SendOptions,
} from '../helpers.js';

/**
 * Every code of the one code table is provoked here through HTTP with real signatures, and its HTTP
 * status, code and envelope checked. The test walks the table: a code added without a way to provoke it
 * here fails.
 */

const MAIN = { apiUser: '123456789', secret: 'main-secret' };
const RESTRICTED = { apiUser: '200000001', secret: 'restricted-secret' };
const NO_AUTO = { apiUser: '200000002', secret: 'no-auto-secret' };
const DISABLED = { apiUser: '200000003', secret: 'disabled-secret' };
const IP_USER = { apiUser: '200000004', secret: 'ip-secret' };

const WORLD: StartOptions = {
  name: 'codes-world',
  apiUsers: [
    { id: MAIN.apiUser, secret: MAIN.secret },
    { id: RESTRICTED.apiUser, secret: RESTRICTED.secret, permissions: ['time'] },
    {
      id: NO_AUTO.apiUser,
      secret: NO_AUTO.secret,
      permissions: ['challenge', 'cancel', 'time', 'status', 'verify', 'blocked'],
    },
    { id: DISABLED.apiUser, secret: DISABLED.secret, state: 'disabled' },
    { id: IP_USER.apiUser, secret: IP_USER.secret, ipRules: { block: ['203.0.113.0/24'] } },
  ],
  accounts: {
    'invalid@example.com': 'invalid',
    'blocked@example.com': 'blocked',
    'tries@example.com': 'tooManyFailedAttempts',
    'locked@example.com': 'locked',
    'disabled@example.com': 'disabled',
    'inactive@example.com': 'notActive',
    'lockedout@example.com': 'lockedOut',
    'tempdisabled@example.com': 'temporarilyDisabled',
    'lockenabled@example.com': 'lockEnabled',
    '*@lockdown.example': -2038,
  },
  rules: [{ name: 'boom', when: { headers: { 'x-test-case': 'internal' } }, respond: { code: -5000 } }],
};

type Provoke = (sim: RunningSimulator) => Promise<Sent>;

const challenge = (
  sim: RunningSimulator,
  body: Record<string, unknown> = {},
  opts: SendOptions = {},
  extra: Record<string, unknown> = {},
) =>
  send(sim, '/v1/svc/challenge', {
    as: MAIN,
    ...opts,
    body: challengeEnvelope((opts.as || MAIN).apiUser, body, extra),
  });

const mutate =
  (fn: (h: Record<string, string>) => void): Provoke =>
  (sim) =>
    send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, mutate: fn });

const authPart = (from: RegExp, to: string) => mutate((h) => (h.Authorization = h.Authorization.replace(from, to)));

const account =
  (email: string): Provoke =>
  (sim) =>
    challenge(sim, { svcUser: email });

/** A fresh simulator for codes that move the clock. */
async function withOwn<T>(options: StartOptions, fn: (sim: RunningSimulator) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ ...WORLD, ...options });
  try {
    return await fn(sim);
  } finally {
    await sim.close();
  }
}

async function newChallengeId(sim: RunningSimulator, body: Record<string, unknown> = {}): Promise<string> {
  const r = await challenge(sim, body);
  expectEnvelope(r, 202, 2025);
  return (JSON.parse(r.json.message) as { challengeId: string }).challengeId;
}

/** HTTP status and code of a raw response text (for what Node's parser answers before any route). */
function rawSent(text: string): Sent {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1))
    headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  return { status, headers, text: JSON.stringify(bodyOf(text)), json: bodyOf(text) as unknown as Sent['json'] };
}

const PROVOKE: Record<number, Provoke> = {
  2025: (sim) => challenge(sim),
  2028: async (sim) => {
    const id = await newChallengeId(sim);
    return send(sim, '/v1/svc/challenge', { as: MAIN, body: cancelEnvelope(MAIN.apiUser, id) });
  },
  15000: (sim) => send(sim, '/v1/svc/time', { as: MAIN, body: { apiUser: MAIN.apiUser, type: 990, body: {} } }),
  3080: () =>
    withOwn({ clock: { frozenAt: '2026-03-01T10:00:00Z' }, autoVerify: { delay: '5s' } }, async (sim) => {
      const id = await newChallengeId(sim, { enableAutoVerify: true });
      sim.simulator.clock.advance(5_000);
      return send(sim, '/v1/svc/status', { as: MAIN, body: lookupEnvelope(MAIN.apiUser, 171, id) });
    }),
  6020: (sim) =>
    send(sim, '/v1/svc/blocked', {
      as: MAIN,
      body: { apiUser: MAIN.apiUser, type: 950, body: { ipAddress: '198.51.100.7', svcUser: 'user@example.com' } },
    }),

  [-1001]: (sim) => send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: '999999999', secret: 'whatever' } }),
  [-1003]: (sim) => send(sim, '/v1/svc/time', { method: 'GET', as: DISABLED }),
  [-1026]: (sim) => challenge(sim, {}, { as: RESTRICTED }),
  [-1095]: (sim) => challenge(sim, { enableAutoVerify: true }, { as: NO_AUTO }),

  [-2003]: account('invalid@example.com'),
  [-2004]: account('blocked@example.com'),
  [-2005]: account('tries@example.com'),
  [-2006]: account('locked@example.com'),
  [-2007]: account('disabled@example.com'),
  [-2008]: account('inactive@example.com'),
  [-2009]: account('lockedout@example.com'),
  [-2010]: account('tempdisabled@example.com'),
  [-2017]: account('lockenabled@example.com'),
  [-2038]: account('anyone@lockdown.example'),
  [-2035]: (sim) =>
    send(sim, '/v1/svc/challenge', { as: MAIN, body: cancelEnvelope(MAIN.apiUser, 'no-such-challenge') }),

  [-4000]: mutate((h) => delete h.Authorization),
  [-4001]: mutate((h) => (h.Authorization = `Bearer ${h.Authorization}`)),
  [-4004]: mutate((h) => delete h['x-svc-utctime']),
  [-4005]: mutate((h) => (h['x-svc-utctime'] = '2026-03-01T10:00:00Z')),
  [-4006]: mutate((h) => delete h['x-svc-cnonce']),
  [-4007]: mutate((h) => (h['x-svc-cnonce'] = 'not a nonce!')),
  [-4008]: mutate((h) => delete h['x-svc-apiuser']),
  [-4009]: mutate((h) => (h['x-svc-apiuser'] = '12345')),
  [-4026]: authPart(/,signature=[0-9a-f]+/, ''),
  [-4027]: authPart(/signature=[0-9a-f]+/, 'signature=<hmac.HMAC object at 0x7f7291d11670>'),
  [-4028]: authPart(/apiuser=\d+,/, ''),
  [-4029]: authPart(/apiuser=\d+/, 'apiuser=987654321'),
  [-4030]: authPart(/,algorithm=svc-hmac512/, ''),
  [-4031]: authPart(/algorithm=svc-hmac512/, 'algorithm=svc-hmac256'),
  [-4032]: authPart(/,signedheaders=[^,]+/, ''),
  [-4033]: authPart(/signedheaders=[^,]+/, 'signedheaders=x-svc-cnonce;x-svc-utctime'),
  [-4034]: async (sim) => {
    const nonce = randomUUID();
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, nonce }), 200, 15000);
    return send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, nonce, time: sim.simulator.now() + 1 });
  },
  [-4035]: async (sim) => {
    const time = sim.simulator.now() - 1234;
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time }), 200, 15000);
    return send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time });
  },
  [-4036]: (sim) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: sim.simulator.now() - 10 * 60_000 }),
  [-4037]: (sim) => send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: MAIN.apiUser, secret: 'wrong-secret' } }),

  [-5070]: (sim) => challenge(sim, {}, {}, { body: null }),
  [-5071]: (sim) => send(sim, '/v1/svc/challenge', { as: MAIN, body: 'this is not JSON' }),
  [-5072]: (sim) => challenge(sim, {}, {}, { type: 999 }),
  [-5075]: (sim) => challenge(sim, {}, {}, { id: 'x'.repeat(26) }),
  [-5076]: (sim) => challenge(sim, { challengeType: 'Fingerprint' }),
  [-5077]: (sim) => challenge(sim, { svcUser: undefined }),
  [-5078]: (sim) => challenge(sim, { challengeType: undefined }),
  [-5079]: (sim) => challenge(sim, { svcUser: 'not-an-email' }),
  [-6021]: (sim) => challenge(sim, { ipAddress: '203.0.113.9' }, { as: IP_USER }),

  [-3087]: (sim) =>
    send(sim, '/v1/svc/verify', {
      as: MAIN,
      body: lookupEnvelope(MAIN.apiUser, 170, 'no-such-challenge', { authCode: '123456' }),
    }),
  [-3091]: async (sim) => {
    const id = await newChallengeId(sim);
    return send(sim, '/v1/svc/status', { as: MAIN, body: lookupEnvelope(MAIN.apiUser, 171, id) });
  },
  [-3092]: () =>
    withOwn({ clock: { frozenAt: '2026-03-01T10:00:00Z' } }, async (sim) => {
      const id = await newChallengeId(sim, { challengeExpiry: 'ThreeMins' });
      sim.simulator.clock.advance(3 * 60_000);
      return send(sim, '/v1/svc/verify', { as: MAIN, body: lookupEnvelope(MAIN.apiUser, 170, id, { authCode: '1' }) });
    }),

  [-5000]: (sim) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, headers: { 'x-test-case': 'internal' } }),

  [-400]: async (sim) => rawSent(await rawSocket(sim.url, 'THIS IS NOT HTTP\r\n\r\n')),
  [-404]: (sim) => send(sim, '/v1/svc/nothing-here', { as: MAIN, body: {} }),
  [-405]: (sim) => send(sim, '/v1/svc/challenge', { method: 'GET', as: MAIN }),
  [-408]: () =>
    withOwn({ headersTimeout: 300, requestTimeout: 600 }, async (sim) =>
      rawSent(await rawSocket(sim.url, 'POST /v1/svc/time HTTP/1.1\r\nHost: x\r\n')),
    ),
  [-413]: (sim) => send(sim, '/v1/svc/challenge', { as: MAIN, body: JSON.stringify({ pad: 'x'.repeat(70_000) }) }),
  [-431]: async (sim) =>
    rawSent(await rawSocket(sim.url, `GET /v1/svc/time HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`)),
};

describe('every code of the code table, provoked through HTTP', async () => {
  const sim = await simulator(WORLD);

  it('has a way to provoke every code, and nothing else', () => {
    expect(Object.keys(PROVOKE).map(Number).sort()).toEqual(CODES.map((c) => c.code).sort());
  });

  for (const c of CODES) {
    it(`${c.code} (HTTP ${c.http}): ${c.title}`, async () => {
      const provoke = PROVOKE[c.code];
      expect(provoke, `no provoker for ${c.code}`).toBeDefined();
      const r = await provoke(sim);
      const e = expectEnvelope(r, c.http, c.code);
      if (c.code < 0) expect(e.message.length).toBeGreaterThan(0);
      expect(r.text).not.toContain(MAIN.secret);
    });
  }
});
