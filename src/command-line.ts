import type { Static, TSchema } from '@sinclair/typebox';
import { delimiter } from 'node:path';
import { SEVERITIES } from './doctor/finding-types.js';
import { FlagError } from './errors.js';
import { parseRequiredCodes } from './observers/coverage.js';
import { RunOptionsSchema, type StartOptions } from './run-options.js';
import { directoryProblem } from './scenario/directories.js';
import { ScenarioSchema } from './scenario/schema.js';
import { Type } from './typebox.js';

/**
 * What the command line takes, as one schema. The options it hands to `startSimulator` are the run options' and the
 * scenario keys' own declarations (type, bounds, choices, description, default), given here only the spelling of
 * their flag; the command line's own options (what it prints, watches and writes at exit) are declared here. The
 * flags, their environment variables (`MFA_SIM_` and the flag's name), the help and the table of
 * docs/command-line.md are all read from this schema (flags.ts).
 */

/** How an option is written on the command line, where the option's name and type do not say it. */
export interface Spelling {
  /** The long name without dashes, when it is not the option's key in kebab case (`scenario-dir` for scenarioDirs). */
  name?: string;
  short?: string;
  /** The value's placeholder, e.g. `<port>` (a switch, a boolean option, has none). */
  value?: string;
  /** `--no-<name>`: the switch sets false (its variable says on or off). */
  negated?: boolean;
  /** The command line's default, where it differs from the option's own (`schema.default`). */
  default?: string;
  /** Given again (or in its variable), the values add up, each text split at this separator. */
  list?: string;
  /** Turns the text into the option's value (throwing FlagError), where the option's type is not enough. */
  parse?: (text: string) => unknown;
  /** Prints something and exits: --help, --version, --codes... (no environment variable). */
  action?: boolean;
}

const SPELLING = Symbol('mfa-sim.flag');

/** An option's schema, with how the command line spells it (a copy: the schema it came from is left as it was). */
function spelled<T extends TSchema>(schema: T, spelling: Spelling): T {
  return { ...schema, [SPELLING]: spelling };
}

/** The spelling of an option of the command line's schema. */
export function spellingOf(schema: TSchema): Spelling {
  return (schema as { [SPELLING]?: Spelling })[SPELLING] ?? {};
}

const run = RunOptionsSchema.properties;
const scenario = ScenarioSchema.properties;

/** The options the command line hands to `startSimulator`, by the names `startSimulator` takes. */
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
  scenarioDirs: spelled(run.scenarioDirs, {
    name: 'scenario-dir',
    value: '<dir>',
    list: delimiter,
    parse: existingDirectory,
  }),
  // Each host name is checked with the other options at start, where the message names it by its place in the list.
  allowedHosts: spelled(run.allowedHosts, { value: '<names>', list: ',' }),
  controlToken: spelled(run.controlToken, { value: '<token>' }),
  upstream: spelled(run.upstream, { value: '<url>' }),
  upstreamCa: spelled(run.upstreamCa, { value: '<file.pem>' }),
  upstreamTimeout: spelled(run.upstreamTimeout, { value: '<ms>' }),
  record: spelled(run.record, { value: '<dir>' }),
});

const action = (description: string, short?: string) =>
  spelled(Type.Optional(Type.Boolean({ description })), { short, action: true });
const file = (value: string, description: string) => spelled(Type.Optional(Type.String({ description })), { value });

