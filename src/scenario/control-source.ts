import type { ScenarioDirectories } from './directories.js';
import { ControlError, ScenarioError } from '../errors.js';
import { readScenarioFile } from './files.js';
import type { ScenarioSource } from './registry.js';

/**
 * A scenario as a control API body gives it: a name (shipped, or `<name>.yaml` in a scenario directory), a file in
 * a scenario directory, a scenario object (alone or under `scenario`), or YAML / JSON text. Files are read without
 * blocking, and only where the operator allowed; what comes back is text or an object, never a path to read later.
 * `echo` shows a caller's value in a message with its secrets hidden.
 */
export async function controlSource(
  body: unknown,
  dirs: ScenarioDirectories,
  echo: (value: string, max: number) => string,
): Promise<ScenarioSource> {
  if (typeof body === 'string') return { text: body, source: 'request body' };
  const b = body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object' || Array.isArray(b) || Object.keys(b).length === 0) {
    throw new ControlError(
      400,
      'send { "name": "<scenario>" }, { "file": "<file in a scenario directory>" }, a scenario object, or YAML text',
    );
  }
  const only = Object.keys(b).length === 1;
  if (only && typeof b.name === 'string') {
    const file = await dirs.findByName(b.name);
    if (!file)
      throw new ScenarioError(echo(b.name, 100), [
        {
          path: [],
          message:
            'is not the name of a shipped scenario (GET /__sim/scenarios lists them) nor of a file in the scenario directories',
        },
      ]);
    return { text: await readScenarioFile(file), source: file };
  }
  if (only && typeof b.file === 'string') {
    const file = await dirs.locate(b.file);
    return { text: await readScenarioFile(file), source: file };
  }
  if (Object.hasOwn(b, 'scenario') && b.scenario && typeof b.scenario === 'object') return b.scenario;
  return b;
}
