import { defineConfig } from 'vitest/config';

/** Suites that load the machine (soaks, fuzzers, a stalled reader, memory bounds): two at a time, after the rest. */
const HEAVY = [
  'test/robustness/{upstream-values,upstream-soak,memory,fuzz,fuzz-edges,report-size}.test.ts',
  'test/cli/stalled-output.test.ts',
];

/**
 * Suites on the real parts of a shared store (test/real-parts.ts): Redis, HAProxy and three replicas of the command
 * line each. One at a time, after everything else: their health-check waits and races are timed.
 */
const STORE = ['test/store/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    globalSetup: ['test/temp-folder.ts'],
    projects: [
      {
        extends: true,
        // Most suites wait on sockets and timers more than they compute: three files at a time on two cores. A worker
        // loads the modules once for all its files (no suite relies on a fresh copy): 269 s where it was 320 to 367 s.
        test: {
          name: 'suites',
          include: ['test/**/*.test.ts'],
          exclude: [...HEAVY, ...STORE],
          maxWorkers: 3,
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'heavy', include: HEAVY, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'store', include: STORE, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
