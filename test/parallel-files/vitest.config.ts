import { defineConfig } from 'vitest/config';

/** Two test files, run in parallel against one simulator started by the global set-up. */
export default defineConfig({
  test: {
    root: __dirname,
    include: ['*.parallel.ts'],
    globalSetup: ['./global-setup.ts'],
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
