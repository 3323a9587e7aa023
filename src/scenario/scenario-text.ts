/**
 * Whether a string given as a scenario is its text rather than a name or a file: it holds a line break, starts with
 * `{`, or holds a `key: value` pair. In-process methods and the control client read a string the same way.
 */
export function isScenarioText(s: string): boolean {
  return /[\r\n]/.test(s) || /^\s*\{/.test(s) || /^\s*[A-Za-z_][\w-]*\s*:(\s|$)/.test(s);
}