/** What the command line does itself: its log, and the files and gates at exit. */
const CommandFlags = Type.Object({
  watch: spelled(
    Type.Optional(
      Type.Boolean({ description: 'reload the scenario file when it changes (a broken edit keeps the last good one)' }),
    ),
    { short: 'w' },
  ),
  quiet: spelled(Type.Optional(Type.Boolean({ description: 'no log line per request' })), { short: 'q' }),
  log: spelled(
    Type.Optional(
      Type.Union([Type.Literal('text'), Type.Literal('json')], {
        default: 'text',
        description: 'text (one line per request) or json (one JSON object per line, by pino)',
      }),
    ),
    { value: '<format>' },
  ),
  coverageOut: file('<file>', 'at exit, write the status coverage (codes met and never met) to this JSON file'),
  requireCoverage: spelled(
    Type.Optional(
      Type.Array(Type.Integer(), {
        description:
          'at exit, fail (exit 3) unless these codes (comma-separated, or all) were each answered at least once',
      }),
    ),
    { value: '<codes|all>', parse: requiredCodes },
  ),
  report: file(
    '<file.md>',
    'at exit, append a Markdown report (coverage, client findings, hints) to this file, e.g. "$GITHUB_STEP_SUMMARY"',
  ),
  junit: file('<file.xml>', 'at exit, write JUnit XML: a test case per code of the contract and per client finding'),
  failOnFindings: spelled(
    Type.Optional(
      Type.Union(
        SEVERITIES.map((s) => Type.Literal(s)),
        { description: 'at exit, fail (exit 4) if the client doctor found anything this severe or worse' },
      ),
    ),
    { value: '<severity>' },
  ),
});

/** Everything the command line takes, in the order the help lists it. */
export const CommandLineSchema = Type.Object({
  version: action('print the version and exit', 'V'),
  ...SimulatorFlags.properties,
  ...CommandFlags.properties,
  listScenarios: action('list the shipped scenarios and exit'),
  codes: action('print the code table and exit'),
  schema: action('print the JSON Schema of scenario files and exit'),
  help: action('show this help', 'h'),
});

/** The options the command line read from its arguments and the environment. */
export type CommandLine = Static<typeof CommandLineSchema>;

/** An option's schema described for what it means to another command (the same type, bounds and variable). */
const retold = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description });

/**
 * What `mfa-sim probe` takes (src/proxy/probe.ts): the service to probe, the API user to sign as, and how mfa-sim
 * reads the service.
 */
export const ProbeCommandSchema = Type.Object({
  upstream: spelled(retold(run.upstream, 'the base URL of the service to probe'), { value: '<url>' }),
  upstreamCa: spelled(
    retold(
      run.upstreamCa,
      "trust this private CA (a PEM file) for the service's TLS certificate, besides the system's",
    ),
    {
      value: '<file.pem>',
    },
  ),
  upstreamTimeout: spelled(
    retold(run.upstreamTimeout, 'ms the service has to answer each step whole (default 10000)'),
    { value: '<ms>' },
  ),
  apiUser: spelled(retold(run.apiUser, 'the API user to sign as, 9 digits'), { value: '<id>' }),
  secret: spelled(retold(run.secret, "that API user's secret"), { value: '<secret>' }),
  token: SimulatorFlags.properties.token,
  strict: SimulatorFlags.properties.strict,
  responseStyle: SimulatorFlags.properties.responseStyle,
  help: action('show this help', 'h'),
});

/** The options `mfa-sim probe` read from its arguments and the environment. */
export type ProbeCommandLine = Static<typeof ProbeCommandSchema>;

/** The keys of the command line's options that are options of `startSimulator`, by the same names. */
export const START_KEYS: readonly (keyof StartOptions & keyof CommandLine)[] = Object.keys(
  SimulatorFlags.properties,
) as (keyof typeof SimulatorFlags.properties)[];

/** The options of `startSimulator` the command line was given. */
export function startOptions(o: CommandLine): StartOptions {
  const out: Record<string, unknown> = {};
  for (const key of START_KEYS) if (o[key] !== undefined) out[key] = o[key];
  return out;
}

function existingDirectory(text: string): string {
  const problem = directoryProblem(text);
  if (problem) throw new FlagError(`${text.slice(0, 200)}: ${problem}`);
  return text;
}

function requiredCodes(text: string): number[] {
  try {
    return parseRequiredCodes(text);
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
}
