import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  realpathSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isatty } from 'node:tty';

/**
 * The files the command line writes its reports to at exit (--coverage-out, --report, --junit): checked when it
 * starts, so that a run never ends with its verdict lost to a file that cannot take it, and written without waiting.
 */

/** File systems of the kernel's (Linux's magic numbers): their files take no report, whatever their permissions say. */
const KERNEL_FILE_SYSTEMS = new Set([
  0x9fa0 /* proc */, 0x62656572 /* sysfs */, 0x63677270 /* cgroup2 */, 0x64626720 /* debugfs */,
]);
const KERNELS = "the kernel's (/proc, /sys), which takes no report";

function onKernelFileSystem(path: string): boolean {
  try {
    return KERNEL_FILE_SYSTEMS.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

/**
 * Why a file could not be written at exit, or undefined: its folder missing or read-only, a folder, a file of the
 * kernel's (`/proc/version` opens for writing and takes nothing), a device other than a terminal or /dev/null
 * (`/dev/full` opens and fails every write). A pipe passes: it is opened at exit, without waiting for a reader.
 */
export function unwritable(file: string): string | undefined {
  if (file.trim() === '') return 'give a file name';
  const folder = dirname(resolve(file));
  if (!existsSync(folder)) return `the folder ${folder} does not exist`;
  if (!existsSync(file) && onKernelFileSystem(folder)) return `its folder ${folder} is ${KERNELS}`;
  if (existsSync(file)) {
    const st = statSync(file);
    if (st.isDirectory()) return 'it is a folder';
    if (onKernelFileSystem(file)) return `it is a file of ${KERNELS}`;
    if ((st.isCharacterDevice() || st.isBlockDevice() || st.isSocket()) && !takesReports(file, st.rdev)) {
      return 'it is a device, not a file (only a file, a pipe or a terminal takes a report)';
    }
  }
  try {
    accessSync(existsSync(file) ? file : folder, constants.W_OK);
  } catch {
    return `it cannot be written (${existsSync(file) ? 'the file' : 'its folder'} is not writable)`;
  }
  return undefined;
}

/** A device that takes a report: a terminal, or /dev/null. */
function takesReports(device: string, rdev: number): boolean {
  if (rdev === statSync('/dev/null', { throwIfNoEntry: false })?.rdev) return true;
  try {
    const fd = openSync(device, constants.O_WRONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
    try {
      return isatty(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
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

/**
 * Writes a file at exit. Opened without waiting: a FIFO nobody reads is refused (ENXIO) instead of holding the
 * simulator's exit for ever.
 */
export function writeWithoutWaiting(file: string, text: string, append = false): void {
  const fd = openSync(
    file,
    constants.O_WRONLY |
      constants.O_CREAT |
      (append ? constants.O_APPEND : constants.O_TRUNC) |
      (constants.O_NONBLOCK ?? 0),
    0o644,
  );
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
