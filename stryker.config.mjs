// Mutation testing of the authentication code, the checks of the request path and the client doctor (`npm run mutation`, not in CI:
// it takes a long while). Each mutant is run against the tests that cover it (vitest.mutation.config.ts); the run
// fails below a 90% score. The report is written to reports/mutation/ (not committed).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: ['src/auth/**/*.ts', 'src/request/checks.ts', 'src/doctor/**/*.ts'],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/report.json' },
  thresholds: { high: 95, low: 90, break: 90 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
