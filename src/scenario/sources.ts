import { existsSync } from 'node:fs';
import { RUN_KEYS } from '../run-options.js';
import { findShippedScenario } from './catalog.js';
import type { CompiledScenario } from './compile.js';
import { ScenarioError } from '../errors.js';
import { compileOrThrow, loadScenarioFile, loadScenarioText } from './load.js';
import type { ScenarioInput } from './schema.js';
import { isScenarioText } from './scenario-text.js';

/**
 * The ways a scenario is given in-process (a name, a file, an object, text) and the one a simulator starts with.
 */

/**
 * A scenario as the in-process methods take it: what the control API takes. A string is scenario text (YAML or
 * JSON) when it holds a line break, starts with `{`, or holds a `key: value` pair; any other string is a shipped
 * scenario's name or a file. Or an object with the scenario's keys, or `{ text, source? }` with text named `source`.
 */
export type ScenarioSource = string | Partial<ScenarioInput> | { text: string; source?: string };

/** The description of the scenario a simulator starts with when it is given none (the shipped `default`'s). */
const DEFAULT_DESCRIPTION =
  'Everything works. One ready API user (its id and secret are printed at start), every account active, the clock right.';

/** Compiles a scenario from any of the ways it can be given; anything wrong is a ScenarioError naming where. */
export function resolveScenario(source: ScenarioSource): CompiledScenario {
  if (source === null || (typeof source !== 'string' && typeof source !== 'object')) {
    throw new ScenarioError('scenario', [
      { path: [], message: 'must be a shipped scenario name, a file, a scenario object, YAML text or { text }' },
    ]);
  }
  if (typeof source === 'string' && isScenarioText(source)) return loadScenarioText(source, 'scenario text');
  if (typeof source === 'string') {
    const file = existsSync(source) ? source : findShippedScenario(source);
    if (!file)
      throw new ScenarioError(source, [
        { path: [], message: 'is neither a scenario file nor the name of a shipped scenario' },
      ]);
    return loadScenarioFile(file);
  }
  if (
    typeof (source as { text?: unknown }).text === 'string' &&
    Object.keys(source).every((k) => k === 'text' || k === 'source')
  ) {
    const { text, source: label } = source as { text: string; source?: string };
    return loadScenarioText(text, label ?? 'scenario');
  }
  const name = (source as { name?: unknown }).name;
  return compileOrThrow(source, typeof name === 'string' ? name : 'scenario');
}

/**
 * The scenario keys given as options (flags) that stay when another scenario is loaded: token, strictness, response
 * style, hints.
 */
export function pinnedKeys(opts: Partial<ScenarioInput>): Partial<ScenarioInput> {
  const pinned: Record<string, unknown> = {};
  for (const k of ['token', 'strict', 'responseStyle', 'hints'] as const)
    if (opts[k] !== undefined) pinned[k] = opts[k];
  return pinned;
}

/** The scenario a simulator starts with: a named or file scenario, with the options' scenario keys on top. */
export function scenarioFromOptions(opts: Record<string, unknown> & { scenario?: string }): CompiledScenario {
  // Own keys kept as they are (`__proto__` too), so that the scenario's schema refuses what it refuses in a scenario.
  const inline = Object.fromEntries(Object.entries(opts).filter(([k, v]) => !RUN_KEYS.includes(k) && v !== undefined));
  if (opts.scenario !== undefined) {
    const file = existsSync(opts.scenario) ? opts.scenario : findShippedScenario(opts.scenario);
    if (!file) {
      throw new ScenarioError(opts.scenario, [
        {
          path: [],
          message: 'is neither a scenario file nor the name of a shipped scenario (see `mfa-sim --list-scenarios`)',
        },
      ]);
    }
    const base = loadScenarioFile(file);
    if (Object.keys(inline).length === 0) return base;
    return compileOrThrow({ ...base.input, ...inline }, file);
  }
  return compileOrThrow({ name: 'default', description: DEFAULT_DESCRIPTION, ...inline }, 'options');
}
