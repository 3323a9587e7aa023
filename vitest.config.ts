import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most suites wait on sockets and timers more than they compute: three files at a time on two cores.
    maxWorkers: 3,
  },
});
