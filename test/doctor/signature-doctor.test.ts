import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { Doctor, DIAGNOSES_PER_SECOND } from '../../src/doctor/doctor.js';
import { stringToSign } from '../../src/index.js';
import { clientTime, expectEnvelope, send, simulator, type SendOptions } from '../helpers.js';

/**
 * The signature doctor: each mistake clients are known to make, made on purpose with the real secret, is named in
 * the answer's message and the journal, while the code and status stay what the interface document says. A client
 * that does not know the secret learns nothing it could not compute.
 */
const SECRET = 'doctor-secret';
const MAIN = { apiUser: '123456789', secret: SECRET };

type Edit = (parts: { time: string; nonce: string; toSign: string }) => string;
const hmac = (algorithm: string, key: string | Buffer, text: string, encoding: 'hex' | 'base64' = 'hex') =>
  createHmac(algorithm, key).update(text).digest(encoding);

describe('the signature doctor names each known mistake', async () => {
  const sim = await simulator({ name: 'doctor', apiUsers: [{ id: MAIN.apiUser, secret: SECRET }] });

  /** A time request whose signature is `edit`'s, the rest as a correct client sends it. */
  async function signedAs(edit: Edit, opts: SendOptions = {}) {
    const time = String(clientTime(sim));
    const nonce = randomUUID();
    const signature = edit({ time, nonce, toSign: stringToSign(time, nonce) });
    return send(sim, '/v1/svc/time', {
      method: 'GET',
      as: MAIN,
      time: Number(time),
      nonce,
      mutate: (h) => (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature=${signature}`)),
      ...opts,
    });
  }

  const cases: [string, number, Edit, string, RegExp][] = [
    [
      'HMAC-SHA256',
      -4027,
      ({ toSign }) => hmac('sha256', SECRET, toSign),
      'sha256',
      /signed with HMAC-SHA256: sign with HMAC-SHA512$/,
    ],
    [
      'HMAC-SHA1',
      -4027,
      ({ toSign }) => hmac('sha1', SECRET, toSign),
      'sha1',
      /signed with HMAC-SHA1: sign with HMAC-SHA512$/,
    ],
    [
      'the digest in Base64',
      -4027,
      ({ toSign }) => hmac('sha512', SECRET, toSign, 'base64'),
      'base64',
      /written in Base64: write its bytes as hexadecimal/,
    ],
    [
      'HMAC-SHA256 in Base64',
      -4027,
      ({ toSign }) => hmac('sha256', SECRET, toSign, 'base64'),
      'sha256+base64',
      /HMAC-SHA256: sign with HMAC-SHA512; the digest is written in Base64/,
    ],
    [
      'a trailing newline',
      -4037,
      ({ toSign }) => hmac('sha512', SECRET, `${toSign}\n`),
      'trailing-newline',
      /ends with a line break/,
    ],
    [
      'a trailing \\r\\n',
      -4037,
      ({ toSign }) => hmac('sha512', SECRET, `${toSign}\r\n`),
      'trailing-crlf',
      /ends with \\r\\n/,
    ],
    [
      'lines joined by \\r\\n',
      -4037,
      ({ toSign }) => hmac('sha512', SECRET, toSign.replace('\n', '\r\n')),
      'crlf',
      /joined with \\r\\n: join them with \\n alone/,
    ],
    [
      'the lines swapped',
      -4037,
      ({ time, nonce }) => hmac('sha512', SECRET, `x-svc-cnonce: ${nonce}\nx-svc-utctime: ${time}`),
      'swapped-lines',
      /lines are swapped/,
    ],
    [
      'header names in title case',
      -4037,
      ({ time, nonce }) => hmac('sha512', SECRET, `X-Svc-Utctime: ${time}\nX-Svc-Cnonce: ${nonce}`),
      'header-case',
      /signed as X-Svc-Utctime: sign them in lower case/,
    ],
    [
      'header names in capitals',
      -4037,
      ({ time, nonce }) => hmac('sha512', SECRET, `X-SVC-UTCTIME: ${time}\nX-SVC-CNONCE: ${nonce}`),
      'header-case',
      /in capitals/,
    ],
    [
      'no space after the colons',
      -4037,
      ({ time, nonce }) => hmac('sha512', SECRET, `x-svc-utctime:${time}\nx-svc-cnonce:${nonce}`),
      'no-space',
      /no space after the colons/,
    ],
    [
      'the values only',
      -4037,
      ({ time, nonce }) => hmac('sha512', SECRET, `${time}\n${nonce}`),
      'values-only',
      /only the values were signed/,
    ],
    [
      'seconds signed',
      -4037,
      ({ time, nonce }) => hmac('sha512', SECRET, stringToSign(time.slice(0, -3), nonce)),
      'seconds',
      /the time signed is in seconds \(\d{10}\)/,
    ],
    [
      'the method and path signed',
      -4037,
      ({ toSign }) => hmac('sha512', SECRET, `GET /v1/svc/time\n${toSign}`),
      'path-signed',
      /method and path were signed/,
    ],
    [
      'the API user id as key',
      -4037,
      ({ toSign }) => hmac('sha512', MAIN.apiUser, toSign),
      'keyed-with-api-user',
      /keyed with the API user id/,
    ],
    [
      'an empty secret',
      -4037,
      ({ toSign }) => hmac('sha512', '', toSign),
      'empty-secret',
      /keyed with an empty secret/,
    ],
    [
      'the secret with a line break',
      -4037,
      ({ toSign }) => hmac('sha512', `${SECRET}\n`, toSign),
      'secret-newline',
      /a line break after it/,
    ],
  ];
  for (const [what, code, edit, id, text] of cases) {
    it(`${what}: ${code}, named ${id}, everywhere it is shown`, async () => {
      const r = await signedAs(edit);
      const e = expectEnvelope(r, 400, code);
      expect(e.message).toMatch(new RegExp(`\\. Hint: .*${text.source}`));
      const [entry] = sim.journal({ limit: 1 });
      expect(entry.hint?.id).toBe(id);
      expect(entry.hint?.text).toMatch(text);
      expect(e.message).not.toContain(SECRET);
    });
  }

  it('another token: x-svc- signed where the simulator runs with another, and the reverse', async () => {
    const other = await simulator({ name: 'acme', token: 'acme', apiUsers: [{ id: MAIN.apiUser, secret: SECRET }] });
    const time = clientTime(other);
    const nonce = randomUUID();
    const r = await send(other, '/v1/svc/time', {
      method: 'GET',
      as: MAIN,
      token: 'acme',
      time,
      nonce,
      mutate: (h) =>
        (h.Authorization = h.Authorization.replace(
          /signature=[0-9a-f]+/,
          `signature=${hmac('sha512', SECRET, stringToSign(String(time), nonce, 'svc'))}`,
        )),
    });
    expect(expectEnvelope(r, 400, -4037).message).toMatch(
      /signed with the token svc \(x-svc-utctime\), but this simulator runs with acme/,
    );
    // The reverse: a client configured for `acme` (its body names acmeUser) signs x-acme- lines to a simulator on svc.
    const body = {
      id: 'ref-1',
      utctime: String(Date.now()),
      apiUser: MAIN.apiUser,
      type: 150,
      body: { acmeUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
    };
    const back = await signedAs(({ time: t, nonce: n }) => hmac('sha512', SECRET, stringToSign(t, n, 'acme')), {
      body,
    });
    expect(back.status).toBe(400);
    const [entry] = sim.journal({ limit: 1 });
    expect(entry.code).toBe(-4037);
    expect(entry.hint?.text).toMatch(/signed with the token acme \(x-acme-utctime\), but this simulator runs with svc/);
  });

  it('the body signed as well', async () => {
    const body = {
      id: 'ref-1',
      utctime: String(Date.now()),
      apiUser: MAIN.apiUser,
      type: 150,
      body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
    };
    const text = JSON.stringify(body);
    const time = String(clientTime(sim));
    const nonce = randomUUID();
    const r = await send(sim, '/v1/svc/challenge', {
      as: MAIN,
      body: text,
      time: Number(time),
      nonce,
      mutate: (h) =>
        (h.Authorization = h.Authorization.replace(
          /signature=[0-9a-f]+/,
          `signature=${hmac('sha512', SECRET, `${stringToSign(time, nonce)}\n${text}`)}`,
        )),
    });
    expect(expectEnvelope(r, 400, -4037).message).toMatch(/Hint: the body was signed as well/);
  });

  it('a secret trimmed, and a secret decoded from hexadecimal, by the client', async () => {
    const spaced = await simulator({
      name: 'spaced',
      apiUsers: [
        { id: MAIN.apiUser, secret: '  padded-secret ' },
        { id: '222333444', secret: 'a1b2c3d4e5f6' },
      ],
    });
    const as = (apiUser: string, key: string | Buffer, secret: string) => {
      const time = clientTime(spaced);
      const nonce = randomUUID();
      return send(spaced, '/v1/svc/time', {
        method: 'GET',
        as: { apiUser, secret },
        time,
        nonce,
        mutate: (h) =>
          (h.Authorization = h.Authorization.replace(
            /signature=[0-9a-f]+/,
            `signature=${hmac('sha512', key, stringToSign(String(time), nonce))}`,
          )),
      });
    };
    expect(expectEnvelope(await as(MAIN.apiUser, 'padded-secret', '  padded-secret '), 400, -4037).message).toMatch(
      /without its leading or trailing spaces/,
    );
    expect(
      expectEnvelope(await as('222333444', Buffer.from('a1b2c3d4e5f6', 'hex'), 'a1b2c3d4e5f6'), 400, -4037).message,
    ).toMatch(/hexadecimal decoded to bytes/);
  });

  it('no known mistake: the exact string expected and its bytes, never the secret', async () => {
    const r = await signedAs(({ toSign }) => hmac('sha512', 'a-secret-the-client-guessed', toSign));
    const e = expectEnvelope(r, 400, -4037);
    const [entry] = sim.journal({ limit: 1 });
    expect(entry.hint?.id).toBe('no-known-mistake');
    const expected = entry.expectedStringToSign!;
    expect(e.message).toContain(
      `sign exactly ${JSON.stringify(expected)} (${Buffer.byteLength(expected)} bytes of UTF-8`,
    );
    expect(e.message).not.toContain(SECRET);
    // Nothing derived from the secret: no HMAC under it of the string, in any encoding or length.
    for (const algorithm of ['sha512', 'sha256', 'sha1']) {
      const digest = createHmac(algorithm, SECRET).update(expected).digest();
      for (const shown of [digest.toString('hex'), digest.toString('base64'), digest.toString('hex').slice(0, 16)])
        expect(e.message).not.toContain(shown);
    }
  });

  it('the code and the status never change: a hint is only words', async () => {
    const good = await signedAs(({ toSign }) => hmac('sha512', SECRET, toSign));
    expectEnvelope(good, 200, 15000);
    expect(sim.journal({ limit: 1 })[0].hint).toBeUndefined();
  });
});

describe('shapes and clocks', async () => {
  const sim = await simulator({ name: 'shapes', apiUsers: [{ id: MAIN.apiUser, secret: SECRET }] });
  const time = (opts: SendOptions) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, ...opts });
  const part = (v: string) => (h: Record<string, string>) =>
    (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature=${v}`));

  it('-4027: the text of a Python object, a Java byte array, a short hex, a 0x prefix, quotes, separators', async () => {
    const shapes: [string, RegExp][] = [
      [
        '<hmac.HMAC object at 0x7f1d4a27ff10>',
        /text of a Python object \(<hmac\.HMAC object at 0x…>\), not its digest: send hmac\.new\(secret, message, hashlib\.sha512\)\.hexdigest\(\)/,
      ],
      ['[B@1b6d3586', /text of a Java byte array/],
      ['ab'.repeat(32), /64 hexadecimal characters, the length of an HMAC-SHA256/],
      ['ab'.repeat(20), /40 hexadecimal characters, the length of an HMAC-SHA1/],
      ['ab'.repeat(10), /20 hexadecimal characters: an HMAC-SHA512 is 128/],
      [`0x${'ab'.repeat(64)}`, /starts with 0x/],
      [`"${'ab'.repeat(64)}"`, /in quotes/],
      [Array(64).fill('ab').join(':'), /digits are separated/],
      [`${'ab'.repeat(63)}zz`, /128 characters, but `z` at position 127 is not hexadecimal/],
    ];
    for (const [value, text] of shapes) {
      const e = expectEnvelope(await time({ mutate: part(value) }), 400, -4027);
      expect(e.message, value).toMatch(text);
    }
  });

  it('-4027 from an API user the simulator does not know: the shape alone (no secret to try), never a failure', async () => {
    const stranger = { apiUser: '987654321', secret: SECRET };
    const base64 = Buffer.from('ab'.repeat(64), 'hex').toString('base64');
    const unknown = expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', as: stranger, mutate: part(base64) }),
      400,
      -4027,
    );
    expect(unknown.message).toMatch(/Base64/);
  });

  it('-4001: a bare signature, another scheme, another token', async () => {
    const auth = (v: string) => (h: Record<string, string>) => (h.Authorization = v);
    expect(expectEnvelope(await time({ mutate: auth('ab'.repeat(64)) }), 400, -4001).message).toMatch(
      /holds only a signature: send svc-hmac: apiuser=<id>/,
    );
    expect(expectEnvelope(await time({ mutate: auth('Bearer abc.def') }), 400, -4001).message).toMatch(
      /a Bearer header/,
    );
    expect(expectEnvelope(await time({ mutate: auth('acme-hmac: apiuser=123456789') }), 400, -4001).message).toMatch(
      /the Authorization scheme uses the token acme, but this simulator runs with the token svc: start it with --token acme/,
    );
    // Word for word, the edges of each, and headers that get no hint.
    const expected =
      'svc-hmac: apiuser=<id>,signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=<hex>';
    const hints: [string, string | undefined][] = [
      ['ab'.repeat(32), `the header holds only a signature: send ${expected}`],
      ['ab'.repeat(64), `the header holds only a signature: send ${expected}`],
      [`${'a'.repeat(63)}`, undefined],
      [
        'ACME-hmac : apiuser=1',
        'the Authorization scheme uses the token acme, but this simulator runs with the token svc: start it with --token acme (scenario key `token`) for a client configured for acme',
      ],
      ['Basic dXNlcjpwYXNz', `a Basic header: this service takes ${expected}`],
      ['signature keyId="x"', `a signature header: this service takes ${expected}`],
      ['Bearerish', undefined],
      ['hello', undefined],
    ];
    for (const [value, text] of hints) {
      const m = expectEnvelope(await time({ mutate: auth(value) }), 400, -4001).message;
      expect(m.includes('. Hint: ') ? m.slice(m.indexOf('. Hint: ') + 8) : undefined, value).toBe(text);
    }
  });

  it('-4005 and -4007: a date, a fraction, nanoseconds; a braced UUID, Base64, a short nonce', async () => {
    const header = (name: string, v: string) => (h: Record<string, string>) => (h[name] = v);
    expect(
      expectEnvelope(await time({ mutate: header('x-svc-utctime', new Date().toISOString()) }), 400, -4005).message,
    ).toMatch(/an ISO 8601 date/);
    expect(
      expectEnvelope(await time({ mutate: header('x-svc-utctime', '1795280859.132') }), 400, -4005).message,
    ).toMatch(/a number with a fraction/);
    expect(
      expectEnvelope(await time({ mutate: header('x-svc-utctime', '1795280859132000000') }), 400, -4005).message,
    ).toMatch(/19 digits: .*not nanoseconds/);
    expect(
      expectEnvelope(await time({ mutate: header('x-svc-cnonce', `{${randomUUID()}}`) }), 400, -4007).message,
    ).toMatch(/a UUID in braces/);
    expect(expectEnvelope(await time({ mutate: header('x-svc-cnonce', 'q83vEjRWeJA=') }), 400, -4007).message).toMatch(
      /Base64 with \+ \/ or =/,
    );
    expect(expectEnvelope(await time({ mutate: header('x-svc-cnonce', 'abc') }), 400, -4007).message).toMatch(
      /3 characters: a nonce has at least 8/,
    );
  });

  it('each shape is named word for word, and a value that has none gets no hint', async () => {
    const stranger = { apiUser: '987654321', secret: SECRET };
    const header = (name: string, v: string) => (h: Record<string, string>) => (h[name] = v);
    const hintOf = (message: string) =>
      message.includes('. Hint: ') ? message.slice(message.indexOf('. Hint: ') + 8) : undefined;
    const signatures: [string, string | undefined][] = [
      [
        '[object Object]',
        "the signature is the text of an object (`[object Object]`), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters",
      ],
      [
        'System.Byte[]',
        "the signature is the text of an object (`System.Byte[]`), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters",
      ],
      [
        'Resource id #7',
        "the signature is the text of an object (`Resource id #7`), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters",
      ],
      [
        '[B@6d06d69c',
        'the signature is the text of a Java byte array ([B@…), not its digest: write the bytes as hexadecimal (HexFormat.of().formatHex(bytes))',
      ],
      ["'abcdef'", 'the signature is in quotes: send the hexadecimal characters bare'],
      ['0xABCDEF', 'the signature starts with 0x: send the 128 hexadecimal characters alone'],
      ['ab-cd-ef', 'the hexadecimal digits are separated: send the 128 digits together'],
      ['ab'.repeat(16), '32 hexadecimal characters, the length of an HMAC-MD5: sign with HMAC-SHA512, which is 128'],
      ['ab'.repeat(48), '96 hexadecimal characters, the length of an HMAC-SHA384: sign with HMAC-SHA512, which is 128'],
      ['abc', '3 hexadecimal characters: an HMAC-SHA512 is 128'],
      [`g${'a'.repeat(127)}`, '128 characters, but `g` at position 1 is not hexadecimal'],
      [
        Buffer.alloc(64, 7).toString('base64'),
        "Base64 of 64 bytes: write the HMAC-SHA512's 64 bytes as 128 hexadecimal characters",
      ],
      ['not a digest at all!', undefined],
      ['x'.repeat(127), undefined],
    ];
    for (const [value, text] of signatures) {
      const e = expectEnvelope(
        await send(sim, '/v1/svc/time', { method: 'GET', as: stranger, mutate: part(value) }),
        400,
        -4027,
      );
      expect(hintOf(e.message), value).toBe(text);
    }
    const times: [string, string | undefined][] = [
      ['1'.repeat(17), '17 digits: send milliseconds since the epoch (13 digits today)'],
      ['1'.repeat(19), '19 digits: send milliseconds since the epoch (13 digits today), not nanoseconds'],
      ['1795280859.5', 'a number with a fraction: send whole milliseconds since the epoch'],
      ['2026-11-23 10:00:00', 'an ISO 8601 date: send milliseconds since the epoch'],
      ['Mon, 23 Nov 2026 10:00:00 GMT', 'an HTTP date: send milliseconds since the epoch'],
      ['soon', undefined],
    ];
    for (const [value, text] of times)
      expect(
        hintOf(expectEnvelope(await time({ mutate: header('x-svc-utctime', value) }), 400, -4005).message),
        value,
      ).toBe(text);
    const nonces: [string, string | undefined][] = [
      [`{${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}}`, 'a UUID in braces: send the UUID without them'],
      ['ab/cd+ef==', 'Base64 with + / or =: use Base64url without padding, or a UUID'],
      ['a-b_c', '5 characters: a nonce has at least 8 (a UUID is the usual choice)'],
      ['abc-d_f', '7 characters: a nonce has at least 8 (a UUID is the usual choice)'],
      ['abc.def', undefined],
    ];
    for (const [value, text] of nonces)
      expect(
        hintOf(expectEnvelope(await time({ mutate: header('x-svc-cnonce', value) }), 400, -4007).message),
        value,
      ).toBe(text);
  });

  it('-4036: how far and which way, or seconds and microseconds for milliseconds', async () => {
    const now = sim.simulator.now();
    expect(expectEnvelope(await time({ time: now - 400_000 }), 400, -4036).message).toMatch(
      /clock is 400 s behind the server's, more than the 300 s allowed: this answer's utctime is the server's time/,
    );
    expect(expectEnvelope(await time({ time: now + 3_600_000 }), 400, -4036).message).toMatch(
      /clock is 3600 s ahead of the server's/,
    );
    expect(expectEnvelope(await time({ time: Math.floor(now / 1000) }), 400, -4036).message).toMatch(
      /the time is in seconds since the epoch: send milliseconds/,
    );
    expect(expectEnvelope(await time({ time: now * 1000 }), 400, -4036).message).toMatch(/the time is in microseconds/);
  });

  it('-4034: by which request the nonce was first used; a retry of a request that failed in transit is told to sign again', async () => {
    const nonce = randomUUID();
    expectEnvelope(await time({ nonce }), 200, 15000);
    const first = sim.journal({ limit: 1 })[0].seq;
    const again = expectEnvelope(await time({ nonce }), 400, -4034);
    expect(again.message).toMatch(
      new RegExp(
        `Hint: request ${first} used this nonce first \\(at \\d\\d:\\d\\d:\\d\\d\\.\\d{3}, answered HTTP 200 \\(15000\\)\\): make a new nonce`,
      ),
    );
    expect(sim.journal({ limit: 1 })[0].hint?.id).toBe('nonce-reused');

    const flaky = await simulator({
      name: 'flaky',
      apiUsers: [{ id: MAIN.apiUser, secret: SECRET }],
      rules: [{ name: 'once', when: { endpoint: 'time' }, times: 1, respond: { code: -5000 } }],
    });
    const retried = randomUUID();
    // A forced error takes back what its request stored: the retry is accepted, and nothing is hinted.
    expectEnvelope(await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN, nonce: retried }), 500, -5000);
    expectEnvelope(await send(flaky, '/v1/svc/time', { method: 'GET', as: MAIN, nonce: retried }), 200, 15000);
    const garbled = await simulator({
      name: 'garbled',
      apiUsers: [{ id: MAIN.apiUser, secret: SECRET }],
      rules: [{ name: 'once', when: { endpoint: 'time' }, times: 1, fault: 'truncate' }],
    });
    const n = randomUUID();
    await send(garbled, '/v1/svc/time', { method: 'GET', as: MAIN, nonce: n }).catch(() => undefined);
    const retry = expectEnvelope(
      await send(garbled, '/v1/svc/time', { method: 'GET', as: MAIN, nonce: n }),
      400,
      -4034,
    );
    expect(retry.message).toMatch(
      /Hint: request 1 used this nonce and got a network fault \(truncate\): a retry must be signed again, with a new nonce and time/,
    );
  });

  it('-4035: the same millisecond, told apart from a time reused later', async () => {
    const t = clientTime(sim);
    const [a, b] = await Promise.all([time({ time: t }), time({ time: t })]);
    const refused = [a, b].find((r) => r.json.code === -4035)!;
    expect(refused.json.message).toMatch(
      /Hint: request \d+ was signed in the same millisecond: two requests signed in one millisecond collide/,
    );
    expect(sim.journal({ limit: 1 })[0].hint?.id).toBe('same-millisecond');
  });

  it('auth: log writes each would-be failure with its hint', async () => {
    const log = await simulator({ name: 'log', auth: 'log', apiUsers: [{ id: MAIN.apiUser, secret: SECRET }] });
    const t = clientTime(log);
    const nonce = randomUUID();
    expectEnvelope(
      await send(log, '/v1/svc/time', {
        method: 'GET',
        as: MAIN,
        time: t,
        nonce,
        mutate: part(hmac('sha512', SECRET, `${stringToSign(String(t), nonce)}\n`)),
      }),
      200,
      15000,
    );
    expect(log.journal({ limit: 1 })[0].wouldFail).toEqual([
      {
        code: -4037,
        reason: 'Signature error',
        hint: { id: 'trailing-newline', text: expect.stringMatching(/ends with a line break/) },
      },
    ]);
  });
});

