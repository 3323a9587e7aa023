import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Hint } from '../../src/doctor/doctor.js';
import { expectEnvelope, send, simulator } from '../helpers.js';

/**
 * The shapes the doctor recognises in a misshapen header, from the value alone: each shape named with its exact
 * hint, and the same shape with something before or after it not taken for it (every pattern holds the whole value).
 * Sent over HTTP as a client sends them; the hint read from the journal. The mistakes found with the secret:
 * signature-doctor.test.ts.
 */
const MAIN = { apiUser: '123456789', secret: 'shapes-secret' };
const T = Date.UTC(2026, 0, 15, 12, 0, 0);
const DAY = 86_400_000;
const HEX = (n: number) =>
  randomBytes(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);
const EXPECTED_AUTHORIZATION =
  'svc-hmac: apiuser=<id>,signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=<hex>';

/** A value of one header or part, the code it is refused with, and the hint expected: exact, or "not this id". */
type Case = [value: string, hint: Hint | { not: string }];

describe('the shapes of misshapen headers', async () => {
  const sim = await simulator({
    name: 'shapes',
    apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
    clock: { frozenAt: T },
  });
  let t = T;

  async function hintFor(
    code: number,
    mutate: (h: Record<string, string>) => void,
    time = ++t,
  ): Promise<Hint | undefined> {
    sim.freeze(T);
    const r = await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time, mutate });
    expect(r.json.code, JSON.stringify(r.json)).toBe(code);
    const [entry] = sim.journal({ limit: 1 });
    return entry.hint;
  }

  function check(value: string, got: Hint | undefined, want: Case[1]) {
    if ('not' in want) expect(got?.id, value).not.toBe(want.not);
    else expect(got, value).toEqual(want);
  }

  it('the signature part (-4027): the text of an object, quotes, 0x, separators, another length, one wrong character, Base64', async () => {
    const javaObject = 'com.example.Signer@1a2b3c';
    const long = `${'x'.repeat(32)}@abcd1234`;
    const base64 = randomBytes(64).toString('base64').replace(/=+$/, '').slice(0, 84);
    const cases: Case[] = [
      [
        '<hmac.HMAC object at 0x7f1d4a27ff10>',
        {
          id: 'object-text',
          text: 'the signature is the text of a Python object (<hmac.HMAC object at 0x…>), not its digest: send hmac.new(secret, message, hashlib.sha512).hexdigest()',
        },
      ],
      ['x<hmac.HMAC object at 0x7f1d4a27ff10>', { not: 'object-text' }],
      ['<hmac.HMAC object at 0x7f1d4a27ff10>x', { not: 'object-text' }],
      [
        '[B@1b6d3586',
        {
          id: 'object-text',
          text: 'the signature is the text of a Java byte array ([B@…), not its digest: write the bytes as hexadecimal (HexFormat.of().formatHex(bytes))',
        },
      ],
      ['x[B@1b6d3586', { not: 'object-text' }],
      ['[B@1b6d3586z', { not: 'object-text' }],
      [
        '[object Object]',
        {
          id: 'object-text',
          text: "the signature is the text of an object (`[object Object]`), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters",
        },
      ],
      ['x[object Object]', { not: 'object-text' }],
      ['[object Object]x', { not: 'object-text' }],
      [
        'Resource id #12',
        {
          id: 'object-text',
          text: "the signature is the text of an object (`Resource id #12`), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters",
        },
      ],
      ['Resource id #', { not: 'object-text' }],
      [
        javaObject,
        {
          id: 'object-text',
          text: `the signature is the text of an object (\`${javaObject}\`), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters`,
        },
      ],
      ['com.example.Signer@1a2', { not: 'object-text' }],
      ['-com.example.Signer@1a2b3c', { not: 'object-text' }],
      // Quoted whole up to 40 characters, by its length past them.
      [
        long.slice(1),
        {
          id: 'object-text',
          text: `the signature is the text of an object (\`${long.slice(1)}\`), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters`,
        },
      ],
      [
        long,
        {
          id: 'object-text',
          text: "the signature is the text of an object (a value of 41 characters), not its digest: write the HMAC-SHA512's bytes as 128 hexadecimal characters",
        },
      ],
      ["'abc'", { id: 'quoted', text: 'the signature is in quotes: send the hexadecimal characters bare' }],
      ["''", { not: 'quoted' }],
      ["x'abc'", { not: 'quoted' }],
      ["'abc'x", { not: 'quoted' }],
      [
        '0xabc123',
        { id: 'hex-prefix', text: 'the signature starts with 0x: send the 128 hexadecimal characters alone' },
      ],
      ['10xabc123', { not: 'hex-prefix' }],
      ['0xabc123z', { not: 'hex-prefix' }],
      ['ab:cd:ef', { id: 'separated-hex', text: 'the hexadecimal digits are separated: send the 128 digits together' }],
      ['xab:cd:ef', { not: 'separated-hex' }],
      ['ab:cd:ef:', { not: 'separated-hex' }],
      [
        HEX(64),
        {
          id: 'digest-length',
          text: '64 hexadecimal characters, the length of an HMAC-SHA256: sign with HMAC-SHA512, which is 128',
        },
      ],
      [HEX(50), { id: 'digest-length', text: '50 hexadecimal characters: an HMAC-SHA512 is 128' }],
      [`${HEX(4)}g${HEX(123)}`, { id: 'not-hex', text: '128 characters, but `g` at position 5 is not hexadecimal' }],
      [
        base64,
        {
          id: 'base64',
          text: `Base64 of ${Buffer.from(base64, 'base64').length} bytes: write the HMAC-SHA512's 64 bytes as 128 hexadecimal characters`,
        },
      ],
      [`!${base64.slice(1)}`, { not: 'base64' }],
      [`${base64.slice(1)}!`, { not: 'base64' }],
    ];
    for (const [value, want] of cases) {
      // A value no client could have computed with the secret: the shape alone names it.
      const got = await hintFor(
        -4027,
        (h) => (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature=${value}`)),
      );
      check(value, got, want);
    }
  });

  it('the Authorization header (-4001): a bare signature, another token, another scheme', async () => {
    const bare = HEX(128);
    const cases: Case[] = [
      [bare, { id: 'bare-signature', text: `the header holds only a signature: send ${EXPECTED_AUTHORIZATION}` }],
      [`x${bare}`, { not: 'bare-signature' }],
      [`${bare}x`, { not: 'bare-signature' }],
      [
        'acme-hmac: apiuser=123456789',
        {
          id: 'other-token',
          text: 'the Authorization scheme uses the token acme, but this simulator runs with the token svc: start it with --token acme (scenario key `token`) for a client configured for acme',
        },
      ],
      [
        'ACME-HMAC: apiuser=123456789',
        {
          id: 'other-token',
          text: 'the Authorization scheme uses the token acme, but this simulator runs with the token svc: start it with --token acme (scenario key `token`) for a client configured for acme',
        },
      ],
      // Its own token, in capitals: not another token.
      ['SVC-HMAC: nonsense', { not: 'other-token' }],
      ['1acme-hmac: apiuser=123456789', { not: 'other-token' }],
      ['Bearer abc.def', { id: 'other-scheme', text: `a Bearer header: this service takes ${EXPECTED_AUTHORIZATION}` }],
      [
        'signature keyId=1',
        { id: 'other-scheme', text: `a signature header: this service takes ${EXPECTED_AUTHORIZATION}` },
      ],
      ['xBearer abc', { not: 'other-scheme' }],
      ['Bearerx abc', { not: 'other-scheme' }],
    ];
    for (const [value, want] of cases) check(value, await hintFor(-4001, (h) => (h.Authorization = value)), want);
  });

  it('the time header (-4005): too many digits, a fraction, a date', async () => {
    const cases: Case[] = [
      [
        '12345678901234567',
        { id: 'time-units', text: '17 digits: send milliseconds since the epoch (13 digits today)' },
      ],
      [
        '1234567890123456789',
        { id: 'time-units', text: '19 digits: send milliseconds since the epoch (13 digits today), not nanoseconds' },
      ],
      ['x12345678901234567', { not: 'time-units' }],
      ['12345678901234567x', { not: 'time-units' }],
      [
        '1768478400.5',
        { id: 'time-fraction', text: 'a number with a fraction: send whole milliseconds since the epoch' },
      ],
      ['x1768478400.5', { not: 'time-fraction' }],
      ['1768478400.5x', { not: 'time-fraction' }],
      ['2026-01-15T12:00:00Z', { id: 'time-as-date', text: 'an ISO 8601 date: send milliseconds since the epoch' }],
      ['2026-01-15 12:00', { id: 'time-as-date', text: 'an ISO 8601 date: send milliseconds since the epoch' }],
      ['x2026-01-15T12:00', { not: 'time-as-date' }],
      ['2026-01-15T12:0', { not: 'time-as-date' }],
      [
        'Thu, 15 Jan 2026 12:00:00 GMT',
        { id: 'time-as-date', text: 'an HTTP date: send milliseconds since the epoch' },
      ],
      ['xThu, 15 Jan 2026 12:00:00 GMT', { not: 'time-as-date' }],
    ];
    for (const [value, want] of cases) check(value, await hintFor(-4005, (h) => (h['x-svc-utctime'] = value)), want);
  });

  it('the nonce header (-4007): braces, Base64, too short', async () => {
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const cases: Case[] = [
      [`{${uuid}}`, { id: 'nonce-braces', text: 'a UUID in braces: send the UUID without them' }],
      [`x{${uuid}}`, { not: 'nonce-braces' }],
      [`{${uuid}}x`, { not: 'nonce-braces' }],
      ['abc+def/ghi=', { id: 'nonce-base64', text: 'Base64 with + / or =: use Base64url without padding, or a UUID' }],
      ['!abc+def/ghi=', { not: 'nonce-base64' }],
      ['abc+def/ghi=!', { not: 'nonce-base64' }],
      ['abcdefg', { id: 'nonce-short', text: '7 characters: a nonce has at least 8 (a UUID is the usual choice)' }],
      ['ab', { id: 'nonce-short', text: '2 characters: a nonce has at least 8 (a UUID is the usual choice)' }],
      ['ab!', { not: 'nonce-short' }],
    ];
    for (const [value, want] of cases) check(value, await hintFor(-4007, (h) => (h['x-svc-cnonce'] = value)), want);
  });

  it('a time off (-4036): in seconds, in microseconds, behind or ahead; a day from the line is not taken for other units', async () => {
    const behind = (s: number) =>
      `the client's clock is ${s} s behind the server's, more than the 300 s allowed: this answer's utctime is the server's time; keep the difference and add it to your clock when signing`;
    const ahead = (s: number) =>
      `the client's clock is ${s} s ahead of the server's, more than the 300 s allowed: this answer's utctime is the server's time; keep the difference and add it to your clock when signing`;
    const cases: [number, Hint][] = [
      [
        T / 1000,
        { id: 'time-in-seconds', text: 'the time is in seconds since the epoch: send milliseconds (seconds × 1000)' },
      ],
      [
        T / 1000 + DAY / 1000 - 1,
        { id: 'time-in-seconds', text: 'the time is in seconds since the epoch: send milliseconds (seconds × 1000)' },
      ],
      [T / 1000 + DAY / 1000, { id: 'clock-behind', text: behind(Math.round((T - (T / 1000 + DAY / 1000)) / 1000)) }],
      [
        T * 1000,
        { id: 'time-in-microseconds', text: 'the time is in microseconds since the epoch: send milliseconds' },
      ],
      [
        (T + DAY - 1) * 1000,
        { id: 'time-in-microseconds', text: 'the time is in microseconds since the epoch: send milliseconds' },
      ],
      [(T + DAY) * 1000, { id: 'clock-ahead', text: ahead(Math.round(((T + DAY) * 1000 - T) / 1000)) }],
      [T - 301_000, { id: 'clock-behind', text: behind(301) }],
      [T + 400_400, { id: 'clock-ahead', text: ahead(400) }],
    ];
    for (const [time, want] of cases) {
      expect(await hintFor(-4036, () => undefined, time), String(time)).toEqual(want);
    }
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: T + 299_000 }), 200, 15000);
  });
});
