import { defineConfig } from 'vitest/config';

/** Suites that load the machine (soaks, fuzzers, a stalled reader, memory bounds): two at a time, after the rest. */
const HEAVY = [
  'test/robustness/{upstream-values,upstream-soak,memory,fuzz,fuzz-edges,report-size}.test.ts',
  'test/cli/stalled-output.test.ts',
];

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
        test: { name: 'suites', include: ['test/**/*.test.ts'], exclude: HEAVY, maxWorkers: 3, isolate: false },
      },
      {
        extends: true,
        test: { name: 'heavy', include: HEAVY, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
