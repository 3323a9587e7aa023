// HMAC-SHA512 as the baselines of the budget table check it: the fastest way Node offers, each API user's key pads
// made once, then two one-shot SHA-512 hashes (as mfa-sim's HmacKey does). The benchmark's API user 90000nnnn
// signs with bench-secret-n (bench/lib.ts names them so).
import { createHash, hash } from 'node:crypto';

/** Where the inner hash's input is put together (the signed lines of a request are far shorter than this). */
const scratch = Buffer.alloc(4096);

/** The inner pad, and the outer pad followed by room for the inner digest, per API user, made once. */
const pads = new Map();
function padsOf(apiUser) {
  let p = pads.get(apiUser);
  if (!p) {
    const block = Buffer.alloc(128);
    const key = Buffer.from(`bench-secret-${Number(apiUser) - 900_000_000}`);
    (key.length > 128 ? createHash('sha512').update(key).digest() : key).copy(block);
    p = { inner: Buffer.from(block.map((b) => b ^ 0x36)), outer: Buffer.alloc(192) };
    for (let i = 0; i < 128; i++) p.outer[i] = block[i] ^ 0x5c;
    pads.set(apiUser, p);
  }
  return p;
}

/** The outer hash's input for a request: the API user's outer pad, then the inner hash of the two signed lines. */
export function outerInput(apiUser, utctime, nonce) {
  const p = padsOf(apiUser);
  // The inner pad and the message put together in one scratch buffer: no concatenation.
  p.inner.copy(scratch, 0);
  const length = 128 + scratch.write(`x-svc-utctime: ${utctime}\nx-svc-cnonce: ${nonce}`, 128, 'utf8');
  hash('sha512', scratch.subarray(0, length), 'buffer').copy(p.outer, 128);
  return p.outer;
}
