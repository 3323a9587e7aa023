import { hash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/**
 * The command line's entry (`npx mfa-sim`, dist/cli.cjs): runs the command line's one file (dist/mfa-sim.cjs, built
 * from cli.ts) with V8's code cache. Compiling that file is about a tenth of the time from spawn to the first answer;
 * from the second start on, V8 reads what it compiled instead (docs/performance.md). Node 22's
 * `module.enableCompileCache` does the same for every module; Node 20 has none, so this is done with node:vm, the
 * same way on every version.
 *
 * The cache is the user's own: a directory in the temporary directory, named with the user's id, made readable by
 * them only, and used only when it is theirs and no one else can write to it (in a shared /tmp, someone else's file
 * would be code run as this user). Anything that goes wrong with it (no temporary directory, a read-only one, a
 * damaged file) only means the file is compiled as without a cache. NODE_DISABLE_COMPILE_CACHE (Node's own switch
 * for its cache) turns it off.
 */

/** How many compiled files the directory keeps (one per version of mfa-sim and of Node run): the newest. */
const FILES_KEPT = 8;

// A simulator beside a test suite should take little memory. Under load, V8 lets the old generation grow to up to
// four times what is live before collecting it; here it grows by half at most: about 40 MiB less at peak while
// challenges are being created, for a few more milliseconds of collection a second. Only the command line's own
// process is tuned (in-process, mfa-sim never touches the V8 flags of a test runner), and a value given in
// NODE_OPTIONS or on node's command line wins. Set before anything is compiled: V8 uses a code cache only under the
// flags it was made under.
if (![...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => /heap[-_]growing[-_]percent/.test(a)))
  setFlagsFromString('--heap-growing-percent=50');

const program = join(__dirname, 'mfa-sim.cjs');
const bytes = readFileSync(program);
// The file wrapped as Node wraps a CommonJS module, so it runs as one (its own require, module, __filename, __dirname).
const source = `(function (exports, require, module, __filename, __dirname) { ${bytes.toString('utf8')}\n})`;
const folder = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : ownFolder();
// V8 checks its own version, its flags and the source's length; the rest of the source is told apart by its digest
// (of the bytes: a digest of the text would encode it again first, which takes longer than the digest).
const cached = folder && join(folder, `${process.version}-${process.arch}-${hash('sha1', bytes)}`);
const cachedData = cached === undefined ? undefined : readOrNothing(cached);
// The program has no import() (tsup.config.ts writes each as require()): V8 drops from cached code what import() needs.
const script = new Script(source, { filename: program, cachedData });
// Made as the process exits, off the way to the first answer (it takes some milliseconds), and then holding all that
// was compiled while the command ran.
if (cached !== undefined && (cachedData === undefined || script.cachedDataRejected))
  process.once('exit', () => keep(cached, script));
const programModule = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void)(
  programModule.exports,
  createRequire(program),
  programModule,
  program,
  dirname(program),
);

/** The user's cache directory, made if missing; undefined when it is not theirs alone or cannot be had. */
function ownFolder(): string | undefined {
  try {
    const uid = process.getuid?.();
    const folder = join(tmpdir(), `mfa-sim-compile-cache-${uid ?? 'user'}`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const made = lstatSync(folder);
    // Windows has no user ids: its temporary directory is the user's own.
    const own = uid === undefined || (made.uid === uid && (made.mode & 0o022) === 0);
    return made.isDirectory() && own ? folder : undefined;
  } catch {
    return undefined;
  }
}

function readOrNothing(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes what V8 compiled, whole or not at all (written aside, then renamed: two commands starting at once never read
 * half a file), and drops the oldest files past FILES_KEPT.
 */
function keep(file: string, compiled: Script): void {
  try {
    const aside = `${file}.${process.pid}`;
    writeFileSync(aside, compiled.createCachedData(), { mode: 0o600 });
    renameSync(aside, file);
    const folder = dirname(file);
    const byAge = readdirSync(folder)
      .map((name) => ({ path: join(folder, name), at: statSync(join(folder, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const old of byAge.slice(FILES_KEPT)) rmSync(old.path, { force: true });
  } catch {
    // Compiled again at the next start.
  }
}
