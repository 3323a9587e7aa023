import { createHash, hash } from 'node:crypto';

/** SHA-512's block size in bytes: HMAC pads (or first hashes) its key to this length (RFC 2104). */
const BLOCK = 128;
const DIGEST = 64;

/** Where the inner hash's input is put together: the inner pad, then the message (longer messages get their own). */
const scratch = Buffer.allocUnsafe(4096);

/**
 * An HMAC-SHA512 key whose two padded blocks are made once, when the key is made, instead of on every request.
 *
 * `createHmac` starts from the key each time it is called: a new object, OpenSSL's digest looked up, the pads made and
 * hashed again (up to a fifth of a signed request's CPU in profiles under load). HMAC(K, m) = H((K' ^ opad) || H((K' ^
 * ipad) || m)) (RFC 2104): with the pads kept, a digest is two one-shot hashes (`crypto.hash`) and no object. The bytes
 * are those `createHmac('sha512', key)` gives (test/hmac-key.test.ts compares them, keys past the block size included).
 * Signing (`sign`, for clients and tests) and verifying (the server) both go through it, so the two cannot drift apart.
 */
export class HmacKey {
  private readonly innerPad = Buffer.allocUnsafe(BLOCK);
  /** The outer pad followed by room for the inner digest: the outer hash's whole input. */
  private readonly outerInput = Buffer.alloc(BLOCK + DIGEST);

  constructor(key: Buffer) {
    const block = Buffer.alloc(BLOCK);
    // A key longer than a block is replaced by its hash; a shorter one is padded with zeros.
    (key.length > BLOCK ? createHash('sha512').update(key).digest() : key).copy(block);
    // Equivalent mutant: index BLOCK is past the inner pad (no write), and in the outer input's room for the digest,
    // which every digest overwrites.
    // Stryker disable next-line EqualityOperator: writes nothing any digest reads
    for (let i = 0; i < BLOCK; i++) {
      this.innerPad[i] = block[i] ^ 0x36;
      this.outerInput[i] = block[i] ^ 0x5c;
    }
  }

  /**
   * HMAC-SHA512 of `message` (UTF-8) under this key, as 128 lower-case hexadecimal characters (as signatures are sent).
   */
  hexDigest(message: string): string {
    return hash('sha512', this.outerInputOf(message), 'hex');
  }

  /** HMAC-SHA512 of `message` (UTF-8) under this key, as its 64 bytes (the signature doctor compares bytes). */
  digest(message: string): Buffer {
    return hash('sha512', this.outerInputOf(message), 'buffer');
  }

  /** The outer hash's input for `message`: the outer pad, then the inner hash. */
  private outerInputOf(message: string): Buffer {
    hash('sha512', this.innerInput(message), 'buffer').copy(this.outerInput, BLOCK);
    return this.outerInput;
  }

  /**
   * The inner pad followed by the message: in the scratch buffer when it surely fits (UTF-8 takes at most 3 bytes per
   * UTF-16 unit).
   */
  private innerInput(message: string): Buffer {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: either way gives the same bytes
    if (message.length * 3 > scratch.length - BLOCK)
      // Stryker disable next-line StringLiteral: Node reads an empty encoding as UTF-8
      return Buffer.concat([this.innerPad, Buffer.from(message, 'utf8')]);
    this.innerPad.copy(scratch, 0);
    // Stryker disable next-line StringLiteral: Node reads an empty encoding as UTF-8
    const written = scratch.write(message, BLOCK, 'utf8');
    return scratch.subarray(0, BLOCK + written);
  }
}
