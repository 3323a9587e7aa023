import { statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { findShippedScenario, SCENARIO_NAME } from './catalog.js';
import { ControlError, OptionsError } from '../errors.js';

/**
 * The scenario directories the control API may read files from, and the one refusal for any other path.
 */

/**
 * The directories the control API may read scenario files from, as the operator named them at start
 * (`--scenario-dir`, by default the folder of `--scenario`). A file named through the control API is read only
 * when it lies inside one of them once every link is followed; any other path gets the same refusal whether it
 * exists or not, so the control API tells nothing about the rest of the machine.
 */
export class ScenarioDirectories {
  readonly dirs: readonly string[];

  /**
   * Throws an OptionsError naming each directory that is not one: a wrong name would leave every file refused,
   * silently.
   */
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

  /**
   * The real path of `file` (absolute, or relative to a scenario directory) when it is inside one. Otherwise a
   * ControlError (400), the same whatever the reason (outside the directories, missing, a link out), with a message
   * that does not quote the path (the caller knows it, and it may hold anything).
   */
  async locate(file: string): Promise<string> {
    if (this.dirs.length === 0) {
      throw new ControlError(
        400,
        'this simulator reads no scenario files through the control API: start it with --scenario-dir <dir> (or the option scenarioDirs) to allow the files of that directory',
      );
    }
    const candidates = isAbsolute(file)
      ? this.dirs.map((d) => [d, resolve(file)])
      : this.dirs.map((d) => [d, join(d, file)]);
    for (const [dir, candidate] of candidates) {
      if (!inside(dir, candidate)) continue;
      const { realpath } = await import('node:fs/promises');
      const [realDir, realFile] = await Promise.all([
        realpath(dir).catch(() => undefined),
        realpath(candidate).catch(() => undefined),
      ]);
      if (realDir !== undefined && realFile !== undefined && inside(realDir, realFile)) return realFile;
    }
    throw new ControlError(400, `the file is not in this simulator's scenario directories (${this.dirs.join(', ')})`);
  }

  /**
   * A scenario by name: a shipped one, else `<name>.yaml` or `<name>.yml` in a scenario directory; undefined when none.
   */
  async findByName(name: string): Promise<string | undefined> {
    const shipped = findShippedScenario(name);
    if (shipped || !SCENARIO_NAME.test(name)) return shipped;
    for (const dir of this.dirs) {
      for (const ext of ['.yaml', '.yml']) {
        const found = await this.locate(join(dir, `${name}${ext}`)).catch(() => undefined);
        if (found) return found;
      }
    }
    return undefined;
  }
}

/**
 * The scenario directories when none are named: the folder of the scenario the simulator starts with, when that is a
 * file.
 */
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
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? 'there is no such directory'
      : `it cannot be looked at (${code ?? 'unknown error'})`;
  }
}

/** Whether `file` lies below `dir`. */
function inside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
