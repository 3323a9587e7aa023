import { writeFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startSimulator } from '../../src/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    simUrl: string;
  }
}

/**
 * One simulator for every worker, started once; at the end, the run's verdict on the codes every worker together
 * must have met (MFA_SIM_REQUIRE: comma-separated), written to MFA_SIM_VERDICT_FILE for the test that runs this
 * suite; a failed verdict fails the run with its exit status, as `--require-coverage` fails a CI job.
 */
export default async function setup(project: TestProject) {
  const sim = await startSimulator({ name: 'shared' });
  project.provide('simUrl', sim.url);
  return async () => {
    const required = (process.env.MFA_SIM_REQUIRE ?? '').split(',').filter(Boolean).map(Number);
    const verdict = sim.verdict({ required });
    if (process.env.MFA_SIM_VERDICT_FILE)
      writeFileSync(
        process.env.MFA_SIM_VERDICT_FILE,
        JSON.stringify({
          verdict,
          coverage: sim.coverage(),
          report: sim.report('markdown', { required }),
          journal: sim.journal().map((e) => ({ seq: e.seq, apiUser: e.apiUser })),
        }),
      );
    await sim.close();
    if (verdict.status !== 0) {
      // Vitest reports an error thrown here but still exits 0: the exit status is set instead, as the CLI's would be.
      console.error(`mfa-sim: ${verdict.lines.join('\n')}`);
      process.exitCode = verdict.status;
    }
  };
}
