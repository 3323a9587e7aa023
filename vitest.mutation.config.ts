import { defineConfig } from 'vitest/config';

/** The tests a mutation run (`npm run mutation`, stryker.config.mjs) may run against a mutant: every suite that runs
 * in-process through the real HTTP server. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The built command line (a mutant of src/ never reaches dist/), the package, the browser and the long fuzzers and
    // soaks are left out.
    exclude: [
      'test/cli/**',
      'test/package/**',
      'test/browser/**',
      'test/robustness/{fuzz,fuzz-edges,upstream-soak,memory,report-size}.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    globalSetup: ['test/temp-folder.ts'],
    // Modules are loaded once per worker, not once per test file: Stryker switches mutants at run time (a mutant is
    // a branch in the instrumented code, chosen by a global), so nothing needs loading afresh, and a mutant's run
    // reads its covering files in a third of the time. Every suite listed passes this way.
    isolate: false,
  },
});
