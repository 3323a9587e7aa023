import { defineConfig } from 'vitest/config';

// The worker files, four at once, against the one simulator the global set-up starts.
export default defineConfig({ test: { include: ['*.parallel.ts'], globalSetup: ['./global-setup.ts'], fileParallelism: true, maxWorkers: 4 } });
