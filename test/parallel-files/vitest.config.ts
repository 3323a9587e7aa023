import { defineConfig } from 'vitest/config';

/** Four test files, run by four workers at once against one simulator started by the global set-up. */
export default defineConfig({
  test: {
    root: __dirname,
    include: ['*.parallel.ts'],
    globalSetup: ['./global-setup.ts'],
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 4,
    testTimeout: 30_000,
  },
});
