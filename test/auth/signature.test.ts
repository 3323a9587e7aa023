import { describe, expect, it } from 'vitest';
import { authorizationValue, sign, signedHeaders, stringToSign } from '../../src/index.js';
import { parseAuthorization } from '../../src/auth/signature.js';
import { signatureMatches, signingLines } from '../../src/auth/signature.js';
import { compileOrThrow } from '../../src/scenario/load.js';
import { expectEnvelope, simulator, raw } from '../helpers.js';

/**
 * Known vectors, computed outside this code base with OpenSSL:
 *   printf 'x-svc-utctime: 1795000000000\nx-svc-cnonce: 0f8b2c4e-3a51-4d6e-9b7a-2c1d0e9f8a7b' \
 *     | openssl dgst -sha512 -hmac 'test-secret'
 * The second is the signature the published Java client sent in fixtures/client-requests/java-challenge-new.json.
 */
const VECTORS = [
  {
    token: 'svc',
    secret: 'test-secret',
    time: '1795000000000',
    nonce: '0f8b2c4e-3a51-4d6e-9b7a-2c1d0e9f8a7b',
    hex: 'eb7620ed35e59b58dd2cb8a01d464bcb46cbc2c102866c0c01df99efc56a5fad52fcb246cf7e54491cf88d32fa493c11a2c26fdbf5562c0a1b1876e922e2a379',
  },
  {
    token: 'gridy',
    secret: 'test-secret-1',
    time: '1795280853472',
    nonce: '1289bc7f-9b7a-4c89-81ab-93b9eb2a6d20',
    hex: 'c08bbf4b8abb57ba411329e64ce63ca76774a63e613474cd4827ae91755b98332e3285db895d71ba56a38437020252084c1728b27ea7015bb4f21035578b09eb',
  },
  {
    token: 'svc',
    secret: 'sécret-ü',
    time: '1',
    nonce: 'abcdefgh',
    hex: '6c37b3fa7a6df81196826d1b3a6cdb8fc959a6479a72d6aa5c6884e0ea676d7a717d3370a32e9d036cb9b2573b8dfd3824ab51d795a713088d8a15402407c97b',
  },
];

