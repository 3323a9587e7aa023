import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { codeCache } from './compile-cache.js';

/** How long the package's API runs before its cache is made (its first simulators started by then). */
const RAN_A_WHILE_MS = 2000;

/**
 * Runs one of the package's built programs (a CommonJS file: dist/mfa-sim.cjs, the command line; dist/library.cjs,
 * the package's API) with V8's code cache (compile-cache.ts), and returns its exports. Compiling a program is a large
 * part of its start (about 11 ms of the command line's, 10 of `import('mfa-sim')`); from the second start on, V8 reads
 * what it compiled instead (docs/performance.md). Node 22's `module.enableCompileCache` does the same for every
 * module; Node 20 has none, so this is done with node:vm, the same way on every version. NODE_DISABLE_COMPILE_CACHE
 * (Node's own switch for its cache) turns it off.
 */
export function runProgram(program: string, cacheMade: 'before it runs' | 'once it has run'): unknown {
  const bytes = readFileSync(program);
  const cache = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : codeCache(bytes);
  // Wrapped as Node wraps a CommonJS module, so it runs as one (its own require, module, __filename, __dirname). The
  // program has no import() (tsup.config.ts writes each as require()): V8 drops from cached code what import() needs.
  // The built programs are ASCII (esbuild escapes the rest; test/built-programs.test.ts): read as such, they become a
  // string of one byte per character, decoded in a third of the time, where a single other character anywhere (in a
  // comment) would make V8 keep the whole program as two bytes per character.
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const source = `(function (exports, require, module, __filename, __dirname) { ${text}\n})`;
  const script = new Script(source, { filename: program, cachedData: cache?.data });
  // When to make the cache is measured, program by program (docs/performance.md). V8's cache of a script that ran holds
  // what the run compiled too. For the command line, reading that back made its start slower by more than it saved
  // (about 9 ms more to load its modules), so its cache is made before it runs; then the flags are also those the next
  // start compiles with (the program tunes one; V8 refuses a cache made under others). The package's API is made once
  // it has run a while (RAN_A_WHILE_MS, or at exit if sooner): what starting a simulator compiled is then read back
  // too, 4 to 6 ms sooner to listening. A cache V8 refused was made under flags other than a start's (a suite that
  // tunes V8 as it runs): it is made again before the program runs, where the flags are a start's, or it would be
  // refused at every start. Written off the way to the first answer.
  if (cache && (cache.data === undefined || script.cachedDataRejected)) {
    if (cacheMade === 'before it runs' || script.cachedDataRejected) {
      const made = compiledBy(script);
      if (made) process.once('exit', () => cache.keep(made));
    } else {
      const keep = () => {
        process.off('exit', keep);
        clearTimeout(timer);
        const made = compiledBy(script);
        if (made) cache.keep(made);
      };
      // A process stopped by a signal, or a worker thread terminated, never emits 'exit': the timer keeps it then.
      const timer = setTimeout(keep, RAN_A_WHILE_MS).unref();
      process.once('exit', keep);
    }
  }
  const programModule = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    programModule.exports,
    createRequire(program),
    programModule,
    program,
    dirname(program),
  );
  return programModule.exports;
}

/** What V8 compiled of the script, as a cache; undefined when it cannot say (then it is compiled again next time). */
function compiledBy(script: Script): Buffer | undefined {
  try {
    return script.createCachedData();
  } catch {
    return undefined;
  }
}
