import { defineConfig } from 'vitest/config';

/**
 * The tests a mutation run (`npm run mutation`, stryker.config.mjs) runs against each mutant of src/auth/, the
 * checks, src/doctor/, the redactor (`--mutate src/observers/redactor.ts`) and the output and argument functions
 * (`--mutate 'src/output/*.ts,src/arguments.ts'`): every suite that drives authentication, the order of checks, the
 * hiding of secrets and the escaping of what is shown in-process, through the real HTTP server.
 * Left out: suites that start the built CLI (a mutant of src/ never reaches dist/), the browser and the long fuzzers.
 */
export default defineConfig({
  test: {
    include: [
      'test/signature.test.ts',
      'test/hmac-key.test.ts',
      'test/header-formats.test.ts',
      'test/integer-set.test.ts',
      'test/replay-memory.test.ts',
      'test/auth-modes.test.ts',
      'test/forced-codes.test.ts',
      'test/messages.test.ts',
      'test/permissions.test.ts',
      'test/signature-doctor.test.ts',
      'test/signature-doctor-edges.test.ts',
      'test/doctor-shapes.test.ts',
      'test/client-findings.test.ts',
      'test/client-findings-edges.test.ts',
      'test/reports.test.ts',
      'test/report-text.test.ts',
      'test/first-uses.test.ts',
      'test/order.test.ts',
      'test/replay.test.ts',
      'test/parsing.test.ts',
      'test/http.test.ts',
      'test/codes.test.ts',
      'test/rules.test.ts',
      'test/catalog.test.ts',
      'test/client-fixtures.test.ts',
      'test/lifecycle.test.ts',
      'test/client.test.ts',
      'test/in-process.test.ts',
      'test/robustness/authorization.test.ts',
      'test/robustness/picks.test.ts',
      'test/robustness/cost.test.ts',
      'test/case-folding.test.ts',
      'test/globs.test.ts',
      'test/robustness/own-properties.test.ts',
      'test/robustness/concurrency.test.ts',
      'test/robustness/bounds.test.ts',
      'test/robustness/redaction.test.ts',
      'test/robustness/redaction-forms.test.ts',
      'test/robustness/secrets.test.ts',
      'test/redactor-stretches.test.ts',
      'test/log-line.test.ts',
      'test/output.test.ts',
      'test/robustness/terminal.test.ts',
      'test/robustness/markdown.test.ts',
      'test/robustness/report-size.test.ts',
      'test/robustness/edges.test.ts',
      'test/robustness/seed.test.ts',
      'test/robustness/phone.test.ts',
      'test/robustness/control-token.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