describe('signing (docs/behaviour.md#signing-and-header-formats)', () => {
  it('builds the string-to-sign exactly: two header lines, one space after each colon, no trailing newline', () => {
    expect(stringToSign('1795000000000', 'abc12345', 'svc')).toBe(
      'x-svc-utctime: 1795000000000\nx-svc-cnonce: abc12345',
    );
    expect(stringToSign('1', 'abc12345', 'gridy')).toBe('x-gridy-utctime: 1\nx-gridy-cnonce: abc12345');
  });

  for (const v of VECTORS) {
    it(`matches the independently computed vector for ${v.token}/${v.secret}`, () => {
      expect(sign(v.secret, v.time, v.nonce, v.token)).toBe(v.hex);
    });
  }

  it('writes the Authorization value the published clients send', () => {
    expect(authorizationValue('123456789', 'ab'.repeat(64), 'svc')).toBe(
      `svc-hmac: apiuser=123456789,signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=${'ab'.repeat(64)}`,
    );
    const h = signedHeaders({ apiUser: '123456789', secret: 's', token: 'gridy', time: 5, nonce: 'n0nce-123' });
    expect(Object.keys(h)).toEqual(['Authorization', 'x-gridy-apiuser', 'x-gridy-utctime', 'x-gridy-cnonce']);
    expect(h['x-gridy-utctime']).toBe('5');
  });

  it('a compiled scenario holds the names its token makes, the same the signing functions use', () => {
    for (const token of ['svc', 'gridy', 'a1']) {
      const { names } = compileOrThrow({ name: 'x', token }, 'test');
      expect(names).toEqual({
        utctime: `x-${token}-utctime`,
        nonce: `x-${token}-cnonce`,
        apiUser: `x-${token}-apiuser`,
        signedHeaders: `x-${token}-utctime;x-${token}-cnonce`,
        algorithm: `${token}-hmac512`,
        userKey: `${token}User`,
      });
      expect(signingLines(names, '5', 'n0nce-123')).toBe(stringToSign('5', 'n0nce-123', token));
      expect(Object.keys(signedHeaders({ apiUser: '123456789', secret: 's', token }))).toEqual([
        'Authorization',
        names.apiUser,
        names.utctime,
        names.nonce,
      ]);
    }
  });

  it('parses Authorization parts in any order, with spaces, case-insensitive scheme', () => {
    expect(
      parseAuthorization(' SVC-HMAC:  signature=ab , algorithm = svc-hmac512,apiuser=1,signedheaders=x', 'svc'),
    ).toEqual({
      signature: 'ab',
      algorithm: 'svc-hmac512',
      apiuser: '1',
      signedheaders: 'x',
    });
    expect(parseAuthorization('svc-hmac: apiuser=1,apiuser=2', 'svc')).toBeUndefined();
    expect(parseAuthorization('svc-hmac: apiuser', 'svc')).toBeUndefined();
    expect(parseAuthorization('Bearer abc', 'svc')).toBeUndefined();
    // The scheme starts the value: a value that only ends with it is another scheme's.
    expect(parseAuthorization('XXXXXXXXXapiuser=1,signature=svc-hmac:', 'svc')).toBeUndefined();
    expect(parseAuthorization('svc-hmac: colour=blue', 'svc')).toBeUndefined();
    // A part's value is one line, whatever the line break; the last part too.
    for (const br of ['\n', '\r', '\u2028', '\u2029']) {
      expect(parseAuthorization(`svc-hmac: apiuser=1${br}2,algorithm=a`, 'svc')).toBeUndefined();
      expect(parseAuthorization(`svc-hmac: algorithm=a,apiuser=1${br}2`, 'svc')).toBeUndefined();
    }
    // Empty pieces and empty keys are malformed.
    expect(parseAuthorization('svc-hmac: apiuser=1,,algorithm=a', 'svc')).toBeUndefined();
    expect(parseAuthorization('svc-hmac: =1', 'svc')).toBeUndefined();
    // An equals sign only in a later piece does not make an earlier piece a key=value.
    expect(parseAuthorization('svc-hmac: apiuser,algorithm=a', 'svc')).toBeUndefined();
    // A key written in capitals is the same key, once: a repeat in another case is refused.
    expect(parseAuthorization('svc-hmac: ApiUser=1', 'svc')).toEqual({ apiuser: '1' });
    expect(parseAuthorization('svc-hmac: apiuser=1,APIUSER=2', 'svc')).toBeUndefined();
  });

  it('a line break around a part (spaces the grammar skips) is allowed; only one inside a value refuses the header', () => {
    for (const br of ['\n', '\r', '\u2028', '\u2029']) {
      expect(parseAuthorization(`svc-hmac:${br}apiuser=1,algorithm${br}=a`, 'svc')).toEqual({
        apiuser: '1',
        algorithm: 'a',
      });
      expect(parseAuthorization(`svc-hmac: apiuser= 1${br},algorithm=a${br}`, 'svc')).toEqual({
        apiuser: '1',
        algorithm: 'a',
      });
      expect(parseAuthorization(`svc-hmac:${br}apiuser=1,algorithm=a${br}b`, 'svc')).toBeUndefined();
      expect(parseAuthorization(`svc-hmac: apiuser=1${br}2${br},algorithm=a`, 'svc')).toBeUndefined();
    }
  });

  it('a signature that is not 64 bytes never matches (and never throws)', () => {
    const key = 'test-secret';
    const toSign = stringToSign('1795000000000', 'nonce-123', 'svc');
    const right = sign('test-secret', '1795000000000', 'nonce-123', 'svc');
    expect(signatureMatches(key, toSign, right)).toBe(true);
    for (const short of ['', 'ab', right.slice(0, 126), `${right}00`])
      expect(signatureMatches(key, toSign, short)).toBe(false);
  });

  it('compares every character: one changed anywhere is refused; only A-F count as a-f', () => {
    const key = 'test-secret';
    const toSign = stringToSign('1795000000000', 'nonce-123', 'svc');
    const right = sign('test-secret', '1795000000000', 'nonce-123', 'svc');
    expect(right).toMatch(/^[0-9a-f]{128}$/);
    expect(signatureMatches(key, toSign, right.toUpperCase())).toBe(true);
    const at = (i: number, c: string) => `${right.slice(0, i)}${c}${right.slice(i + 1)}`;
    for (const i of [0, 1, 63, 64, 126, 127]) {
      const other = right[i] === '0' ? '1' : '0';
      expect(signatureMatches(key, toSign, at(i, other))).toBe(false);
      // Characters one bit away from the right one, in either direction of the case bit: never the same.
      const code = right.charCodeAt(i);
      for (const near of [code ^ 0x20, code ^ 0x01, code - 0x20])
        if (near !== code && near > 0)
          expect(signatureMatches(key, toSign, at(i, String.fromCharCode(near))), `${i} ${near}`).toBe(
            near >= 0x41 && near <= 0x46 && near + 0x20 === code,
          );
    }
  });
});

describe('the server verifies the vectors over HTTP', async () => {
  const v = VECTORS[0];
  const sim = await simulator({ apiUser: '123456789', secret: v.secret, clock: { frozenAt: Number(v.time) } });

  it('accepts the vector signature, in lower or upper case hex', async () => {
    const headers = (hex: string, nonce: string): [string, string][] => [
      ['Authorization', authorizationValue('123456789', hex)],
      ['x-svc-apiuser', '123456789'],
      ['x-svc-utctime', v.time],
      ['x-svc-cnonce', nonce],
    ];
    expectEnvelope(await raw(sim.url, 'GET', '/v1/svc/time', headers(v.hex, v.nonce)), 200, 15000);
    const other = '11111111-2222-3333-4444-555555555555';
    const upper = sign(v.secret, '1795000000001', other).toUpperCase();
    const h = headers(upper, other);
    h[2] = ['x-svc-utctime', '1795000000001'];
    expectEnvelope(await raw(sim.url, 'GET', '/v1/svc/time', h), 200, 15000);
  });

  it('rejects a signature one hex digit off (-4037)', async () => {
    const bad = (v.hex[0] === 'e' ? 'f' : 'e') + v.hex.slice(1);
    const nonce = '99999999-2222-3333-4444-555555555555';
    const r = await raw(sim.url, 'GET', '/v1/svc/time', [
      ['Authorization', authorizationValue('123456789', bad)],
      ['x-svc-apiuser', '123456789'],
      ['x-svc-utctime', '1795000000002'],
      ['x-svc-cnonce', nonce],
    ]);
    expectEnvelope(r, 400, -4037);
  });
});
