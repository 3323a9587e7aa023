import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../errors.js';
import { besideBuild } from '../world/lazy.js';

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

/**
 * The value of a shipped scenario's file, as the build parsed it into `dist/scenarios.json` (the same files, the same
 * parser and checks: tsup.config.ts). Loading a shipped scenario then needs neither YAML nor a parse: the first
 * scenario of an in-process test file, and the command line with `--scenario <name>`, start sooner. Undefined for
 * any other file, and when running from the sources, where there is no build. The values are frozen: every load
 * compiles the same one.
 */
export function shippedScenarioValue(file: string): unknown {
  const values = builtValues();
  if (values === undefined || dirname(resolve(file)) !== shippedScenarioDir()) return undefined;
  const name = basename(file, '.yaml');
  // Frozen once (the root is then frozen, and the walk stops there at once).
  return Object.hasOwn(values, name) ? deepFreeze(values)[name] : undefined;
}

const builtValues = besideBuild<Record<string, unknown>>('./scenarios.json');

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
