import type { NextFunction, Request, Response } from 'express';
import { isoTime } from '../contract/response.js';
import type { Scope, Severity } from '../doctor/finding-types.js';
import { reportFormat, type ReportFormat } from '../doctor/report.js';
import { ControlError, ScenarioError } from '../errors.js';
import { parseRequiredCodes } from '../observers/coverage.js';
import type { CompiledScenario } from '../scenario/compile.js';
import type { Simulator } from '../simulator.js';
import type { Challenge } from '../world/challenges.js';
import { isGlob } from '../world/glob.js';

/**
 * What the control API's routes (control-routes.ts) share: the views they answer with (challenges, the clock, the
 * scenario), how they read a query, and control errors as JSON.
 */

/** A challenge as the control API shows it. */
export function challengeView(c: Challenge) {
  return {
    id: c.id,
    apiUser: c.apiUser,
    user: c.user,
    state: c.state,
    challengeType: c.challengeType,
    expiry: c.expiry,
    createdAt: isoTime(c.createdAt),
    expiresAt: isoTime(c.expiresAt),
    autoVerifyAt: c.autoVerifyAt === undefined ? undefined : isoTime(c.autoVerifyAt),
    endedAt: c.endedAt === undefined ? undefined : isoTime(c.endedAt),
    endedBy: c.endedBy,
    trail: c.trail.map((step) => ({ state: step.state, at: isoTime(step.at), by: step.by })),
    authCode: c.authCode,
    ipAddress: c.ipAddress,
  };
}

/** A challenge as the control API shows it. */
export type ChallengeView = ReturnType<typeof challengeView>;

/**
 * A view as the control API's JSON shows it: no string holds a secret the simulator knows (for what is not sent
 * through Express's JSON replacer, such as the event stream).
 */
export function redacted<T>(sim: Simulator, view: T): T {
  return JSON.parse(
    JSON.stringify(view, (_key, value: unknown) => (typeof value === 'string' ? sim.redact(value) : value)),
  ) as T;
}

/**
 * A scenario made active, as the dashboard's Scenario card and explorer show it: its name and description, the API
 * users a request may be signed as, and the accounts it lists by name (the explorer suggests their e-mails).
 */
export function scenarioCardView(sim: Simulator, sc: CompiledScenario) {
  return {
    name: sc.name,
    description: sc.description,
    apiUsers: sim.world.apiUsersOf(sc).map((u) => u.id),
    accounts: Object.keys(sc.input.accounts ?? {}).filter((k) => !isGlob(k)),
  };
}

/** The simulator's clock as the control API shows it. */
export function clockView(sim: Simulator) {
  const now = sim.now();
  return { now, iso: isoTime(now), frozen: sim.clock.frozen, offsetMs: sim.scenario.offset };
}

/** The simulator's clock as the control API shows it. */
export type ClockView = ReturnType<typeof clockView>;

/**
 * A query's parameters, each read as one text. A parameter given twice (`?apiUser=1&apiUser=2`) is refused: read as
 * a list it would match no filter and silently answer everything.
 */
export function queryOf(req: Request): (name: string) => string | undefined {
  const query = req.query as Record<string, unknown>;
  return (name) => {
    if (!Object.hasOwn(query, name)) return undefined;
    const value = query[name];
    if (typeof value !== 'string')
      throw new ControlError(
        400,
        `${name} is given more than once: give it once (a comma-separated list where it takes several)`,
      );
    return value;
  };
}

/** The `scope` a view was asked for: the whole run (default) or the current scenario; checked by the simulator. */
export function scopeOf(q: (name: string) => string | undefined): Scope {
  return (q('scope') ?? 'run') as Scope;
}

/** `GET /__sim/report`'s query: `format` (markdown or junit), `require` (codes or all) and `failOn` (a severity). */
export function reportQuery(q: (name: string) => string | undefined): {
  format: ReportFormat;
  options: { required?: number[]; failOn?: Severity };
} {
  const format = reportFormat(q('format') ?? 'markdown');
  // failOn is checked with the other gates by runSummary.
  const failOn = q('failOn');
  let required: number[] | undefined;
  const require = q('require');
  if (require !== undefined) {
    try {
      required = parseRequiredCodes(require);
    } catch (e) {
      throw new ControlError(400, `require ${(e as Error).message}`);
    }
  }
  return { format, options: { required, failOn: failOn as Severity | undefined } };
}

/**
 * Control errors as JSON with their status; a refused scenario with its issues; a body that is not JSON or too large.
 */
export function controlErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof ControlError) return void res.status(err.status).json({ error: err.message });
  if (err instanceof ScenarioError) return void res.status(400).json({ error: err.message, issues: err.issues });
  const e = err as { status?: number; type?: string; message?: string; limit?: number; body?: unknown };
  if (e.type === 'entity.parse.failed') return void res.status(400).json({ error: bodyParseError(e) });
  if (e.type === 'entity.too.large') return void res.status(413).json({ error: tooLarge(e.limit) });
  // Any other refusal of the request itself (an unsupported charset or encoding, a path that does not decode): its
  // status and reason.
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500)
    return void res.status(e.status).json({ error: e.message ?? 'bad request' });
  next(err);
}

/**
 * Before a body's parser: a body declared longer than the route's limit is refused at once, and the connection closed
 * since the body is not read. (The parser would answer only once the whole body came: a client that declares 2 MB and
 * sends nothing held the request until its timeout.)
 */
export function declaredWithin(limit: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!(Number(req.headers['content-length']) > limit)) return next();
    res.setHeader('connection', 'close');
    res.status(413).json({ error: tooLarge(limit) });
  };
}

const tooLarge = (limit: number | undefined) => `the body is larger than ${limit ?? 'the limit of'} bytes`;

/**
 * After the JSON parser of a route whose body is an object: an array is JSON of the wrong kind too (Express lets it
 * through, and `[1].at` would be read as the route's `at`), refused in the same words as `null` or `5`.
 */
export function objectBodyOnly(req: Request, res: Response, next: NextFunction): void {
  if (Array.isArray(req.body)) return void res.status(400).json({ error: notAnObject('an array') });
  next();
}

/** A JSON body of the wrong kind, in one wording whichever kind it is. */
const notAnObject = (kind: string) => `the body must be a JSON object, not ${kind}`;

/**
 * Why a JSON body was refused. Express reads these bodies strictly, so `null`, `5` or `"time"` are refused with
 * JSON.parse's words for the first character ("not valid JSON"), which is untrue of them: they are JSON, of the
 * wrong kind.
 */
function bodyParseError(e: { message?: string; body?: unknown }): string {
  if (typeof e.body === 'string') {
    try {
      const value: unknown = JSON.parse(e.body);
      return notAnObject(value === null ? 'null' : typeof value);
    } catch {
      // Not JSON at all: the parser's own reason, below.
    }
  }
  return `the body is not JSON: ${e.message}`;
}
