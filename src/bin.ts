import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { codeCache } from './compile-cache.js';

/**
 * The command line's entry (`npx mfa-sim`, dist/cli.cjs): runs the command line's one file (dist/mfa-sim.cjs, built
 * from cli.ts) with V8's code cache (compile-cache.ts). Compiling that file is about a tenth of the time from spawn to
 * the first answer; from the second start on, V8 reads what it compiled instead (docs/performance.md). Node 22's
 * `module.enableCompileCache` does the same for every module; Node 20 has none, so this is done with node:vm, the
 * same way on every version. NODE_DISABLE_COMPILE_CACHE (Node's own switch for its cache) turns it off.
 */

run(join(__dirname, 'mfa-sim.cjs'));

/** Compiles the program (from the cache when there is one to trust) and runs it as a CommonJS module. */
function run(program: string): void {
  const bytes = readFileSync(program);
  const cache = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : codeCache(bytes);
  // Wrapped as Node wraps a CommonJS module, so it runs as one (its own require, module, __filename, __dirname). The
  // program has no import() (tsup.config.ts writes each as require()): V8 drops from cached code what import() needs.
  const source = `(function (exports, require, module, __filename, __dirname) { ${bytes.toString('utf8')}\n})`;
  const script = new Script(source, { filename: program, cachedData: cache?.data });
  // Made before the program runs: V8's cache of a script that ran holds what the run compiled too, and reading it back
  // made the program's own start-up slower by more than it saved (about 9 ms more to load its modules, measured).
  // Before the program runs, the flags are also those the next start compiles with (the program tunes one; V8 refuses
  // a cache made under others). Written as the process exits, off the way to the first answer.
  if (cache && (cache.data === undefined || script.cachedDataRejected)) {
    let compiled: Buffer | undefined;
    try {
      compiled = script.createCachedData();
    } catch {
      // Compiled again at the next start.
    }
    if (compiled) process.once('exit', () => cache.keep(compiled));
  }
  const programModule = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    programModule.exports,
    createRequire(program),
    programModule,
    program,
    dirname(program),
  );
}
