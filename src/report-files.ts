import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  realpathSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { addTo, isOwnFile, kindOf, openStream, writeProblem, writeWhole } from './write-file.js';

/**
 * The files the command line writes its reports to at exit (--coverage-out, --report, --junit): checked when it
 * starts, so that a run never ends with its verdict lost to a file that cannot take it, and written at exit through
 * the one writer (write-file.ts: never through a link, never into a file mfa-sim did not make), without waiting.
 */

/** File systems of the kernel's (Linux's magic numbers): their files take no report, whatever their permissions say. */
const KERNEL_FILE_SYSTEMS = new Set([
  0x9fa0 /* proc */, 0x62656572 /* sysfs */, 0x63677270 /* cgroup2 */, 0x64626720 /* debugfs */,
]);
const KERNELS = "the kernel's (/proc, /sys), which takes no report";
const TAKES = 'only a file, a pipe or a terminal takes a report';
const DEVICE = `it is a device, not a file (${TAKES})`;
const THROUGH_LINKS = 'mfa-sim writes through a link only to a pipe, a terminal or /dev/null';
const LINK = `it is a symbolic link (${THROUGH_LINKS}: name the file itself)`;
const DANGLING = `it is a symbolic link to nothing (${THROUGH_LINKS})`;

function onKernelFileSystem(path: string): boolean {
  try {
    return KERNEL_FILE_SYSTEMS.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

/** Why a file cannot take a report, said at start: the message follows `--flag <file>: `. */
export class Unwritable extends Error {}

/** A report's file, ready at start to be written once at exit. */
export interface Output {
  /** Writes the report (added to the end when the file was opened to append); throws with the reason in words. */
  write(text: string): void;
}

/**
 * The file a report goes to, checked now: a regular file (replaced whole at exit, or added to when `append`) or a name
 * where one can be made, in a writable folder; or a FIFO with a reader, a terminal or /dev/null, opened now and kept
 * open until exit (a link is followed only to one of these). Anything else throws an Unwritable saying why: a
 * folder, a link to a file or to nothing, a FIFO nobody reads, another device (`/dev/full` opens and fails every
 * write), a file of the kernel's (`/proc/version` opens for writing and takes nothing), a missing or read-only folder.
 */
export function openOutput(file: string, append: boolean): Output {
  if (file.trim() === '') throw new Unwritable('give a file name');
  const found = lstatSync(file, { throwIfNoEntry: false });
  if (found && !found.isFile()) {
    if (found.isDirectory()) throw new Unwritable('it is a folder');
    return stream(file, found.isSymbolicLink());
  }
  const folder = dirname(resolve(file));
  if (!existsSync(folder)) throw new Unwritable(`the folder ${folder} does not exist`);
  if (onKernelFileSystem(found ? file : folder))
    throw new Unwritable(found ? `it is a file of ${KERNELS}` : `its folder ${folder} is ${KERNELS}`);
  if (found && !append && !isOwnFile(found))
    throw new Unwritable(`it is ${kindOf(found)} (mfa-sim replaces only a file of its own)`);
  for (const [what, path] of [
    ['the file', found && file],
    // A file written whole is written beside it first, then renamed over it.
    ['its folder', (!found || !append) && folder],
  ] as const) {
    try {
      if (path) accessSync(path, constants.W_OK);
    } catch {
      throw new Unwritable(`it cannot be written (${what} is not writable)`);
    }
  }
  return { write: (text) => said(() => (append ? addTo(file, text) : writeWhole(file, text))) };
}

/** A FIFO with a reader, a terminal or /dev/null (through a link when `link`), kept open until the report is out. */
function stream(file: string, link: boolean): Output {
  let fd: number | undefined;
  try {
    fd = openStream(file, link);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const what = link ? 'it is a symbolic link to' : 'it is';
    // Opening a socket (as /dev/stdout may be) fails the same way.
    if (code === 'ENXIO')
      throw new Unwritable(
        statSync(file, { throwIfNoEntry: false })?.isSocket()
          ? `${what} a socket, not a file (${TAKES})`
          : `${what} a FIFO nobody reads (start its reader first)`,
      );
    if (link) throw new Unwritable(code === 'ENOENT' ? DANGLING : LINK);
    throw new Unwritable(`it cannot be opened (${code ?? (e as Error).message})`);
  }
  if (fd === undefined) throw new Unwritable(link ? LINK : DEVICE);
  const opened = fd;
  return {
    write: (text) =>
      said(() => {
        try {
          writeFileSync(opened, text);
        } finally {
          closeSync(opened);
        }
      }),
  };
}

/** Runs a write; its failure is thrown again in words (write-file.ts). */
function said(write: () => void): void {
  try {
    write();
  } catch (e) {
    throw new Error(writeProblem(e), { cause: e });
  }
}

/** What a path names, so that two paths to one file (a link, `..`, a hard link) are known for the same. */
export function fileIdentity(file: string): string {
  if (existsSync(file)) {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  }
  return join(realpathSync(dirname(resolve(file))), basename(file));
}
