import { describe, expect, it } from 'vitest';
import { expectEnvelope, send, simulator } from '../helpers.js';

const who = { apiUser: '123456789', secret: 'parse-secret' };

/** A request body as text, exactly as given. */
const text = (s: string) => s;

describe('lenient parsing (the default, docs/behaviour.md#leniency-and-body-checks)', async () => {
  const sim = await simulator({ apiUser: who.apiUser, secret: who.secret });
  const post = (body: unknown, path = '/v1/svc/challenge') => send(sim, path, { as: who, body });

  it('accepts body as a relaxed-JSON string: single quotes, boolean strings, a trailing comma', async () => {
    const r = await post(
      text(
        `{"id":"j1","utcTime":"1","apiUser":"123456789","type":150,"body":"{ 'svcUser': 'user@example.com', 'challengeType': 'UserKeyAndPattern', 'challengeExpiry': 'ThreeMins', 'enableQRCode': 'false', 'enableAutoVerify': 'false', 'status': 'NEW', }"}`,
      ),
    );
    const e = expectEnvelope(r, 202, 2025);
    expect(Object.keys(JSON.parse(e.message))).toEqual(['challengeId', 'challengeQRcodeUrl']);
  });

  it('accepts the aliases real clients send: utcTime, apiuser, enableQRCode, challngeId', async () => {
    const made = await post({
      id: 'a1',
      utcTime: '1',
      apiuser: who.apiUser,
      type: 150,
      body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndUserPin', enableQRCode: true },
    });
    const { challengeId, challengeQRcode } = JSON.parse(expectEnvelope(made, 202, 2025).message);
    expect(challengeQRcode).toMatch(/^data:image\/png;base64,/);
    const cancel = await post({
      id: 'a2',
      utcTime: '1',
      apiUser: who.apiUser,
      type: 151,
      body: { challngeId: challengeId, svcUser: 'user@example.com', status: 'CANCEL' },
    });
    expect(JSON.parse(expectEnvelope(cancel, 202, 2028).message)).toEqual({ status: 'CANCELLED' });
  });

  it('accepts a Base64-encoded e-mail, type as a string, and TenMins / SixtyMins', async () => {
    const user = Buffer.from('user@example.com').toString('base64');
    expectEnvelope(
      await post({
        apiUser: who.apiUser,
        type: '150',
        body: { svcUser: user, challengeType: 'UserKeyAndUserFace', challengeExpiry: 'TenMins' },
      }),
      202,
      2025,
    );
    expectEnvelope(
      await post({
        apiUser: who.apiUser,
        type: 150,
        body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndUserVoice', challengeExpiry: 'SixtyMins' },
      }),
      202,
      2025,
    );
  });

  it('answers type 950 sent to /challenge as the blocked check', async () => {
    const r = await post({
      apiUser: who.apiUser,
      type: 950,
      body: `{ 'ipAddress': '127.0.0.1', 'svcUser': 'user@example.com', }`,
    });
    expectEnvelope(r, 200, 6020);
  });

  it('still rejects what no reading can save: a string that is not even relaxed JSON, a wrong status, a wrong type', async () => {
    expectEnvelope(await post({ apiUser: who.apiUser, type: 150, body: '{ not: json, at all' }), 400, -5071);
    expectEnvelope(
      await post({
        apiUser: who.apiUser,
        type: 150,
        body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', status: 'CANCEL' },
      }),
      400,
      -5075,
    );
    expectEnvelope(
      await post({
        apiUser: who.apiUser,
        type: 150,
        body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: 'maybe' },
      }),
      400,
      -5075,
    );
    expectEnvelope(
      await post({
        apiUser: who.apiUser,
        type: 150,
        body: { svcUser: 'x'.repeat(120) + '@example.com', challengeType: 'UserKeyAndPattern' },
      }),
      400,
      -5075,
    );
  });

  it('reads the whole envelope as relaxed JSON too', async () => {
    expectEnvelope(
      await post(
        text(
          `{id:'r1', apiUser:'123456789', type:150, body:{svcUser:'user@example.com', challengeType:'UserKeyAndPattern',},}`,
        ),
      ),
      202,
      2025,
    );
  });

  it('ignores keys it does not know', async () => {
    expectEnvelope(
      await post({
        apiUser: who.apiUser,
        type: 150,
        extra: 1,
        body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', colour: 'blue' },
      }),
      202,
      2025,
    );
  });
});

