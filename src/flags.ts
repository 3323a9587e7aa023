import { delimiter } from 'node:path';
import { closest } from './closest.js';
import { API_USER_ID, API_USER_ID_RULE } from './contract/api-user.js';
import { FlagError } from './errors.js';
import { parseRequiredCodes } from './observers/coverage.js';
import { directoryProblem } from './scenario/directories.js';

/**
 * The command line's flags: one table (name, value, description, environment variable, default, check), read from
 * the arguments and the environment, and the help text made from the same table. Written here rather than with a
 * flag library: loading one cost a tenth of the command line's start-up.
 */


interface Flag {
  /** The long name without dashes, e.g. `port` (the option key is its camel case: `port`, `scenarioDir`). */
  name: string;
  short?: string;
  /** The value's placeholder, e.g. `<port>`; absent for a switch. */
  value?: string;
  description: string;
  /** Read from this variable when the flag is not given. */
  env?: string;
  default?: string;
  choices?: readonly string[];
  /** Turns the text into the option's value; throws FlagError (its message follows the flag's name). */
  parse?: (text: string) => unknown;
  /** Given again (or in its variable), the values add up, each split at this separator. */
  listSeparator?: string;
  /** `--no-<name>`: the switch sets false (its variable says on or off). */
  negated?: boolean;
  /** Prints something and exits: --help, --version, --codes... */
  action?: boolean;
}

function wholeNumber(min: number, max: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new FlagError(`must be a whole number from ${min} to ${max}`);
    return Number(text);
  };
}

