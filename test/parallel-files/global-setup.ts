import type { TestProject } from 'vitest/node';
import { startSimulator } from '../../src/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    simUrl: string;
  }
}

/** One simulator for both files, with one API user per team. */
export default async function setup(project: TestProject) {
  const sim = await startSimulator({
    name: 'shared',
    apiUsers: [
      { id: '111111111', secret: 'team-a-secret' },
      { id: '222222222', secret: 'team-b-secret' },
    ],
  });
  project.provide('simUrl', sim.url);
  return () => sim.close();
}