describe('hints: false', async () => {
  const sim = await simulator({ name: 'bare', hints: false, apiUsers: [{ id: MAIN.apiUser, secret: SECRET }] });

  it("answers every refusal with the code's bare meaning; the journal still has the diagnosis", async () => {
    const t = clientTime(sim);
    const nonce = randomUUID();
    const r = await send(sim, '/v1/svc/time', {
      method: 'GET',
      as: MAIN,
      time: t,
      nonce,
      mutate: (h) =>
        (h.Authorization = h.Authorization.replace(
          /signature=[0-9a-f]+/,
          `signature=${hmac('sha256', SECRET, stringToSign(String(t), nonce))}`,
        )),
    });
    expect(expectEnvelope(r, 400, -4027).message).toBe('Authorization signature format error');
    expect(sim.journal({ limit: 1 })[0].hint?.id).toBe('sha256');
    const drift = await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: sim.simulator.now() - 600_000 });
    expect(expectEnvelope(drift, 400, -4036).message).toBe('utctime clock drift error');
    // A message a rule forces is the test author's, kept.
    sim.loadScenario({
      name: 'forced',
      hints: false,
      apiUsers: [{ id: MAIN.apiUser, secret: SECRET }],
      rules: [{ when: { endpoint: 'time' }, respond: { code: -4036, message: 'as I wrote it' } }],
    });
    expect(expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN }), 400, -4036).message).toBe(
      'as I wrote it',
    );
  });
});

describe('the cost of diagnosis is bounded', () => {
  it(`past ${DIAGNOSES_PER_SECOND} full diagnoses in a second, a refusal is not diagnosed (no HMAC tried), and says so`, () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const doctor = new Doctor();
      const r = {
        secret: SECRET,
        apiUser: MAIN.apiUser,
        token: 'svc',
        utctime: '1795000000000',
        nonce: 'nonce-1234',
        method: 'GET',
        path: '/v1/svc/time',
        body: '',
      };
      const mistaken = hmac('sha512', SECRET, `${stringToSign(r.utctime, r.nonce)}\n`);
      const ids = Array.from({ length: DIAGNOSES_PER_SECOND + 5 }, () => doctor.refusedSignature(r, mistaken).id);
      expect(ids.slice(0, DIAGNOSES_PER_SECOND).every((id) => id === 'trailing-newline')).toBe(true);
      expect(ids.slice(DIAGNOSES_PER_SECOND)).toEqual(Array(5).fill('not-diagnosed'));
      vi.advanceTimersByTime(1000);
      expect(doctor.refusedSignature(r, mistaken).id).toBe('trailing-newline');
    } finally {
      vi.useRealTimers();
    }
  });
});