function requiredCodes(text: string): number[] {
  try {
    return parseRequiredCodes(text);
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
}

/** The flags, in the order the help lists them. */
export const FLAGS: readonly Flag[] = [
  { name: 'version', short: 'V', description: 'print the version and exit', action: true },
  { name: 'port', short: 'p', value: '<port>', description: 'port to listen on; 0 picks a free one', env: 'MFA_SIM_PORT', default: '8080', parse: wholeNumber(0, 65_535) },
  { name: 'host', short: 'H', value: '<address>', description: 'address to listen on', env: 'MFA_SIM_HOST', default: '127.0.0.1' },
  { name: 'scenario', short: 's', value: '<name|file>', description: 'a shipped scenario by name, or a scenario file', env: 'MFA_SIM_SCENARIO' },
  { name: 'token', short: 't', value: '<token>', description: 'identifier token in header names, scheme, algorithm and user field (default svc)', env: 'MFA_SIM_TOKEN' },
  { name: 'strict', description: 'reject everything the interface document does not show', env: 'MFA_SIM_STRICT' },
  { name: 'hints', negated: true, description: "end no refusal's message with the client doctor's hint: the code's bare meaning only", env: 'MFA_SIM_HINTS' },
  { name: 'response-style', value: '<style>', description: 'document (utctime) or sdk (utcTime, for the published clients)', env: 'MFA_SIM_RESPONSE_STYLE', choices: ['document', 'sdk'] },
  { name: 'api-user', value: '<id>', description: 'the default API user id (9 digits)', env: 'MFA_SIM_API_USER', parse: nineDigits },
  { name: 'secret', value: '<secret>', description: "the default API user's secret (default: a random one, printed at start)", env: 'MFA_SIM_SECRET' },
  { name: 'seed', value: '<n>', description: 'make challenge ids and generated values the same from run to run', env: 'MFA_SIM_SEED', parse: wholeNumber(0, 2 ** 32 - 1) },
  {
    name: 'scenario-dir',
    value: '<dir>',
    description: `a directory the control API may load scenario files from (repeatable, or several separated by "${delimiter}"; default: the folder of --scenario)`,
    env: 'MFA_SIM_SCENARIO_DIR',
    listSeparator: delimiter,
    parse: existingDirectory,
  },
  {
    name: 'allowed-hosts',
    value: '<names>',
    description: 'host names the control API and dashboard answer besides localhost and IP addresses (comma-separated; .example.com allows its subdomains)',
    env: 'MFA_SIM_ALLOWED_HOSTS',
    listSeparator: ',',
  },
  { name: 'control-token', value: '<token>', description: 'token the control API requires (default: none on loopback, a random one elsewhere)', env: 'MFA_SIM_CONTROL_TOKEN' },
  { name: 'watch', short: 'w', description: 'reload the scenario file when it changes (a broken edit keeps the last good one)', env: 'MFA_SIM_WATCH' },
  { name: 'quiet', short: 'q', description: 'no log line per request', env: 'MFA_SIM_QUIET' },
  { name: 'log', value: '<format>', description: 'text (one line per request) or json (one JSON object per line, by pino)', env: 'MFA_SIM_LOG', default: 'text', choices: ['text', 'json'] },
  { name: 'coverage-out', value: '<file>', description: 'at exit, write the status coverage (codes met and never met) to this JSON file', env: 'MFA_SIM_COVERAGE_OUT' },
  {
    name: 'require-coverage',
    value: '<codes|all>',
    description: 'at exit, fail (exit 3) unless these codes (comma-separated, or all) were each answered at least once',
    env: 'MFA_SIM_REQUIRE_COVERAGE',
    parse: requiredCodes,
  },
  { name: 'report', value: '<file.md>', description: 'at exit, append a Markdown report (coverage, client findings, hints) to this file, e.g. "$GITHUB_STEP_SUMMARY"', env: 'MFA_SIM_REPORT' },
  { name: 'junit', value: '<file.xml>', description: 'at exit, write JUnit XML: a test case per code of the contract and per client finding', env: 'MFA_SIM_JUNIT' },
  {
    name: 'fail-on-findings',
    value: '<severity>',
    description: 'at exit, fail (exit 4) if the client doctor found anything this severe or worse',
    env: 'MFA_SIM_FAIL_ON_FINDINGS',
    choices: ['info', 'warning', 'error'],
  },
  { name: 'list-scenarios', description: 'list the shipped scenarios and exit', action: true },
  { name: 'codes', description: 'print the code table and exit', action: true },
  { name: 'schema', description: 'print the JSON Schema of scenario files and exit', action: true },
  { name: 'help', short: 'h', description: 'show this help', action: true },
];

function existingDirectory(text: string): string {
  const problem = directoryProblem(text);
  if (problem) throw new FlagError(`${text.slice(0, 200)}: ${problem}`);
  return text;
}

function nineDigits(text: string): string {
  if (!API_USER_ID.test(text)) throw new FlagError(API_USER_ID_RULE);
  return text;
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
const shown = (f: Flag) => `--${f.negated ? 'no-' : ''}${f.name}`;

/** A switch's variable: on or off, in the words people write. */
function onOff(text: string): boolean {
  if (/^(1|true|yes|on)$/i.test(text.trim())) return true;
  if (/^(0|false|no|off)$/i.test(text.trim())) return false;
  throw new FlagError('must be on or off (true/false, yes/no, 1/0)');
}

/** A flag's value as the option holds it, checked; `where` names the flag or variable in a message. */
function valueOf(f: Flag, text: string, where: string): unknown {
  try {
    if (f.choices && !f.choices.includes(text)) throw new FlagError(`must be one of ${f.choices.join(', ')} (not ${JSON.stringify(text.slice(0, 40))})`);
    return f.parse ? f.parse(text) : text;
  } catch (e) {
    if (e instanceof FlagError) throw new FlagError(`${where} ${e.message}.`);
    throw e;
  }
}

function splitList(text: string, separator: string): string[] {
  return text
    .split(separator)
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The flag a mistyped name most likely meant, within two edits, if any. */
function nearest(name: string): string | undefined {
  // A switch that turns something off is also known without its `no-`: `--hints` is near `--no-hints`.
  const names = new Map(FLAGS.flatMap((f) => [[shown(f).slice(2), shown(f)], [f.name, shown(f)]]));
  const near = closest(name, [...names.keys()], 2);
  return near === undefined ? undefined : names.get(near);
}

/**
 * The options the arguments and the environment give: keys in camel case (`scenarioDir`, `coverageOut`), defaults
 * filled in, each value checked. A flag wins over its variable. Throws FlagError for anything it cannot use.
 */
export function parseFlags(args: readonly string[], env: Record<string, string | undefined>): Record<string, unknown> {
  const given = new Map<Flag, string[]>();
  const byLong = new Map(FLAGS.map((f) => [shown(f).slice(2), f]));
  const byShort = new Map(FLAGS.filter((f) => f.short).map((f) => [f.short!, f]));
  const take = (f: Flag, value: string) => given.set(f, [...(given.get(f) ?? []), value]);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    let f: Flag | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
      f = byLong.get(name);
      if (!f) {
        const near = nearest(name);
        throw new FlagError(`unknown flag --${name.slice(0, 40)}${near ? ` (did you mean ${near}?)` : ''}.`);
      }
    } else if (/^-[A-Za-z]/.test(arg)) {
      // -q, -qw (switches together), -p 8080 or -p8080.
      for (let k = 1; k < arg.length; k++) {
        const s = byShort.get(arg[k]);
        if (!s) throw new FlagError(`unknown flag -${arg[k]}.`);
        if (s.value === undefined) {
          take(s, '');
          continue;
        }
        f = s;
        inline = k + 1 < arg.length ? arg.slice(k + 1) : undefined;
        break;
      }
      if (!f) continue;
    } else {
      throw new FlagError(`unexpected argument ${JSON.stringify(arg.slice(0, 40))}: mfa-sim takes only flags.`);
    }
    if (f.value === undefined) {
      if (inline !== undefined) throw new FlagError(`${shown(f)} takes no value.`);
      take(f, '');
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) throw new FlagError(`${shown(f)} needs a value: ${shown(f)} ${f.value}.`);
    take(f, value);
  }

  const out: Record<string, unknown> = {};
  for (const f of FLAGS) {
    const key = camel(f.name);
    const values = given.get(f);
    if (f.value === undefined) {
      if (values) out[key] = !f.negated;
      else if (f.env && env[f.env] !== undefined && env[f.env]!.trim() !== '') out[key] = valueOfSwitch(f, env[f.env]!);
      continue;
    }
    const fromEnv = f.env ? env[f.env] : undefined;
    const texts = values ?? (fromEnv !== undefined && fromEnv !== '' ? [fromEnv] : f.default !== undefined ? [f.default] : undefined);
    if (!texts) continue;
    const where = values ? shown(f) : fromEnv !== undefined && fromEnv !== '' ? f.env! : shown(f);
    if (f.listSeparator) out[key] = texts.flatMap((t) => splitList(t, f.listSeparator!)).map((t) => valueOf(f, t, where));
    else out[key] = valueOf(f, texts[texts.length - 1], where);
  }
  return out;
}

function valueOfSwitch(f: Flag, text: string): boolean {
  try {
    return onOff(text);
  } catch (e) {
    throw new FlagError(`${f.env} ${(e as Error).message}.`);
  }
}

/** Text wrapped to `width` columns, its lines after the first indented by `indent`. */
function wrap(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  // Never broken after a colon: "env: MFA_SIM_PORT" stays on one line.
  for (const word of text.split(/(?<!:) /)) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** The help text, at one width whatever the terminal: the same text everywhere, docs/command-line.md included. */
export function helpText(description: string, after: string, width = 100): string {
  const left = (f: Flag) => `${f.short ? `-${f.short}, ` : ''}${shown(f)}${f.value ? ` ${f.value}` : ''}`;
  const column = Math.max(...FLAGS.map((f) => left(f).length)) + 4;
  const rows = FLAGS.map((f) => {
    const notes = [
      f.choices ? `choices: ${f.choices.join(', ')}` : '',
      f.default !== undefined ? `default: ${f.default}` : '',
      f.env ? `env: ${f.env}${f.negated ? '=off' : ''}` : '',
    ].filter(Boolean);
    const text = `${f.description}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    return `  ${left(f).padEnd(column - 2)}${wrap(text, width, column)}`;
  });
  return ['Usage: mfa-sim [options]', '', wrap(description, width, 0), '', 'Options:', ...rows, '', after, ''].join('\n');
}
