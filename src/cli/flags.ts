import type { Static, TSchema } from '@sinclair/typebox';
import { delimiter } from 'node:path';
import { parseArgs } from 'node:util';
import { closest } from '../output/closest.js';
import { SEVERITIES } from '../run/finding-types.js';
import { FlagError } from '../contract/errors.js';
import { parseRequiredCodes } from '../run/coverage.js';
import { RunOptionsSchema, type StartOptions } from '../simulator/options.js';
import { directoryProblem } from '../scenario/files.js';
import { ScenarioSchema } from '../scenario/schema.js';
import { Type } from '@sinclair/typebox';

/** How an option is written where its name and type do not say it. */
export interface Spelling {
  name?: string;
  short?: string;
  value?: string;
  negated?: boolean;
  default?: string;
  list?: string;
  parse?: (text: string) => unknown;
  action?: boolean;
}

const SPELLING = Symbol('mfa-sim.flag');
/** An option's schema with how the command line spells it (a copy: the declaration is left as it was). */
const spelled = <T extends TSchema>(schema: T, spelling: Spelling): T => ({ ...schema, [SPELLING]: spelling });
const toggle = (description: string, spelling: Spelling = {}) =>
  spelled(Type.Optional(Type.Boolean({ description })), spelling);
const action = (description: string, short?: string) => toggle(description, { short, action: true });
const text = (value: string, description: string) => spelled(Type.Optional(Type.String({ description })), { value });
const oneOf = <T extends string>(values: readonly T[], value: string, description: string, fallback?: T) => {
  const literals = values.map((v) => Type.Literal(v));
  return spelled(Type.Optional(Type.Union(literals, { description, default: fallback })), { value });
};

const run = RunOptionsSchema.properties;
const scenario = ScenarioSchema.properties;

/** The options the command line hands to `startSimulator`, by the names it takes. */
const SimulatorFlags = Type.Object({
  port: spelled(run.port, { short: 'p', value: '<port>', default: '8080' }),
  host: spelled(run.host, { short: 'H', value: '<address>' }),
  scenario: spelled(run.scenario, { short: 's', value: '<name|file>' }),
  token: spelled(scenario.token, { short: 't', value: '<token>' }),
  strict: spelled(scenario.strict, {}),
  hints: spelled(scenario.hints, { negated: true }),
  responseStyle: spelled(scenario.responseStyle, { value: '<style>' }),
  apiUser: spelled(run.apiUser, { value: '<id>' }),
  secret: spelled(run.secret, { value: '<secret>' }),
  seed: spelled(run.seed, { value: '<n>' }),
  scenarioDirs: spelled(run.scenarioDirs, { name: 'scenario-dir', value: '<dir>', list: delimiter, parse: directory }),
  // Each host name is checked with the other options at start, where the message names it by its place in the list.
  allowedHosts: spelled(run.allowedHosts, { value: '<names>', list: ',' }),
  controlToken: spelled(run.controlToken, { value: '<token>' }),
  upstream: spelled(run.upstream, { value: '<url>' }),
  upstreamCa: spelled(run.upstreamCa, { value: '<file.pem>' }),
  upstreamTimeout: spelled(run.upstreamTimeout, { value: '<ms>' }),
  record: spelled(run.record, { value: '<dir>' }),
  store: spelled(run.store, { value: '<redis-url>' }),
});

/** Everything the command line takes, in the order the help lists it. */
export const CommandLineSchema = Type.Object({
  version: action('print the version and exit', 'V'),
  ...SimulatorFlags.properties,
  watch: toggle('reload the scenario file when it changes (a broken edit keeps the last good one)', { short: 'w' }),
  quiet: toggle('no log line per request', { short: 'q' }),
  log: oneOf(
    ['text', 'json'],
    '<format>',
    'text (one line per request) or json (one JSON object per line, by pino)',
    'text',
  ),
  coverageOut: text('<file>', 'at exit, write the status coverage (codes met and never met) to this JSON file'),
  requireCoverage: spelled(
    Type.Optional(
      Type.Array(Type.Integer(), {
        description:
          'at exit, fail (exit 3) unless these codes (comma-separated, or all) were each answered at least once',
      }),
    ),
    { value: '<codes|all>', parse: parseRequiredCodes },
  ),
  report: text(
    '<file.md>',
    'at exit, append a Markdown report (coverage, client findings, hints) to this file, e.g. "$GITHUB_STEP_SUMMARY"',
  ),
  junit: text('<file.xml>', 'at exit, write JUnit XML: a test case per code of the contract and per client finding'),
  failOnFindings: oneOf(
    SEVERITIES,
    '<severity>',
    'at exit, fail (exit 4) if the client doctor found anything this severe or worse',
  ),
  listScenarios: action('list the shipped scenarios and exit'),
  codes: action('print the code table and exit'),
  schema: action('print the JSON Schema of scenario files and exit'),
  help: action('show this help', 'h'),
});

