import { accessSync, closeSync, constants, existsSync, lstatSync, realpathSync, statfsSync } from 'node:fs';
import { statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { terminalText } from '../output/terminal.js';
import { addTo, isOwnFile, kindOf, openStream, writeWhole } from '../files/write-file.js';

// Where the command line's output goes: standard output and error, and the report files written at exit.

/** Request log waiting for a slow reader past which lines are dropped: far more than a reader that keeps up leaves. */
export const LOG_BACKLOG_CHARS = 4 * 2 ** 20;
/** How long a stopping command line waits for its readers: what Node has not yet written into a pipe dies with it. */
export const EXIT_OUTPUT_WAIT_MS = 2000;

/** Standard output or error, whose reader may go away. */
export class StandardOutput {
  private closed = false;
  /** Request-log lines dropped and not yet said (0: the reader keeps up). */
  droppedLines = 0;
  /** Called with the lines dropped, each time the reader has caught up after falling behind. */
  onCaughtUp?: (droppedLines: number) => void;
  onClose?: (error: Error) => void;

  constructor(private readonly stream: Writable) {
    stream.on('error', (error: Error) => {
      if (!this.closed) this.onClose?.(error);
      this.closed = true;
    });
  }

  /** Writes text fit for a terminal (output/terminal.ts): whatever a client got into it, no escape sequence. */
  write(text: string): void {
    if (!this.closed) this.stream.write(terminalText(text));
  }

  /** Writes `lines` lines of request log, unless the reader is more than LOG_BACKLOG_CHARS behind: then counts them. */
  writeLog(text: string, lines = 1): void {
    if (this.closed) return;
    if (this.droppedLines === 0 && this.stream.writableLength <= LOG_BACKLOG_CHARS) return this.write(text);
    // The log stays off until the reader has taken everything ('drain'): one gap in it, not one between every line.
    if (this.droppedLines === 0)
      this.stream.once('drain', () => {
        const n = this.droppedLines;
        this.droppedLines = 0;
        this.onCaughtUp?.(n);
      });
    this.droppedLines += lines;
  }

  /** Resolves once everything written has left for the reader, or after `ms`, whichever comes first. */
  written(ms: number): Promise<unknown> {
    if (this.closed || this.stream.writableLength === 0) return Promise.resolve();
    // An empty write's callback runs once every write before it has left (or with the stream's error).
    return Promise.race([new Promise((resolve) => this.stream.write('', resolve)), delay(ms)]);
  }
}

/** Why a report's file cannot take it, said at start: the message follows `--flag <file>: `. */
export class Unwritable extends Error {}
/** Writes a report's text once, at exit (its error in words: write-file.ts's writeProblem). */
export type Output = (text: string) => void;

/** File systems of the kernel's (Linux's magic numbers: proc, sysfs, cgroup2, debugfs): their files take no report. */
const KERNEL_FILE_SYSTEMS = new Set([0x9fa0, 0x62656572, 0x63677270, 0x64626720]);
const KERNELS = "the kernel's (/proc, /sys), which takes no report";
const TAKES = 'only a file, a pipe or a terminal takes a report';
const THROUGH_LINKS = 'mfa-sim writes through a link only to a pipe, a terminal or /dev/null';
const LINK = `it is a symbolic link (${THROUGH_LINKS}: name the file itself)`;

/** A report's file, checked now so that no run ends with its verdict lost. */
export function openOutput(file: string, append: boolean): Output {
  if (file.trim() === '') throw new Unwritable('give a file name');
  const found = lstatSync(file, { throwIfNoEntry: false });
  if (found?.isDirectory()) throw new Unwritable('it is a folder');
  if (found && !found.isFile()) return special(file, found.isSymbolicLink());
  const folder = dirname(resolve(file));
  if (!existsSync(folder)) throw new Unwritable(`the folder ${folder} does not exist`);
  let kernel = false;
  try {
    kernel = KERNEL_FILE_SYSTEMS.has(Number(statfsSync(found ? file : folder).type));
  } catch {
    // Not known: not the kernel's.
  }
  if (kernel) throw new Unwritable(found ? `it is a file of ${KERNELS}` : `its folder ${folder} is ${KERNELS}`);
  if (found && !append && !isOwnFile(found))
    throw new Unwritable(`it is ${kindOf(found)} (mfa-sim replaces only a file of its own)`);
  // A file written whole is written beside it first, then renamed over it: its folder must be writable.
  for (const [what, path] of [
    ['the file', found && file],
    ['its folder', (!found || !append) && folder],
  ] as const) {
    try {
      if (path) accessSync(path, constants.W_OK);
    } catch {
      throw new Unwritable(`it cannot be written (${what} is not writable)`);
    }
  }
  return (text) => (append ? addTo(file, text) : writeWhole(file, text));
}

/** A FIFO with a reader, a terminal or /dev/null (through a link when `link`), kept open until the report is out. */
function special(file: string, link: boolean): Output {
  let fd: number | undefined;
  try {
    fd = openStream(file, link);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const what = link ? 'it is a symbolic link to' : 'it is';
    // Opening a socket (as /dev/stdout may be) fails as a FIFO nobody reads does.
    if (code === 'ENXIO' && statSync(file, { throwIfNoEntry: false })?.isSocket())
      throw new Unwritable(`${what} a socket, not a file (${TAKES})`);
    if (code === 'ENXIO') throw new Unwritable(`${what} a FIFO nobody reads (start its reader first)`);
    if (link) throw new Unwritable(code === 'ENOENT' ? `it is a symbolic link to nothing (${THROUGH_LINKS})` : LINK);
    throw new Unwritable(`it cannot be opened (${code ?? (e as Error).message})`);
  }
  if (fd === undefined) throw new Unwritable(link ? LINK : `it is a device, not a file (${TAKES})`);
  const opened = fd;
  return (text) => {
    try {
      writeFileSync(opened, text);
    } finally {
      closeSync(opened);
    }
  };
}

/** What a path names, so that two paths to one file (a link, `..`, a hard link) are known for the same. */
export function fileIdentity(file: string): string {
  if (!existsSync(file)) return join(realpathSync(dirname(resolve(file))), basename(file));
  const st = statSync(file);
  return `${st.dev}:${st.ino}`;
}
