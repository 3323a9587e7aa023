import { statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ControlError, OptionsError, ScenarioError } from '../contract/errors.js';
import { FileRefused, readFileWithin, readFileWithinAsync } from '../files/read-file.js';
import { findShippedScenario, SCENARIO_NAME } from './catalog.js';
import type { ScenarioSource } from './registry.js';

/** Scenario files larger than this are refused. */
export const MAX_SCENARIO_BYTES = 1024 * 1024;
const NO_DIRECTORIES =
  'this simulator reads no scenario files through the control API: start it with --scenario-dir <dir> (or the option scenarioDirs) to allow the files of that directory';
const NO_SCENARIO =
  'send { "name": "<scenario>" }, { "file": "<file in a scenario directory>" }, a scenario object, or YAML text';
const NOT_FOUND =
  'is not the name of a shipped scenario (GET /__sim/scenarios lists them) nor of a file in the scenario directories';

/** Reads a scenario file whose path the caller chose (the command line, in-process calls). */
export function readScenarioFileSync(file: string): string {
  try {
    return readFileWithin(file, { limit: MAX_SCENARIO_BYTES }).toString('utf8');
  } catch (e) {
    throw refusal(file, e);
  }
}

/** The same, without blocking the event loop: for files named through the control API. */
async function readScenarioFile(file: string): Promise<string> {
  const read = await readFileWithinAsync(file, { limit: MAX_SCENARIO_BYTES }).catch((e: unknown) => {
    throw refusal(file, e);
  });
  return read.toString('utf8');
}

function refusal(file: string, e: unknown): ScenarioError {
  if (!(e instanceof FileRefused)) throw e;
  const message = {
    'not regular': 'is not a regular file (a scenario file is a YAML or JSON text file)',
    'too large': `the file is larger than ${MAX_SCENARIO_BYTES / 1024} KiB`,
    unreadable: `cannot be read: ${e.code ?? e.message}`,
  }[e.reason];
  return new ScenarioError(file, [{ path: [], message }]);
}

/** The directories the control API may read scenario files from; any other path gets the same refusal. */
export class ScenarioDirectories {
  readonly dirs: readonly string[];

  /** Throws an OptionsError naming each directory that is not one: a wrong name would leave every file refused. */
  constructor(dirs: readonly string[] = []) {
    const issues = dirs.flatMap((dir, i) => {
      const problem = directoryProblem(dir);
      return problem
        ? [{ path: ['scenarioDirs', i], message: `${JSON.stringify(dir.slice(0, 200))}: ${problem}` }]
        : [];
    });
    if (issues.length) throw new OptionsError(issues);
    this.dirs = [...new Set(dirs.map((d) => resolve(d)))];
  }

  /** The real path of `file` (absolute, or relative to a scenario directory) when inside one; else a ControlError. */
  async locate(file: string): Promise<string> {
    if (this.dirs.length === 0) throw new ControlError(400, NO_DIRECTORIES);
    for (const dir of this.dirs) {
      const candidate = isAbsolute(file) ? resolve(file) : join(dir, file);
      if (!inside(dir, candidate)) continue;
      const [realDir, realFile] = await Promise.all([realpath(dir), realpath(candidate)].map((p) => p.catch(() => '')));
      if (realDir && realFile && inside(realDir, realFile)) return realFile;
    }
    // The path is not quoted: the caller knows it, and it may hold anything.
    throw new ControlError(400, `the file is not in this simulator's scenario directories (${this.dirs.join(', ')})`);
  }

  /** A shipped scenario by name, else `<name>.yaml` or `<name>.yml` in a scenario directory. */
  async findByName(name: string): Promise<string | undefined> {
    const shipped = findShippedScenario(name);
    if (shipped || !SCENARIO_NAME.test(name)) return shipped;
    for (const file of this.dirs.flatMap((dir) => [`${name}.yaml`, `${name}.yml`].map((f) => join(dir, f)))) {
      const found = await this.locate(file).catch(() => undefined);
      if (found) return found;
    }
    return undefined;
  }
}

/** The scenario directories when none are named: the folder of the scenario the simulator starts with, if a file. */
export function defaultScenarioDirs(scenario: string | undefined): string[] {
  try {
    return scenario !== undefined && statSync(scenario).isFile() ? [dirname(scenario)] : [];
  } catch {
    return [];
  }
}

/** Why `dir` cannot be a scenario directory (it does not exist, is no directory, cannot be looked at), or undefined. */
export function directoryProblem(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? undefined : 'it is not a directory';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'there is no such directory';
    return `it cannot be looked at (${code ?? 'unknown error'})`;
  }
}

function inside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** Quotes a caller's value in a message, its secrets redacted. */
type Echo = (value: string, max: number) => string;

/** A scenario from a control API body: a name, a file, an object (alone or under `scenario`), or YAML / JSON text. */
export async function controlSource(body: unknown, dirs: ScenarioDirectories, echo: Echo): Promise<ScenarioSource> {
  if (typeof body === 'string') return { text: body, source: 'request body' };
  const b = body as Record<string, unknown> | undefined;
  const keys = b && typeof b === 'object' && !Array.isArray(b) ? Object.keys(b).length : 0;
  if (!b || keys === 0) throw new ControlError(400, NO_SCENARIO);
  const { name, file, scenario } = b;
  if (keys === 1 && (typeof name === 'string' || typeof file === 'string')) {
    const found = typeof name === 'string' ? await dirs.findByName(name) : await dirs.locate(file as string);
    if (!found) throw new ScenarioError(echo(name as string, 100), [{ path: [], message: NOT_FOUND }]);
    return { text: await readScenarioFile(found), source: found };
  }
  return Object.hasOwn(b, 'scenario') && scenario && typeof scenario === 'object' ? scenario : b;
}
