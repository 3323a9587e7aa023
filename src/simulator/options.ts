import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_REPLAY_CAP } from '../auth/replay.js';
import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import type { ScenarioInput } from '../scenario/schema.js';
import { OptionsError, type ScenarioIssue } from '../contract/errors.js';
import { DEFAULT_JOURNAL_SIZE } from '../run/journal.js';
import { shapeChecker } from '../scenario/validate.js';
import { DEFAULT_MAX_CHALLENGES } from '../world/challenges.js';
import { DEFAULT_API_USER } from '../world/world.js';
import { MAX_HOST_NAME } from './allowed-hosts.js';

/** One name `/__sim/` may be addressed by (a leading dot: a domain); a URL, port or wildcard would never match. */
const ALLOWED_HOST = '^\\s*(\\.?[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.?|\\[?[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\\]?)\\s*$';

/** The address a simulator listens on unless told another. */
export const DEFAULT_HOST = '127.0.0.1';
/** Request bodies larger than this many bytes get -413 unless `bodyLimit` says otherwise. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;
/** Headers and body must arrive within this many ms (slow clients are cut off). */
export const HEADERS_TIMEOUT_MS = 20_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** Proxy mode: how long the upstream has to answer a forwarded request whole, connecting included. */
export const UPSTREAM_TIMEOUT_MS = 10_000;

/** A file, folder, token or secret: a text of at most 4,096 characters. */
const text = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description }));
/** A whole number within bounds, with its default when it has one. */
const whole = (minimum: number, maximum: number, description: string, fallback?: number) =>
  Type.Optional(Type.Integer({ minimum, maximum, default: fallback, description }));

/**
 * How a simulator runs, beside the scenario keys it also takes: the in-process options and, through them, the command
 * line's flags and environment variables (command-line.ts), the help, and the tables of docs/in-process-api.md and
 * docs/command-line.md.
 */
const SimulatorRunSchema = Type.Object({
  scenario: text('a shipped scenario by name, or a scenario file'),
  apiUser: Type.Optional(
    Type.String({
      pattern: API_USER_ID.source,
      errorMessage: API_USER_ID_RULE,
      description: `the default API user's id, 9 digits (default ${DEFAULT_API_USER})`,
    }),
  ),
  secret: text("the default API user's secret (default: a random one, printed at start)"),
  seed: whole(0, 4_294_967_295, 'makes the simulated world the same from run to run (never a secret or token)'),
  publicUrl: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/?#]+(/[^\\s]*)?$',
      errorMessage: 'must be an http:// or https:// URL',
      description: 'the base URL of `moreInfo` and `challengeQRcodeUrl` (default: the URL listened on)',
    }),
  ),
  bodyLimit: whole(1, 16 * 1024 * 1024, 'request bodies larger than this many bytes get -413', DEFAULT_BODY_LIMIT),
  journalSize: whole(1, 100_000, 'entries the request journal keeps', DEFAULT_JOURNAL_SIZE),
  maxChallenges: whole(0, 1_000_000, 'challenges kept before the oldest is forgotten', DEFAULT_MAX_CHALLENGES),
  replayCap: whole(
    1,
    100_000_000,
    'replay entries kept per API user before the oldest are forgotten early',
    DEFAULT_REPLAY_CAP,
  ),
  controlToken: text('token the control API requires (default: none on loopback, a random one elsewhere)'),
  scenarioDirs: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      maxItems: 100,
      description:
        'directories the control API may load scenario files from (default: the folder of the scenario, when that is a file)',
    }),
  ),
  allowedHosts: Type.Optional(
    Type.Array(
      Type.String({
        maxLength: MAX_HOST_NAME,
        pattern: ALLOWED_HOST,
        errorMessage: 'must be a host name, or .domain for the domain and its subdomains: no scheme, port, path or `*`',
      }),
      {
        maxItems: 100,
        description:
          'host names the control API and dashboard answer besides localhost and IP addresses (.example.com allows its subdomains)',
      },
    ),
  ),
});

