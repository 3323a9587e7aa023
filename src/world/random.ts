import { machine } from './machine.js';

/** A simulator's random values: the crypto source, or seeded (sfc32) so the world repeats from run to run. */
export class RandomSource {
  private readonly next: (() => number) | undefined;

  constructor(readonly seed?: number) {
    this.next = seed === undefined ? undefined : sfc32(seed);
  }

  /** A 32-bit unsigned integer. */
  uint32(): number {
    return this.next ? this.next() : machine.bytes(4).readUInt32LE(0);
  }

  /** A UUID v4 (every new challenge's id). */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const hex = b.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** `length` characters of base64url, for the simulated world (garbled bytes on the wire); never a secret. */
  chars(length: number): string {
    return base64url(this.bytes(Math.ceil((length * 3) / 4)), length);
  }

  /** `n` decimal digits, the first not zero. */
  digits(n: number): string {
    let s = String(1 + (this.uint32() % 9));
    while (s.length < n) s += String(this.uint32() % 10);
    return s;
  }

  private bytes(n: number): Buffer {
    if (!this.next) return machine.bytes(n);
    const b = Buffer.alloc(Math.ceil(n / 4) * 4);
    for (let i = 0; i < b.length; i += 4) b.writeUInt32LE(this.next(), i);
    return b.subarray(0, n);
  }
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

/** `length` characters of base64url from the crypto source, whatever the seed: what must not be guessed. */
export function unguessable(length: number): string {
  return base64url(machine.bytes(Math.ceil((length * 3) / 4)), length);
}

const base64url = (b: Buffer, length: number) => b.toString('base64url').slice(0, length);
