import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../errors.js';

/**
 * The shipped scenarios: where their folder is, their names, and a name's file.
 */

let root: string | undefined;

/** The folder of the shipped scenarios, found from this module upwards (works from src/ and from dist/). */
export function shippedScenarioDir(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'scenarios');
    if (existsSync(join(candidate, 'default.yaml'))) return (root = candidate);
    dir = dirname(dir);
  }
  throw new InternalError('the shipped scenarios folder was not found beside the mfa-sim package');
}

/** What a scenario name may look like when it names a file (`<name>.yaml`): no path, no dot first. */
export const SCENARIO_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/i;

/** The file of a shipped scenario by name (the file is `<name>.yaml`), or undefined. */
export function findShippedScenario(name: string): string | undefined {
  if (!SCENARIO_NAME.test(name)) return undefined;
  const file = join(shippedScenarioDir(), `${name}.yaml`);
  return existsSync(file) ? file : undefined;
}

/** Names of the shipped scenarios, sorted. */
export function shippedScenarioNames(): string[] {
  return readdirSync(shippedScenarioDir())
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -5))
    .sort();
}
