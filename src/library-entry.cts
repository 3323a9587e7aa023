import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { runProgram } from './run-program.js';

/**
 * The package's entry (dist/index.cjs; dist/index.js, the ES module entry, is this one's exports by name): runs the
 * package's API, built as one CommonJS program (dist/library.cjs, from index.ts), with V8's code cache, as `npx
 * mfa-sim` runs its own (run-program.ts). Compiling that program was a quarter of `import('mfa-sim')` plus
 * `startSimulator()` (docs/performance.md).
 */

const library = join(__dirname, 'library.cjs');

// node:vm runs a script in Node's own context. A test runner that runs each test file in a context of its own (Jest),
// with globals of its own, has the program loaded by its own require: what the program makes (an Error, a Promise, a
// Date) is then of the test's globals, as any module's is there.
module.exports =
  runInThisContext('globalThis') === globalThis
    ? runProgram(library, 'once it has run')
    : // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module's own require: the runner's there
      (require(library) as unknown);