/** Where and how a simulator started with `startSimulator` listens. */
const ListenSchema = Type.Object({
  port: whole(0, 65_535, 'port to listen on; 0 picks a free one', 0),
  host: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, default: DEFAULT_HOST, description: 'address to listen on' }),
  ),
  headersTimeout: whole(
    1,
    3_600_000,
    'ms for the header block to arrive, else -408 and the connection is closed',
    HEADERS_TIMEOUT_MS,
  ),
  requestTimeout: whole(1, 3_600_000, 'ms for the whole request to arrive, else -408', REQUEST_TIMEOUT_MS),
  store: Type.Optional(
    Type.String({
      maxLength: 2048,
      pattern: '^rediss?://[^\\s]+$',
      errorMessage: 'must be a redis:// (or rediss://) URL, e.g. redis://localhost:6379/0',
      description:
        'share the simulated service with other replicas on this Redis (redis://host:port/db): every replica answers as one',
    }),
  ),
});

/** Proxy mode (docs/proxy.md, src/proxy/): the operator's upstream, how it is reached, the recording of its answers. */
const ProxySchema = Type.Object({
  upstream: Type.Optional(
    Type.String({
      maxLength: 2048,
      pattern: '^https?://[^\\s/?#@]+(/[^\\s?#]*)?$',
      errorMessage: 'must be an http:// or https:// base URL, without user name, password, query or fragment',
      description:
        'proxy mode: forward API requests to this base URL unchanged, judge its answers against the contract and, with the secret, against mfa-sim',
    }),
  ),
  upstreamCa: text(
    "proxy mode: trust this private CA (a PEM file) for the upstream's TLS certificate, besides the system's",
  ),
  // No default in the schema: the command line would hand it to every simulator, proxy or not.
  upstreamTimeout: whole(
    1,
    600_000,
    `proxy mode: ms the upstream has to answer a request whole, else the client gets -5000 (default ${UPSTREAM_TIMEOUT_MS})`,
  ),
  record: text(
    "proxy mode: write the upstream's answers to this folder as a replayable scenario and the raw exchanges, secrets removed",
  ),
});

/** Every run option: the simulator's, how it listens, and proxy mode's. */
export const RunOptionsSchema = Type.Object(
  { ...SimulatorRunSchema.properties, ...ListenSchema.properties, ...ProxySchema.properties },
  { description: 'how a simulator runs' },
);

/** Options of a simulator: any scenario key (they override the scenario's own), plus how it runs. */
export type SimulatorOptions = Partial<ScenarioInput> & Static<typeof SimulatorRunSchema>;

/** Options of `startSimulator`: a simulator's, plus where and how it listens, and proxy mode's. */
export type StartOptions = SimulatorOptions & Static<typeof ListenSchema> & Static<typeof ProxySchema>;

/** Keys of the options that are not scenario keys. */
export const RUN_KEYS: readonly string[] = Object.keys(RunOptionsSchema.properties);

let check: ((value: unknown) => ScenarioIssue[]) | undefined;

/** The options of a simulator (an object, or a scenario's name or file), run options checked; else an OptionsError. */
export function runOptions(options: SimulatorOptions | string): SimulatorOptions {
  const opts = typeof options === 'string' ? { scenario: options } : options;
  if (typeof opts !== 'object' || opts === null)
    throw new OptionsError([{ path: [], message: 'must be an object of options, or a scenario name or file' }]);
  const all = opts as Record<string, unknown>;
  const run = Object.fromEntries(
    RUN_KEYS.filter((k) => Object.hasOwn(all, k) && all[k] !== undefined).map((k) => [k, all[k]]),
  );
  check ??= shapeChecker(RunOptionsSchema);
  const issues = check(run);
  if (issues.length) throw new OptionsError(issues);
  // A CA or a recording folder means nothing without an upstream: given alone, it is a mistake to point out.
  const stray =
    run.upstream === undefined ? (['upstreamCa', 'record'] as const).find((k) => run[k] !== undefined) : undefined;
  if (stray) throw new OptionsError([{ path: [stray], message: 'is an option of proxy mode: give upstream too' }]);
  if (run.store !== undefined) {
    // Every replica must make the same world: the same secret, and ids that no seed makes guessable.
    const clash =
      run.upstream !== undefined
        ? 'cannot be given with upstream: proxy mode keeps its state in one process'
        : run.seed !== undefined
          ? "cannot be given with seed: replicas draw their random values from the store's changes"
          : run.secret === undefined
            ? "needs secret: every replica must sign with the same default API user's secret"
            : undefined;
    if (clash) throw new OptionsError([{ path: ['store'], message: clash }]);
  }
  return opts;
}
