// Mutation testing of the authentication code and the whole request path (src/auth/, src/request/) (`npm run
// mutation`, not in CI: about 20 minutes on 2 cores). Each mutant is run against the tests that cover it, of the
// suites below; the run fails below a 90% score. Other parts are measured apart with `--mutate` (for example
// `--mutate 'src/doctor/**/*.ts'`) and the suites of vitest.mutation.config.ts (`--testFiles 'test/**/*.test.ts'`).
// The report is written to reports/mutation/ (not committed).
/** The suites that drive authentication and the request path, through the real HTTP server. */
const REQUEST_PATH_SUITES = [
  'test/auth/*.test.ts',
  'test/contract/*.test.ts',
  'test/request/*.test.ts',
  'test/doctor/*.test.ts',
  'test/run/*.test.ts',
  'test/world/*.test.ts',
  'test/simulator/{claims,in-process,lifecycle,worker-clocks}.test.ts',
  'test/scenario/{forced-codes,forced-success,rules,rule-composition}.test.ts',
  'test/http/{http,links}.test.ts',
  'test/proxy/proxy.test.ts',
  'test/robustness/{authorization,picks,own-properties,concurrency,bounds,secrets,edges,shutdown,abuse}.test.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: ['src/auth/**/*.ts', 'src/request/**/*.ts'],
  testFiles: REQUEST_PATH_SUITES,
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/report.json' },
  // Static mutants (in tables evaluated once at import: the doctor's hint texts, the finding kinds) would each rerun
  // every suite, nearly half the mutants and almost all of the time; the tables' texts are checked by the docs tests
  // and the findings suites. The score is over the mutants of code that runs per request.
  ignoreStatic: true,
  thresholds: { high: 95, low: 90, break: 90 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
