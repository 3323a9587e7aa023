import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HmacKey } from '../src/auth/hmac-key.js';

// The kept hash states must give exactly what createHmac gives, for keys on each side of SHA-512's 128-byte block
// (a longer key is hashed first, a shorter one padded) and for messages of any length and script.
describe('HmacKey: HMAC-SHA512 with its pads hashed once', () => {
  const keys = [
    '',
    'k',
    'test-secret',
    'ключ-секрет-🔑',
    'a'.repeat(127),
    'a'.repeat(128),
    'a'.repeat(129),
    'é'.repeat(64), // 128 bytes in UTF-8, 64 characters
    'é'.repeat(65), // 130 bytes: hashed first
    'x'.repeat(10_000),
  ];
  // Messages are put together in a 4 KiB scratch buffer: the last two are longer than it in UTF-8 (two and three bytes
  // a character).
  const messages = [
    '',
    'x-svc-utctime: 1795000000000\nx-svc-cnonce: 0b6f1c6e-2c7a-4a4e-9d1e-1b2c3d4e5f60',
    'ü'.repeat(300),
    'm'.repeat(129),
    'ü'.repeat(2000),
    '€'.repeat(1400),
  ];

  it.each(
    keys.map((k) => [k.length > 20 ? `${k.slice(0, 8)}… (${Buffer.byteLength(k)} bytes)` : JSON.stringify(k), k]),
  )('key %s: the same bytes as createHmac', (_, secret) => {
    const key = new HmacKey(Buffer.from(secret, 'utf8'));
    for (const message of messages) {
      const expected = createHmac('sha512', secret).update(message).digest();
      expect(key.hexDigest(message)).toBe(expected.toString('hex'));
      expect(key.digest(message).equals(expected)).toBe(true);
    }
  });

  it('each digest starts from the kept states: the order of messages does not matter', () => {
    const key = new HmacKey(Buffer.from('test-secret'));
    const first = key.hexDigest('one');
    key.hexDigest('two');
    key.hexDigest('');
    expect(key.hexDigest('one')).toBe(first);
    expect(first).not.toBe(key.hexDigest('two'));
  });
});
