import { ScenarioError } from '../errors.js';
import { FileRefused, readFileWithin, readFileWithinAsync } from '../read-file.js';

/**
 * Reading a scenario file: through the one reader (read-file.ts), a regular file only, bounded while read, never
 * waiting on a FIFO or a device.
 */

/** Scenario files larger than this are refused. */
export const MAX_SCENARIO_BYTES = 1024 * 1024;

const LIMITS = { limit: MAX_SCENARIO_BYTES };

function scenarioError(file: string, e: unknown): ScenarioError {
  if (!(e instanceof FileRefused)) throw e;
  const message =
    e.reason === 'not regular'
      ? 'is not a regular file (a scenario file is a YAML or JSON text file)'
      : e.reason === 'too large'
        ? `the file is larger than ${MAX_SCENARIO_BYTES / 1024} KiB`
        : `cannot be read: ${e.code ?? e.message}`;
  return new ScenarioError(file, [{ path: [], message }]);
}

/**
 * Reads a scenario file for the command line and in-process calls (whose caller chose the path): only a regular
 * file, at most MAX_SCENARIO_BYTES, without waiting on a FIFO or reading a device without end.
 */
export function readScenarioFileSync(file: string): string {
  try {
    return readFileWithin(file, LIMITS).toString('utf8');
  } catch (e) {
    throw scenarioError(file, e);
  }
}

/** The same, without blocking the event loop: for files named through the control API. */
export async function readScenarioFile(file: string): Promise<string> {
  try {
    return (await readFileWithinAsync(file, LIMITS)).toString('utf8');
  } catch (e) {
    throw scenarioError(file, e);
  }
}