/** The options the command line read from its arguments and the environment. */
export type CommandLine = Static<typeof CommandLineSchema>;

/** The keys of the command line's options that are options of `startSimulator`, by the same names. */
export const START_KEYS = Object.keys(SimulatorFlags.properties) as (keyof StartOptions & keyof CommandLine)[];

/** The options of `startSimulator` the command line was given. */
export function startOptions(o: CommandLine): StartOptions {
  return Object.fromEntries(START_KEYS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

function directory(text: string): string {
  const problem = directoryProblem(text);
  if (problem) throw new Error(`${text.slice(0, 200)}: ${problem}`);
  return text;
}

/** A flag: the option (`key`) it sets, how it is written (`flag`: `--no-hints`), its variable (`env`, if any). */
export interface Flag extends Spelling {
  key: string;
  name: string;
  flag: string;
  description: string;
  env?: string;
  choices?: readonly string[];
  /** Turns the text into the option's value; its error's message follows the flag's name. */
  parse: (text: string) => unknown;
}

/** The flags, in the order the help lists them. */
export const FLAGS: readonly Flag[] = Object.entries(CommandLineSchema.properties).map(
  ([key, s]: [string, TSchema]) => {
    const spelling = (s as { [SPELLING]?: Spelling })[SPELLING] ?? {};
    const name = spelling.name ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const items = (spelling.list ? s.items : s) as TSchema;
    const anyOf = items.anyOf as TSchema[] | undefined;
    const choices = anyOf?.every((a) => typeof a.const === 'string') ? anyOf.map((a) => a.const as string) : undefined;
    return {
      ...spelling,
      key,
      name,
      flag: `--${spelling.negated ? 'no-' : ''}${name}`,
      value: s.type === 'boolean' ? undefined : (spelling.value ?? '<value>'),
      description: s.description ?? '',
      env: spelling.action ? undefined : `MFA_SIM_${name.toUpperCase().replace(/-/g, '_')}`,
      default: spelling.default ?? (s.default === undefined ? undefined : String(s.default)),
      choices,
      // A list's items are held to their pattern with the other options at start, where the message names each.
      parse: spelling.parse ?? (s.type === 'boolean' ? onOff : readerOf(spelling.list ? {} : items, choices)),
    };
  },
);

function readerOf(schema: Partial<TSchema>, choices: readonly string[] | undefined): (text: string) => unknown {
  const { minimum, maximum, pattern } = schema;
  return (text) => {
    if (choices && !choices.includes(text))
      throw new Error(`must be one of ${choices.join(', ')} (not ${JSON.stringify(text.slice(0, 40))})`);
    if (schema.type !== 'integer' && typeof pattern === 'string' && !new RegExp(pattern).test(text))
      throw new Error(String(schema.errorMessage ?? `must match ${pattern}`));
    if (schema.type !== 'integer') return text;
    if (!/^\d+$/.test(text) || Number(text) < minimum || Number(text) > maximum)
      throw new Error(`must be a whole number from ${minimum} to ${maximum}`);
    return Number(text);
  };
}

/** A switch's variable: on or off, in the words people write. */
function onOff(text: string): boolean {
  if (/^(1|true|yes|on)$/i.test(text.trim())) return true;
  if (/^(0|false|no|off)$/i.test(text.trim())) return false;
  throw new Error('must be on or off (true/false, yes/no, 1/0)');
}

/** A value read by `parse`; `where` names the flag or variable in the message of a value it cannot read. */
function read<T>(text: string, where: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (e) {
    throw new FlagError(`${where} ${(e as Error).message}.`);
  }
}

/** Why an argument is no flag of the table's: an unknown flag (and the one it most likely meant), or no flag. */
function refusal(rawName: string | undefined, arg: string, table: readonly Flag[]): FlagError {
  if (rawName?.startsWith('--')) {
    // A switch that turns something off is also known without its `no-`: `--hints` is near `--no-hints`.
    const names = new Map(table.flatMap((f) => [f.name, f.flag.slice(2)].map((n) => [n, f.flag] as const)));
    const near = names.get(closest(rawName.slice(2), [...names.keys()], 2) ?? '');
    return new FlagError(`unknown flag ${rawName.slice(0, 42)}${near ? ` (did you mean ${near}?)` : ''}.`);
  }
  if (rawName && /^-[A-Za-z]/.test(arg)) return new FlagError(`unknown flag ${rawName}.`);
  return new FlagError(`unexpected argument ${JSON.stringify(arg.slice(0, 40))}: mfa-sim takes only flags.`);
}

/** The options the arguments and the environment (a flag wins over its variable) give, or a FlagError saying why. */
export function parseFlags(args: readonly string[], env: NodeJS.ProcessEnv, table = FLAGS): CommandLine {
  const byName = new Map(table.map((f) => [f.flag.slice(2), f]));
  const options = Object.fromEntries(
    table.map((f) => [f.flag.slice(2), { type: f.value ? 'string' : 'boolean', ...(f.short && { short: f.short }) }]),
  ) as Record<string, { type: 'string' | 'boolean'; short?: string }>;
  // Not strict: each mistake gets its own message below, and a value may start with a dash (`--require-coverage -1`).
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const given = new Map<Flag, string[]>();
  for (const t of tokens) {
    const f = t.kind === 'option' ? byName.get(t.name) : undefined;
    if (t.kind !== 'option' || !f) throw refusal(t.kind === 'option' ? t.rawName : undefined, args[t.index], table);
    if (!f.value && t.value !== undefined) throw new FlagError(`${f.flag} takes no value.`);
    if (f.value && t.value === undefined) throw new FlagError(`${f.flag} needs a value: ${f.flag} ${f.value}.`);
    given.set(f, [...(given.get(f) ?? []), t.value ?? '']);
  }
  const out: Record<string, unknown> = {};
  for (const f of table) {
    const values = given.get(f);
    // An empty variable is as if unset (a switch's, of spaces too).
    const variable = f.env && (f.value ? env[f.env] : env[f.env]?.trim()) ? env[f.env] : undefined;
    const texts = values ?? (variable !== undefined ? [variable] : f.default !== undefined ? [f.default] : undefined);
    if (!texts) continue;
    const where = !values && variable !== undefined ? f.env! : f.flag;
    const list = f.list && texts.flatMap((t) => t.split(f.list!).map((v) => v.trim())).filter(Boolean);
    if (!f.value && values) out[f.key] = !f.negated;
    else out[f.key] = list ? list.map((t) => read(t, where, f.parse)) : read(texts[texts.length - 1], where, f.parse);
  }
  return out;
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

/** How the flag is written, with its short form and value: `-p, --port <port>`. */
export function flagUsage(f: Flag): string {
  return `${f.short ? `-${f.short}, ` : ''}${f.flag}${f.value ? ` ${f.value}` : ''}`;
}

/** The help text, at one width whatever the terminal: the same text everywhere, docs/command-line.md included. */
export function helpText(description: string, after: string, table = FLAGS, usage = 'mfa-sim [options]'): string {
  const column = Math.max(...table.map((f) => flagUsage(f).length)) + 4;
  const rows = table.map((f) => {
    const notes = [
      f.list && `repeatable, or several separated by "${f.list}"`,
      f.choices && `choices: ${f.choices.join(', ')}`,
      f.default !== undefined && `default: ${f.default}`,
      f.env && `env: ${f.env}${f.negated ? '=off' : ''}`,
    ].filter(Boolean);
    const text = `${f.description}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    return `  ${flagUsage(f).padEnd(column - 2)}${wrap(text, 100, column)}`;
  });
  return [`Usage: ${usage}`, '', wrap(description, 100, 0), '', 'Options:', ...rows, '', after, ''].join('\n');
}
