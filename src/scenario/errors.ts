/**
 * ScenarioError: a scenario that cannot be used, with the file, line and key of each problem.
 */

/** One problem found in a scenario: where (a key path, and a line when it came from a file) and what. */
export interface ScenarioIssue {
  path: (string | number)[];
  message: string;
  line?: number;
}

/** A key path as a reader writes it: `rules[0].when.svcUser`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out || '(top level)';
}

/**
 * A scenario that cannot be used. Its message names the file, the line and the key of each problem,
 * one per line: `scenarios/x.yaml:12: rules[0].tims: unknown key (did you mean "times"?)`.
 */
export class ScenarioError extends Error {
  constructor(
    readonly source: string,
    readonly issues: ScenarioIssue[],
  ) {
    super(issues.map((i) => `${source}${i.line ? `:${i.line}` : ''}: ${i.path.length ? `${formatPath(i.path)}: ` : ''}${i.message}`).join('\n'));
    this.name = 'ScenarioError';
  }
}
