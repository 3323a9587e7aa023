import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../contract/errors.js';

/** What a scenario name may look like when it names a file (`<name>.yaml`): no path, no dot first. */
export const SCENARIO_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/i;

/** Whether a string given as a scenario is its text (a line break, a first `{`, a `key: value`), not a name or file. */
export function isScenarioText(s: string): boolean {
  return /[\r\n]/.test(s) || /^\s*\{/.test(s) || /^\s*[A-Za-z_][\w-]*\s*:(\s|$)/.test(s);
}

/** The folder of the shipped scenarios, found from this module upwards (works from src/ and from dist/). */
export function shippedScenarioDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 5; i++, dir = dirname(dir))
    if (existsSync(join(dir, 'scenarios', 'default.yaml'))) return join(dir, 'scenarios');
  throw new InternalError('the shipped scenarios folder was not found beside the mfa-sim package');
}

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
