import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Where a simulator's random values come from: the machine's crypto source by default, or a seeded generator
 * (sfc32) so that the simulated world (challenge ids, response ids, auth codes, names) is the same from run to run
 * (`--seed`). What must not be guessed never comes from here (see `unguessable`).
 */
export class RandomSource {
  private readonly next: (() => number) | undefined;

  constructor(readonly seed?: number) {
    this.next = seed === undefined ? undefined : sfc32(seed);
  }

  /** A 32-bit unsigned integer. */
  uint32(): number {
    return this.next ? this.next() : POOL.readUInt32LE(cryptoBytes(4));
  }

  /** A UUID v4 (every new challenge's id). */
  uuid(): string {
    if (!this.next) return uuidOf(cryptoBytes(16));
    for (let i = 0; i < 16; i += 4) SEEDED.writeUInt32LE(this.next(), i);
    return uuidOf(0, SEEDED);
  }

  /** `length` characters of base64url, for the simulated world (garbled bytes on the wire); never a secret. */
  chars(length: number): string {
    if (!this.next)
      return randomBytes(Math.ceil((length * 3) / 4))
        .toString('base64url')
        .slice(0, length);
    const b = Buffer.alloc(Math.ceil((length * 3) / 4) + 4);
    for (let i = 0; i + 4 <= b.length; i += 4) b.writeUInt32LE(this.next(), i);
    return b.toString('base64url').slice(0, length);
  }

  /** `n` decimal digits, the first not zero. */
  digits(n: number): string {
    let s = String(1 + (this.uint32() % 9));
    while (s.length < n) s += String(this.uint32() % 10);
    return s;
  }
}

/**
 * The machine's crypto source for the simulated world (ids, integers), drawn a pool at a time as node:crypto's
 * `randomUUID` does; the offset of the next `n` bytes (at most the pool's size) is returned, in POOL.
 */
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;
function cryptoBytes(n: number): number {
  if (poolAt + n > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  poolAt += n;
  return poolAt - n;
}

/** The 16 bytes a seeded source draws for a UUID. */
const SEEDED = Buffer.alloc(16);

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const UUID_TEXT = Buffer.alloc(36);

/**
 * 16 bytes, made version 4 and variant 1, as a UUID's text. Written into one buffer and read out as one string:
 * `randomUUID` joins twenty pieces, which the challenge store's map then joins into one again (in process, a new
 * challenge takes about 2% less time this way: docs/performance.md).
 */
function uuidOf(at: number, bytes: Buffer = POOL): string {
  bytes[at + 6] = (bytes[at + 6] & 0x0f) | 0x40;
  bytes[at + 8] = (bytes[at + 8] & 0x3f) | 0x80;
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) UUID_TEXT[out++] = 0x2d;
    const b = bytes[at + i];
    UUID_TEXT[out++] = HEX_DIGITS[b >> 4];
    UUID_TEXT[out++] = HEX_DIGITS[b & 15];
  }
  return UUID_TEXT.toString('latin1');
}

function sfc32(seed: number): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const step = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) step();
  return step;
}

/**
 * `length` characters of base64url from the machine's crypto source, whatever the seed: what must not be guessed
 * (the control token, a default API user's secret). A seed is 32 bits and often written in a CI file: a secret drawn
 * from it would be the same in every run with that seed, and one run's token would open another's control API.
 */
export function unguessable(length: number): string {
  return randomBytes(Math.ceil((length * 3) / 4))
    .toString('base64url')
    .slice(0, length);
}
