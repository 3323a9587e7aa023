// Mutation testing of the authentication code and the whole request path (src/auth/, src/request/) (`npm run
// mutation`, not in CI: about 19 minutes on 2 cores). Each mutant is run against the tests that cover it, of the
// suites below (the request path's own; vitest.mutation.config.ts lists more); the run fails below a 90% score.
// Other parts are measured apart, each with `--mutate` and every suite of vitest.mutation.config.ts
// (`--testFiles 'test/**/*.ts'`): the client doctor (`--mutate 'src/doctor/**/*.ts'`, about 91% over two runs), the
// redactor (`src/output/redactor.ts,src/output/redactor.ts`), the globs and case folding
// (`src/scenario/glob.ts`; the suites counting a glob's steps over 100,000 characters and walking
// every code point are too slow under mutation and are best left out of such a run).
// The report is written to reports/mutation/ (not committed).
/**
 * The suites that drive authentication and the request path: a surviving mutant of src/auth/ or src/request/ runs
 * every covering test of these, so the suites that only judge reports, the doctor's texts, the redactor's forms,
 * scenarios and proxy mode are left to their own runs (they make a surviving mutant's run three times as long).
 */
const REQUEST_PATH_SUITES = [
  'signature',
  'hmac-key',
  'header-formats',
  'integer-set',
  'replay-memory',
  'auth-modes',
  'forced-codes',
  'messages',
  'permissions',
  'signature-doctor',
  'client-findings',
  'first-uses',
  'order',
  'replay',
  'parsing',
  'http',
  'codes',
  'rules',
  'client-fixtures',
  'lifecycle',
  'client',
  'in-process',
  'robustness/authorization',
  'robustness/picks',
  'robustness/own-properties',
  'robustness/concurrency',
  'robustness/bounds',
  'robustness/secrets',
  'robustness/edges',
  'robustness/shutdown',
  'log-line',
  'proxy',
  'other-token',
  'hex-case',
  'rule-composition',
  'challenge-steps',
  'request-bodies',
  'commit',
  'journal-record',
  'links',
  'request-context',
  'request-path',
  'forced-success',
  'api-user-id',
  'challenge-bound',
  'qr',
  'run-scope',
  'claims',
  'observer-failures',
  'observer-lists',
  'answer-memo',
  'issue-030-observers-after-the-answer',
  'issue-030-hint-past-budget',
].map((name) => `test/${name}.test.ts`);

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
