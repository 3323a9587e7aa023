import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

// The one way mfa-sim reads a file, whoever named it.

/** Why a file was not read. `message` follows the file's name: `<file> is not a regular file`. */
export class FileRefused extends Error {
  constructor(
    readonly reason: 'not regular' | 'too large' | 'unreadable',
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'FileRefused';
  }
}

export interface ReadLimits {
  limit: number;
}

/** Reads at least this much at once, for a file that says its size is 0 (/proc) or grows while read. */
const FIRST_READ = 64 * 1024;

/** Opening never waits (a FIFO opens at once, and is then refused as not a regular file). */
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function refusal(e: unknown): FileRefused {
  if (e instanceof FileRefused) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new FileRefused('not regular', 'is a symbolic link', code);
  return new FileRefused('unreadable', `cannot be read (${code ?? (e as Error).message})`, code);
}

function checked(stats: Stats, limits: ReadLimits): Stats {
  if (!stats.isFile()) throw new FileRefused('not regular', 'is not a regular file');
  // A regular file that says it is larger is not read at all.
  if (stats.size > limits.limit) throw tooLarge(limits.limit);
  return stats;
}

function tooLarge(limit: number): FileRefused {
  return new FileRefused('too large', `is larger than ${sizeText(limit)}`);
}

/** A read into one buffer, grown as bytes arrive up to one byte past the limit (to see a file that is larger). */
class BoundedRead {
  private buffer: Buffer;
  private size = 0;

  constructor(
    stats: Stats,
    private readonly limit: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.min(Math.max(stats.size + 1, FIRST_READ), limit + 1));
  }

  /** Where the next bytes go: the buffer (grown first when it is full), where in it, and the room left. */
  next(): [buffer: Buffer, offset: number, length: number] {
    if (this.size === this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.buffer.length * 2, this.limit + 1));
      this.buffer.copy(grown, 0, 0, this.size);
      this.buffer = grown;
    }
    return [this.buffer, this.size, this.buffer.length - this.size];
  }

  /** Takes `n` more bytes; says whether the file ended. Past the limit it refuses the file. */
  took(n: number): boolean {
    this.size += n;
    if (this.size > this.limit) throw tooLarge(this.limit);
    return n === 0;
  }

  get bytes(): Buffer {
    return this.buffer.subarray(0, this.size);
  }
}

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** Reads a file whole, within `limits`; throws a FileRefused saying why not. */
export function readFileWithin(file: string, limits: ReadLimits): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(file, FLAGS);
    const read = new BoundedRead(checked(fstatSync(fd), limits), limits.limit);
    while (!read.took(readSync(fd, ...read.next(), null)));
    return read.bytes;
  } catch (e) {
    throw refusal(e);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The same, without blocking the event loop. */
export async function readFileWithinAsync(file: string, limits: ReadLimits): Promise<Buffer> {
  let handle: import('node:fs/promises').FileHandle | undefined;
  try {
    // Loaded here: only the control API reads files this way, and most runs never do.
    const { open } = await import('node:fs/promises');
    handle = await open(file, FLAGS);
    const read = new BoundedRead(checked(await handle.stat(), limits), limits.limit);
    while (!read.took((await handle.read(...read.next(), null)).bytesRead));
    return read.bytes;
  } catch (e) {
    throw refusal(e);
  } finally {
    await handle?.close();
  }
}
