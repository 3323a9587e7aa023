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
        // Most suites wait on sockets and timers more than they compute: three files at a time on two cores.
        test: { name: 'suites', include: ['test/**/*.test.ts'], exclude: HEAVY, maxWorkers: 3 },
      },
      {
        extends: true,
        test: { name: 'heavy', include: HEAVY, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
