import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ScenarioError } from '../errors.js';

/**
 * Reading a scenario file safely: a regular file only, bounded while read, never waiting on a FIFO or a device.
 */

/**
 * Scenario files larger than this are refused; the limit is counted while reading (a device or a /proc file says its
 * size is 0).
 */
export const MAX_SCENARIO_BYTES = 1024 * 1024;

/**
 * Opening a FIFO for reading waits for a writer; non-blocking, it returns at once and the regular-file check refuses
 * it.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function notRegular(file: string): ScenarioError {
  return new ScenarioError(file, [
    { path: [], message: 'is not a regular file (a scenario file is a YAML or JSON text file)' },
  ]);
}

function tooLarge(file: string): ScenarioError {
  return new ScenarioError(file, [{ path: [], message: `the file is larger than ${MAX_SCENARIO_BYTES / 1024} KiB` }]);
}

function unreadable(file: string, e: unknown): ScenarioError {
  if (e instanceof ScenarioError) return e;
  return new ScenarioError(file, [
    { path: [], message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` },
  ]);
}

/** A read of at most MAX_SCENARIO_BYTES, counted as the bytes arrive. */
class BoundedRead {
  readonly buffer = Buffer.allocUnsafe(MAX_SCENARIO_BYTES + 1);
  size = 0;

  constructor(private readonly file: string) {}

  /** Room left in the buffer (one byte past the limit, to see a file that is larger). */
  get room(): number {
    return this.buffer.length - this.size;
  }

  /** Takes `n` more bytes; says whether the file ended. Past the limit it refuses the file. */
  took(n: number): boolean {
    this.size += n;
    if (this.size > MAX_SCENARIO_BYTES) throw tooLarge(this.file);
    return n === 0;
  }

  get text(): string {
    return this.buffer.toString('utf8', 0, this.size);
  }
}

/**
 * Reads a scenario file for the command line and in-process calls (whose caller chose the path): only a regular
 * file, at most MAX_SCENARIO_BYTES, without waiting on a FIFO or reading a device without end.
 */
export function readScenarioFileSync(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, OPEN_FLAGS);
    if (!fstatSync(fd).isFile()) throw notRegular(file);
    const read = new BoundedRead(file);
    while (!read.took(readSync(fd, read.buffer, read.size, read.room, null)));
    return read.text;
  } catch (e) {
    throw unreadable(file, e);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The same, without blocking the event loop: for files named through the control API. */
export async function readScenarioFile(file: string): Promise<string> {
  let handle: import('node:fs/promises').FileHandle | undefined;
  try {
    // Loaded here: only the control API reads files this way, and most runs never do.
    const { open } = await import('node:fs/promises');
    handle = await open(file, OPEN_FLAGS);
    if (!(await handle.stat()).isFile()) throw notRegular(file);
    const read = new BoundedRead(file);
    while (!read.took((await handle.read(read.buffer, read.size, read.room, null)).bytesRead));
    return read.text;
  } catch (e) {
    throw unreadable(file, e);
  } finally {
    await handle?.close();
  }
}
