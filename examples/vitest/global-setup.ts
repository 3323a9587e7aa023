// One simulator for every Vitest worker, started once; at the end, the run's verdict over what every worker met.
import type { TestProject } from 'vitest/node';
import { startSimulator } from 'mfa-sim';

declare module 'vitest' {
  export interface ProvidedContext {
    mfaSimUrl: string;
  }
}

// Every code the workers together must meet, as `--require-coverage` demands of a CI job.
const REQUIRED = [2025, 2028, -2006, -4036, -4034, 15000];

export default async function setup(project: TestProject) {
  const sim = await startSimulator();
  project.provide('mfaSimUrl', sim.url);
  return async () => {
    const verdict = sim.verdict({ required: REQUIRED });
    await sim.close();
    if (verdict.status !== 0) {
      console.error(`mfa-sim: ${verdict.lines.join('\n')}`);
      process.exitCode = verdict.status; // Vitest reports an error thrown here, yet exits 0: the status fails the run
    }
  };
}
