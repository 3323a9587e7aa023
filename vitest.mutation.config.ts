import { defineConfig } from 'vitest/config';

/**
 * The tests a mutation run (`npm run mutation`, stryker.config.mjs) runs against each mutant of src/auth/, the
 * request path (src/request/), src/doctor/, the redactor (`--mutate
 * src/observers/redactor.ts,src/observers/unescape.ts`), the scenario's checks and rules (`--mutate
 * 'src/scenario/*.ts'`), proxy mode (`--mutate 'src/proxy/*.ts'`), the event stream and the clock (`--mutate
 * 'src/observers/event-stream.ts,src/world/clock.ts'`) and the output and argument functions (`--mutate
 * 'src/output/*.ts,src/arguments.ts'`): every suite that drives authentication, the
 * order of checks, the hiding of secrets, scenario problems and rules, proxy mode and the escaping of what is shown,
 * in-process, through the real HTTP server.
 * Left out: suites that start the built CLI (a mutant of src/ never reaches dist/), the browser and the long fuzzers.
 */
export default defineConfig({
  test: {
    include: [
      'test/signature.test.ts',
      'test/clock-events.test.ts',
      'test/robustness/time-bounds.test.ts',
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
      'test/service-judge.test.ts',
      'test/upstream.test.ts',
      'test/proxy.test.ts',
      'test/proxy-fixtures.test.ts',
      'test/recorder.test.ts',
      'test/probe.test.ts',
      'test/robustness/upstream.test.ts',
      'test/other-token.test.ts',
      'test/hex-case.test.ts',
      'test/scenario-one-pass.test.ts',
      'test/scenario-files.test.ts',
      'test/rule-composition.test.ts',
      'test/challenge-steps.test.ts',
      'test/request-bodies.test.ts',
      'test/output.test.ts',
      'test/robustness/terminal.test.ts',
      'test/answer-memo.test.ts',
      'test/robustness/markdown.test.ts',
      'test/robustness/report-size.test.ts',
      'test/robustness/edges.test.ts',
      'test/robustness/seed.test.ts',
      'test/robustness/phone.test.ts',
      'test/robustness/control-token.test.ts',
      // The request path's own steps: the commit point, rules' faults and delays, journal records, links, bound
      // scenarios and the run's numbering, challenges and their QR links, shutdown with requests held.
      'test/commit.test.ts',
      'test/journal-record.test.ts',
      'test/links.test.ts',
      'test/request-context.test.ts',
      'test/request-path.test.ts',
      'test/forced-success.test.ts',
      'test/api-user-id.test.ts',
      'test/challenge-bound.test.ts',
      'test/qr.test.ts',
      'test/run-scope.test.ts',
      'test/claims.test.ts',
      'test/observer-failures.test.ts',
      'test/observer-lists.test.ts',
      'test/robustness/abuse.test.ts',
      'test/robustness/shutdown.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Modules are loaded once per worker, not once per test file: Stryker switches mutants at run time (a mutant is
    // a branch in the instrumented code, chosen by a global), so nothing needs loading afresh, and a mutant's run
    // reads its covering files in a third of the time. Every suite listed passes this way.
    isolate: false,
  },
});