describe('strict parsing (strict: true)', async () => {
  const sim = await simulator({ apiUser: who.apiUser, secret: who.secret, strict: true });
  const post = (body: unknown, path = '/v1/svc/challenge') => send(sim, path, { as: who, body });
  const good = {
    id: 's1',
    utctime: '1795000000000',
    apiUser: who.apiUser,
    type: 150,
    body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
  };

  it('accepts what the document shows', async () => {
    expectEnvelope(await post(good), 202, 2025);
    expectEnvelope(
      await post({
        ...good,
        apiuser: who.apiUser,
        apiUser: undefined,
        body: { ...good.body, enableQRCode: false, enableQRcode: undefined },
      }),
      202,
      2025,
    );
  });

  const refused: [string, unknown, number][] = [
    ['a body written as a string', { ...good, body: JSON.stringify(good.body) }, -5071],
    [
      'an envelope that is only relaxed JSON',
      text(`{id:'s1', utctime:'1', apiUser:'123456789', type:150, body:{}}`),
      -5071,
    ],
    ['the alias utcTime', { ...good, utctime: undefined, utcTime: '1' }, -5075],
    ['an unknown envelope key', { ...good, extra: 1 }, -5075],
    ['an unknown body key', { ...good, body: { ...good.body, colour: 'blue' } }, -5075],
    ['a boolean written as a string', { ...good, body: { ...good.body, enableQRcode: 'true' } }, -5075],
    ['TenMins', { ...good, body: { ...good.body, challengeExpiry: 'TenMins' } }, -5075],
    ['type as a string', { ...good, type: '150' }, -5072],
    [
      'type 950 on /challenge',
      { ...good, type: 950, body: { svcUser: 'user@example.com', ipAddress: '127.0.0.1' } },
      -5072,
    ],
    [
      'a Base64 e-mail',
      { ...good, body: { ...good.body, svcUser: Buffer.from('user@example.com').toString('base64') } },
      -5079,
    ],
    ['a null field', { ...good, body: { ...good.body, profile: null } }, -5075],
  ];
  for (const [what, body, code] of refused) {
    it(`refuses ${what} (${code})`, async () => {
      expectEnvelope(await post(body), 400, code);
    });
  }
});

describe('the identifier token is one setting', async () => {
  const sim = await simulator({ token: 'acme', apiUser: who.apiUser, secret: who.secret });

  it('derives header names, scheme, algorithm and the user field from it', async () => {
    const r = await send(sim, '/v1/svc/challenge', {
      as: who,
      token: 'acme',
      body: {
        apiUser: who.apiUser,
        type: 150,
        body: { acmeUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
      },
    });
    expectEnvelope(r, 202, 2025);
  });

  it('does not accept the default spelling when another token is set', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who, token: 'svc' }), 400, -4001);
    const r = await send(sim, '/v1/svc/challenge', {
      as: who,
      token: 'acme',
      body: {
        apiUser: who.apiUser,
        type: 150,
        body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
      },
    });
    expectEnvelope(r, 400, -5077);
  });
});

describe('responseStyle', async () => {
  const sim = await simulator({ apiUser: who.apiUser, secret: who.secret, responseStyle: 'sdk' });
  it('sdk spells the time key utcTime, as the published clients parse it, and nothing else changes', async () => {
    const r = await send(sim, '/v1/svc/time', { method: 'GET', as: who });
    const e = expectEnvelope(r, 200, 15000, 'sdk');
    expect(e.utctime).toBeUndefined();
    expect(JSON.parse(e.message)['utc-time']).toMatch(/^\d{10}$/);
  });
});

describe('a body is parsed once and read by every part (the rules, the envelope check, the client doctor)', async () => {
  // Two simulators in one process share the parser's memory of the last texts: each must still read its own way.
  const lenient = await simulator({ apiUser: who.apiUser, secret: who.secret });
  const strict = await simulator({ apiUser: who.apiUser, secret: who.secret, strict: true });
  const post = (sim: typeof lenient, body: string) => send(sim, '/v1/svc/challenge', { as: who, body });
  const envelope = (user: string, body = `{"svcUser":"${user}","challengeType":"UserKeyAndPattern"}`) =>
    `{"id":"m1","utctime":"1795000000000","apiUser":"${who.apiUser}","type":150,"body":${body}}`;

  it('the same relaxed text, in turns: refused where strict, read where lenient, every time', async () => {
    const relaxed = envelope(
      'user@example.com',
      `"{'svcUser':'user@example.com','challengeType':'UserKeyAndPattern',}"`,
    );
    for (let i = 0; i < 3; i++) {
      expectEnvelope(await post(strict, relaxed), 400, -5071);
      expectEnvelope(await post(lenient, relaxed), 202, 2025);
    }
    expect(lenient.findings().map((f) => f.id)).toContain('body-relaxed-json');
  });

  it('texts of the same length, in turns, are each read as themselves', async () => {
    const users = ['aaaa@example.com', 'bbbb@example.com', 'cccc@example.com'];
    for (const round of [0, 1]) {
      for (const user of users) {
        const made = JSON.parse(
          expectEnvelope(await post(round ? strict : lenient, envelope(user)), 202, 2025).message,
        ) as { challengeId: string };
        expect((round ? strict : lenient).simulator.findChallenge(made.challengeId)?.user).toBe(user);
      }
    }
  });
});
