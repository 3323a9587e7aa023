import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  futimesSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { makeFolders } from './folders.js';

/**
 * V8's code cache of the command line's program (bin.ts), kept in the user's own cache folder: what V8 compiled at one
 * start, read back at the next instead of compiling again.
 *
 * V8 reads a cache file as code: a file someone else put there would run as this user, and V8 checks only the header
 * of what it reads (a damaged body crashes the process, start after start). So a file is used only when it is a
 * regular file the user owns and no one else can write to, in such a folder, not reached through a link, whole (the
 * digest it starts with matches), and of a sane size; anything else is compiled as without a cache, and written
 * anew. The folder is the user's cache folder (`$XDG_CACHE_HOME` or `~/.cache`, `~/Library/Caches` on macOS,
 * `%LOCALAPPDATA%` on Windows), never a temporary folder others can write to.
 */

/** How many cache files the folder keeps (one per version of mfa-sim, of Node, and set of flags): those used last. */
const FILES_KEPT = 8;
/** A file larger than this is no cache of the program, whose cache is well under a megabyte. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Each file starts with the SHA-1 digest of the rest: V8 checks a header only, and reads a damaged body to a crash. */
const DIGEST_BYTES = 20;
/** A file being written (aside, then renamed) this old was left by a process that stopped before renaming it. */
const LEFT_BEHIND_MS = 60_000;
/** A cache file's name (`<node version>-<arch>-<digest>`), and that of one being written (the name, an id, `.tmp`). */
const NAME = String.raw`v\d[\w.]*-\w+-[0-9a-f]{40}`;
const CACHE_FILE = new RegExp(`^${NAME}$`);
const BEING_WRITTEN = new RegExp(String.raw`^${NAME}\.[0-9a-f-]{36}\.tmp$`);

export interface CodeCache {
  /** What V8 compiled at an earlier start, checked; undefined when there is none to trust. */
  data: Buffer | undefined;
  /** Keeps what V8 compiled, whole or not at all, for the next start. Never throws. */
  keep(compiled: Buffer): void;
}

/**
 * The cache of a program (its bytes), for the flags node runs with; undefined where the user has no cache folder of
 * their own (none, or one someone else can write to).
 */
export function codeCache(program: Buffer): CodeCache | undefined {
  const folder = ownFolder();
  if (folder === undefined) return undefined;
  // V8 checks its own version, its flags and the length of the source, not the source: the name holds a digest of the
  // program and of node's flags (V8 refuses a cache made under other flags: each set has a file, so a test runner's
  // NODE_OPTIONS and a shell's none do not write one file again at each start).
  const digest = createHash('sha1')
    .update(program)
    .update(JSON.stringify([process.execArgv, process.env.NODE_OPTIONS ?? '']))
    .digest('hex');
  const file = join(folder, `${process.version}-${process.arch}-${digest}`);
  return { data: readChecked(file), keep: (compiled) => write(file, compiled) };
}

/** Where the user's programs keep caches (the XDG base directories; macOS's and Windows' own). */
function cacheHome(): string | undefined {
  const env = process.env;
  if (process.platform === 'win32') return env.LOCALAPPDATA;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches');
  // The XDG specification: a relative path is to be ignored.
  return env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
}

/** mfa-sim's folder in the user's cache folder, made if missing; undefined when it is not the user's alone. */
function ownFolder(): string | undefined {
  try {
    const home = cacheHome();
    if (!home || !isAbsolute(home)) return undefined;
    const folder = join(home, 'mfa-sim', 'compile-cache');
    makeFolders(folder, 0o700);
    const found = lstatSync(folder);
    return found.isDirectory() && isOwn(found) ? folder : undefined;
  } catch {
    return undefined;
  }
}

/** The user owns it and no one else can write to it. Windows has no such ids: its folder is in the user's profile. */
function isOwn(s: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || (s.uid === uid && (s.mode & 0o022) === 0);
}

/** The cache file's data when it can be trusted (see the top of this file); undefined otherwise. */
function readChecked(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    // Opened without following a link and without waiting on a FIFO; then what was opened is checked, not the name.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const s = fstatSync(fd);
    // Stryker disable next-line ConditionalExpression: a directory or FIFO fails the read below anyway; said first
    if (!s.isFile() || !isOwn(s) || s.nlink !== 1 || s.size <= DIGEST_BYTES || s.size > MAX_FILE_BYTES)
      return undefined;
    const whole = Buffer.allocUnsafe(s.size);
    for (let at = 0; at < whole.length;) {
      const read = readSync(fd, whole, at, whole.length - at, at);
      if (read === 0) return undefined;
      at += read;
    }
    const data = whole.subarray(DIGEST_BYTES);
    if (!digestOf(data).equals(whole.subarray(0, DIGEST_BYTES))) return undefined;
    touch(fd);
    return data;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Marks the file used now: the folder keeps the files used last. */
function touch(fd: number): void {
  try {
    const now = new Date();
    futimesSync(fd, now, now);
  } catch {
    // Kept by when it was written, then.
  }
}

const digestOf = (data: Buffer) => createHash('sha1').update(data).digest();

/** Writes the file whole or not at all (aside, then renamed); drops the oldest past FILES_KEPT. */
function write(file: string, compiled: Buffer): void {
  const aside = `${file}.${randomUUID()}.tmp`;
  try {
    const fd = openSync(aside, 'wx', 0o600);
    try {
      writeFileSync(fd, Buffer.concat([digestOf(compiled), compiled]));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(aside, file);
  } catch {
    remove(aside);
    return;
  }
  prune(dirname(file));
}

/** Drops the cache files past the FILES_KEPT used last, and files left half-written; nothing else in the folder. */
function prune(folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  const now = Date.now();
  const caches: { path: string; usedAt: number }[] = [];
  for (const name of names) {
    const path = join(folder, name);
    const usedAt = modifiedAt(path);
    if (usedAt === undefined) continue;
    if (CACHE_FILE.test(name)) caches.push({ path, usedAt });
    else if (BEING_WRITTEN.test(name) && now - usedAt > LEFT_BEHIND_MS) remove(path);
  }
  caches.sort((a, b) => b.usedAt - a.usedAt);
  for (const old of caches.slice(FILES_KEPT)) remove(old.path);
}

/** When the file was last written or used; undefined when it is gone (another start pruned it meanwhile). */
function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function remove(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Left for the next start to drop.
  }
}
