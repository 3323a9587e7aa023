import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { isatty } from 'node:tty';

// The one way mfa-sim writes a file, whatever the file (the reports and the coverage at exit, the recording).

/** Why a file was not written, in words that follow its name (`<file>: it is a symbolic link ...`). */
class WriteRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriteRefused';
  }
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Never waits: a FIFO nobody reads is ENXIO at once. A terminal opened is never made the process's own. */
const NO_WAIT = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What a name holds, in a few words. */
export function kindOf(s: Stats): string {
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a FIFO';
  if (s.isSocket()) return 'a socket';
  if (s.isFile()) return isOwn(s) ? 'a file' : "another user's file";
  return 'a device';
}

/** A regular file of this process's user (Windows has no such ids: any regular file). */
export function isOwnFile(s: Stats): boolean {
  return s.isFile() && isOwn(s);
}

function isOwn(s: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || s.uid === uid;
}

/** The system's error in words, for an error that is not a refusal already. */
export function writeProblem(e: unknown): string {
  if (e instanceof WriteRefused) return e.message;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'it is a symbolic link (mfa-sim never writes through one)';
  if (code === 'EEXIST') return 'the name is taken (mfa-sim never writes over a file it did not make)';
  if (code === 'ENXIO') return 'it is a FIFO nobody reads';
  if (code === 'EPIPE') return 'nobody reads it any more (EPIPE)';
  if (code === 'EAGAIN') return 'its reader does not keep up (EAGAIN)';
  return (e as Error).message;
}

/** Writes `data` as the whole of `file`: aside first, then renamed over nothing or over a file of this user's. */
export function writeWhole(file: string, data: string | Buffer): void {
  const aside = `${file}.${randomUUID()}.tmp`;
  try {
    const fd = openSync(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644);
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    const there = lstatSync(file, { throwIfNoEntry: false });
    if (there && !isOwnFile(there))
      throw new WriteRefused(`it is ${kindOf(there)} (mfa-sim replaces only a file of its own, never through a link)`);
    renameSync(aside, file);
  } catch (e) {
    rmSync(aside, { force: true });
    throw e;
  }
}

/** Opens `file` to add to its end. */
export function openToAdd(file: string, fresh: boolean): number {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (fresh ? constants.O_EXCL : 0) | NOFOLLOW | NO_WAIT,
    0o644,
  );
  const s = fstatSync(fd);
  if (!s.isFile()) {
    closeSync(fd);
    throw new WriteRefused(`it is ${kindOf(s)}, not a file`);
  }
  return fd;
}

/** Adds `data` to the end of `file` (see openToAdd). */
export function addTo(file: string, data: string): void {
  const fd = openToAdd(file, false);
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** Opens a FIFO, a terminal or /dev/null to write to, following a link only when `follow`. */
export function openStream(file: string, follow: boolean): number | undefined {
  const fd = openSync(file, constants.O_WRONLY | NO_WAIT | (follow ? 0 : NOFOLLOW));
  const s = fstatSync(fd);
  if (
    s.isFIFO() ||
    isatty(fd) ||
    (s.isCharacterDevice() && s.rdev === statSync('/dev/null', { throwIfNoEntry: false })?.rdev)
  )
    return fd;
  closeSync(fd);
  return undefined;
}
