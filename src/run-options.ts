import { Type } from './typebox.js';
import type { ScenarioInput } from './scenario/schema.js';
import { ScenarioError } from './scenario/errors.js';
import { shapeChecker } from './scenario/validate.js';

/**
 * One name `/__sim/` may be addressed by (allowed-hosts.ts): a host name or IP address, a leading dot for a domain and
 * its subdomains. A URL, a port or a wildcard (`*.example.com`) would be kept and never met: refused where given.
 */
const ALLOWED_HOST = '^\\s*(\\.?[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.?|\\[?[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\\]?)\\s*$';

/**
 * How a simulator runs (beside the scenario keys it also takes): the in-process options and, through them, the
 * command line's flags and environment variables. One schema bounds them all where they enter, so a flag such as
 * `--journal-size` or an option such as `requestTimeout: 1e300` gets a clear message naming it, never a RangeError
 * from deep inside Node or an array a billion entries long.
 */
export const RunOptionsSchema = Type.Object(
  {
    scenario: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'a shipped scenario by name, or a scenario file' })),
    apiUser: Type.Optional(Type.String({ pattern: '^\\d{9}$', errorMessage: 'must be exactly 9 digits', description: "the default API user's id" })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "the default API user's secret" })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'makes the simulated world the same from run to run (never a secret or token)' })),
    publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s]*)?$', errorMessage: 'must be an http:// or https:// URL', description: 'the base URL answers link to' })),
    bodyLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 16 * 1024 * 1024, description: 'request bodies larger than this many bytes get -413' })),
    journalSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'entries the request journal keeps' })),
    maxChallenges: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'challenges kept before the oldest is forgotten' })),
    replayCap: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'replay entries kept per API user' })),
    controlToken: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'a token the control API then requires' })),
    scenarioDirs: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 100, description: 'directories the control API may read scenario files from' })),
    allowedHosts: Type.Optional(Type.Array(Type.String({ maxLength: 253, pattern: ALLOWED_HOST, errorMessage: 'must be a host name, or .domain for the domain and its subdomains: no scheme, port, path or `*`' }), { maxItems: 100, description: 'host names /__sim/ answers besides localhost and IP addresses' })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535, description: 'port to listen on; 0 picks a free one' })),
    host: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'address to listen on' })),
    headersTimeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000, description: 'ms for the header block to arrive' })),
    requestTimeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000, description: 'ms for the whole request to arrive' })),
  },
  { description: 'how a simulator runs' },
);

/** Options of a simulator: any scenario key (decisions §9), plus how to run it. */
export interface SimulatorOptions extends Partial<ScenarioInput> {
  /** A shipped scenario's name or a scenario file, loaded first; the scenario keys given here override its own. */
  scenario?: string;
  /** The default API user's id (when the scenario lists none, or in addition to those it lists). Default 123456789. */
  apiUser?: string;
  /** The default API user's secret. Default: a fresh random one (see `simulator.apiUser.secret`). */
  secret?: string;
  /** Makes the simulated world (challenge ids, auth codes, names) the same from run to run; never the generated secret or the control token. */
  seed?: number;
  /** The base URL that `moreInfo` and `challengeQRcodeUrl` use; default: the URL the simulator listens on. */
  publicUrl?: string;
  /** Request bodies larger than this many bytes get -413. Default 65536. */
  bodyLimit?: number;
  /** Size of the request journal ring. Default 1000. */
  journalSize?: number;
  /** Challenges kept before the oldest is forgotten. Default 10000. */
  maxChallenges?: number;
  /** Replay entries kept per API user before the oldest are forgotten early. Default 2,000,000. */
  replayCap?: number;
  /** A token the control API (`/__sim/`) then requires. Default: none on loopback; a random one (printed) elsewhere. */
  controlToken?: string;
  /**
   * Directories the control API may read scenario files from (`{ "file": ... }`, or `{ "name": ... }` for
   * `<name>.yaml` there). Default: the folder of `scenario` when that is a file; else none.
   */
  scenarioDirs?: string[];
  /**
   * Host names the control API, the dashboard and its event stream answer besides localhost, `*.localhost`, IP
   * addresses and the address listened on (DNS rebinding protection). A name starting with a dot allows its subdomains.
   */
  allowedHosts?: string[];
}

/** Request bodies larger than this many bytes get -413 unless `bodyLimit` says otherwise. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Keys of the options that are not scenario keys. */
export const RUN_KEYS: readonly string[] = Object.keys(RunOptionsSchema.properties);

let check: ((value: unknown) => import('./scenario/errors.js').ScenarioIssue[]) | undefined;

/**
 * The options of a simulator, given as an object or as a scenario's name or file, with their run options checked
 * (scenario keys are checked by the scenario's compilation); anything wrong throws a ScenarioError naming it.
 */
export function runOptions(options: SimulatorOptions | string): SimulatorOptions {
  const opts = typeof options === 'string' ? { scenario: options } : options;
  if (typeof opts !== 'object' || opts === null) throw new ScenarioError('options', [{ path: [], message: 'must be an object of options, or a scenario name or file' }]);
  checkRunOptions(opts as Record<string, unknown>);
  return opts;
}

function checkRunOptions(options: Record<string, unknown>): void {
  const run: Record<string, unknown> = {};
  for (const k of RUN_KEYS) if (Object.hasOwn(options, k) && options[k] !== undefined) run[k] = options[k];
  check ??= shapeChecker(RunOptionsSchema);
  const issues = check(run);
  if (issues.length) throw new ScenarioError('options', issues);
}
