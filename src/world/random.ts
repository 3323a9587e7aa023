import { machine } from './clock.js';

/** Where a seeded source stands in its sequence: sfc32's four words; null unseeded (the crypto source has none). */
export type RandomState = number[] | null;

/** A simulator's random values: the crypto source, or seeded (sfc32) so the world repeats from run to run. */
export class RandomSource {
  private readonly sfc: Sfc32 | undefined;
  private readonly next: (() => number) | undefined;

  constructor(readonly seed?: number) {
    this.sfc = seed === undefined ? undefined : new Sfc32(seed);
    this.next = this.sfc && (() => this.sfc!.next());
  }

  /** Where the seeded sequence stands (null unseeded). */
  state(): RandomState {
    return this.sfc ? this.sfc.words() : null;
  }

  /** Goes on from where another source of the same seed stood. */
  restore(state: RandomState): void {
    if (this.sfc && state) this.sfc.setWords(state);
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

/** The sfc32 generator, its four words kept where they can be read and set again. */
class Sfc32 {
  private a = 0x9e3779b9;
  private b = 0x243f6a88;
  private c = 0xb7e15162;
  private d: number;

  constructor(seed: number) {
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  next(): number {
    const a = this.a >>> 0;
    const b = this.b >>> 0;
    const c = this.c >>> 0;
    const d = this.d >>> 0;
    let t = (a + b) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    const rotated = (c << 21) | (c >>> 11);
    this.d = (d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (rotated + t) | 0;
    return t >>> 0;
  }

  words(): number[] {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0];
  }

  setWords([a, b, c, d]: number[]): void {
    [this.a, this.b, this.c, this.d] = [a, b, c, d];
  }
}

/** `length` characters of base64url from the crypto source, whatever the seed: what must not be guessed. */
export function unguessable(length: number): string {
  return base64url(machine.bytes(Math.ceil((length * 3) / 4)), length);
}

const base64url = (b: Buffer, length: number) => b.toString('base64url').slice(0, length);
