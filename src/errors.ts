/**
 * The errors the simulator throws to its callers (in-process methods) and turns into answers (the control API).
 * Each says what cannot be done and carries what a caller needs to react: a ControlError its HTTP status.
 * Errors of a scenario (ScenarioError, with the file, line and key of each problem) live in scenario/errors.ts.
 */

/** A control operation that cannot be done: an HTTP status for the control API, and why. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}
