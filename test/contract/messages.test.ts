import { describe, it } from 'vitest';
import { expect } from 'vitest';
import { cancelEnvelope, challengeEnvelope, expectEnvelope, send, simulator, type SendOptions } from '../helpers.js';

/**
 * Every refusal says why, in the envelope's `message`: the code's title, then the detail a client author needs
 * (which header, which limit, by how much). These are the sentences a team reads in its own logs.
 */
const MAIN = { apiUser: '123456789', secret: 'main-secret' };
const SUSPENDED = { apiUser: '200000003', secret: 'suspended-secret' };
const TIME_ONLY = { apiUser: '200000001', secret: 'time-only-secret' };
const CHALLENGE_ONLY = { apiUser: '200000002', secret: 'challenge-only-secret' };
const IP_USER = { apiUser: '200000004', secret: 'ip-secret' };

describe('what each refusal says', async () => {
  const sim = await simulator({
    name: 'messages',
    apiUsers: [
      { id: MAIN.apiUser, secret: MAIN.secret },
      { id: SUSPENDED.apiUser, secret: SUSPENDED.secret, state: 'suspended' },
      { id: TIME_ONLY.apiUser, secret: TIME_ONLY.secret, permissions: ['time'] },
      { id: CHALLENGE_ONLY.apiUser, secret: CHALLENGE_ONLY.secret, permissions: ['challenge'] },
      { id: IP_USER.apiUser, secret: IP_USER.secret, ipRules: { block: ['203.0.113.0/24'] } },
    ],
    accounts: { 'locked@example.com': 'locked' },
  });
  const time = (opts: SendOptions) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, ...opts });
  const auth = (edit: (a: string) => string) => (h: Record<string, string>) =>
    (h.Authorization = edit(h.Authorization));

  const cases: [string, () => ReturnType<typeof send>, number, string | RegExp][] = [
    [
      'a body over the limit',
      () => send(sim, '/v1/svc/challenge', { body: 'x'.repeat(70_000) }),
      -413,
      'Payload too large: the body is larger than 65536 bytes',
    ],
    ['no endpoint', () => send(sim, '/v1/svc/nope?a=1', { as: false }), -404, 'Not found: no endpoint at /v1/svc/nope'],
    [
      'a method the endpoint does not take',
      () => send(sim, '/v1/svc/verify', { method: 'GET', as: false }),
      -405,
      'Method not allowed: GET is not allowed on /v1/svc/verify',
    ],
    ['no Authorization', () => time({ mutate: (h) => delete h.Authorization }), -4000, 'Authorization header missing'],
    [
      'an Authorization of another shape',
      () => time({ mutate: auth(() => 'Bearer x') }),
      -4001,
      'Authorization header format error: expected `svc-hmac: apiuser=...,signedheaders=...,algorithm=...,signature=...`. Hint: a Bearer header: this service takes svc-hmac: apiuser=<id>,signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=<hex>',
    ],
    [
      'a utctime that is not digits',
      () => time({ mutate: (h) => (h['x-svc-utctime'] = '17x') }),
      -4005,
      'x-svc-utctime header format error: x-svc-utctime must be 1 to 16 digits',
    ],
    [
      'a nonce too short',
      () => time({ mutate: (h) => (h['x-svc-cnonce'] = 'short') }),
      -4007,
      'Nonce header format error: x-svc-cnonce must be 8 to 128 letters, digits, - or _. Hint: 5 characters: a nonce has at least 8 (a UUID is the usual choice)',
    ],
    [
      'an API user header not 9 digits',
      () => time({ mutate: (h) => (h['x-svc-apiuser'] = '12') }),
      -4009,
      'x-svc-apiuser header format error: the API user id must be 9 digits',
    ],
    [
      'a signature not 128 hex',
      () => time({ mutate: auth((a) => a.replace(/signature=\w+/, 'signature=abc')) }),
      -4027,
      'Authorization signature format error: the signature must be 128 hexadecimal characters. Hint: 3 hexadecimal characters: an HMAC-SHA512 is 128',
    ],
    [
      'an apiuser part not 9 digits',
      () => time({ mutate: auth((a) => a.replace('apiuser=123456789', 'apiuser=12')) }),
      -4029,
      'Authorization apiuser format error: apiuser must be 9 digits',
    ],
    [
      'an apiuser part that is not the header',
      () => time({ mutate: auth((a) => a.replace('apiuser=123456789', 'apiuser=123456780')) }),
      -4029,
      'Authorization apiuser format error: apiuser differs from the x-svc-apiuser header',
    ],
    [
      'another algorithm',
      () => time({ mutate: auth((a) => a.replace('svc-hmac512', 'svc-hmac256')) }),
      -4031,
      'Authorization algorithm format error: the algorithm must be svc-hmac512',
    ],
    [
      'other signed headers',
      () => time({ mutate: auth((a) => a.replace('x-svc-utctime;x-svc-cnonce', 'x-svc-cnonce;x-svc-utctime')) }),
      -4033,
      'Authorization signed headers format error: signedheaders must be x-svc-utctime;x-svc-cnonce',
    ],
    [
      'an unknown API user',
      () => time({ as: { apiUser: '999999999', secret: 'x' } }),
      -1001,
      'API user validation error: API user 999999999 is not known',
    ],
    [
      'a suspended API user',
      () => time({ as: SUSPENDED }),
      -1003,
      'API user validation error: API user 200000003 is suspended',
    ],
    [
      'a clock an hour ahead',
      () => time({ time: sim.simulator.now() + 3_600_000 }),
      -4036,
      "utctime clock drift error: x-svc-utctime is 3600 s from the server's time (allowed ±300 s). Hint: the client's clock is 3600 s ahead of the server's, more than the 300 s allowed: this answer's utctime is the server's time; keep the difference and add it to your clock when signing",
    ],
    [
      'a clock ten minutes behind',
      () => time({ time: sim.simulator.now() - 600_000 }),
      -4036,
      "utctime clock drift error: x-svc-utctime is -600 s from the server's time (allowed ±300 s). Hint: the client's clock is 600 s behind the server's, more than the 300 s allowed: this answer's utctime is the server's time; keep the difference and add it to your clock when signing",
    ],
    [
      'a wrong secret',
      () => time({ as: { apiUser: MAIN.apiUser, secret: 'wrong' } }),
      -4037,
      /^Signature error\. Hint: no common mistake matches; sign exactly "x-svc-utctime: \d{13}\\nx-svc-cnonce: [0-9a-f-]{36}" \(79 bytes of UTF-8: one \\n between the lines, nothing after\) with HMAC-SHA512 keyed with the API user's secret, as 128 hexadecimal characters\. Everything else signed is as expected, so the secret most likely differs from API user 123456789's \(or the client signs for another identifier token than svc\)$/,
    ],
    [
      'an operation not permitted',
      () => send(sim, '/v1/svc/challenge', { as: TIME_ONLY, body: challengeEnvelope(TIME_ONLY.apiUser) }),
      -1026,
      'API user permissions error: API user 200000001 may not call challenge',
    ],
    [
      'an endpoint none of whose operations is permitted',
      () => send(sim, '/v1/svc/status', { as: TIME_ONLY, body: 'x' }),
      -1026,
      'API user permissions error: API user 200000001 may not call status',
    ],
    [
      'a type the endpoint does not take',
      () => send(sim, '/v1/svc/challenge', { as: MAIN, body: challengeEnvelope(MAIN.apiUser, {}, { type: 999 }) }),
      -5072,
      'Request JSON body type unknown: type 999 is not an operation of /v1/svc/challenge, which takes 150, 151 or 950',
    ],
    [
      'a blocked address',
      () =>
        send(sim, '/v1/svc/challenge', {
          as: IP_USER,
          body: challengeEnvelope(IP_USER.apiUser, { ipAddress: '203.0.113.5' }),
        }),
      -6021,
      "Request blocked: IP address location blocked: 203.0.113.5 is blocked by API user 200000004's rules",
    ],
    [
      'auto-verify not permitted',
      () =>
        send(sim, '/v1/svc/challenge', {
          as: CHALLENGE_ONLY,
          body: challengeEnvelope(CHALLENGE_ONLY.apiUser, { enableAutoVerify: true }),
        }),
      -1095,
      'API user auto-verify disabled: API user 200000002 may not use enableAutoVerify',
    ],
    [
      'a locked account',
      () =>
        send(sim, '/v1/svc/challenge', {
          as: MAIN,
          body: challengeEnvelope(MAIN.apiUser, { svcUser: 'locked@example.com' }),
        }),
      -2006,
      'Account locked: the account locked@example.com is not usable',
    ],
    [
      'a cancel of an unknown challenge',
      () => send(sim, '/v1/svc/challenge', { as: MAIN, body: cancelEnvelope(MAIN.apiUser, 'nope') }),
      -2035,
      'Challenge cancelled error: no such challenge for this user',
    ],
  ];

  for (const [what, request, code, message] of cases) {
    it(`${what} (${code})`, async () => {
      const r = await request();
      expect(r.json.code).toBe(code);
      if (typeof message === 'string') expect(r.json.message).toBe(message);
      else expect(r.json.message).toMatch(message);
    });
  }

  it('a reused nonce and a reused time', async () => {
    const t = sim.simulator.now() - 1234;
    expectEnvelope(await time({ time: t, nonce: 'a-nonce-used-twice' }), 200, 15000);
    const first = sim.journal({ limit: 1 })[0];
    const at = first.at.slice(11, 23);
    expect((await time({ time: t + 1, nonce: 'a-nonce-used-twice' })).json.message).toBe(
      `Nonce reused: this nonce was used before. Hint: request ${first.seq} used this nonce first (at ${at}, answered HTTP 200 (15000)): make a new nonce for every request`,
    );
    expect((await time({ time: t })).json.message).toMatch(
      new RegExp(
        `^Timestamp reused: this utctime was used before\\. Hint: request ${first.seq} was signed (in the same millisecond: two requests signed in one millisecond collide|with this time \\d+ s earlier: sign every request)`,
      ),
    );
  });
});
