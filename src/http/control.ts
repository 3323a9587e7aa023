import type { TObject } from '@sinclair/typebox';
import { Errors, ValueErrorType } from '@sinclair/typebox/errors';
import type { NextFunction, Request, Response, Router } from 'express';
import { version } from '../../package.json';
import { isObject } from '../contract/response.js';
import { isoTime } from '../contract/response.js';
import type { Scope, Severity } from '../run/finding-types.js';
import { reportFormat, type ReportFormat } from '../run/report.js';
import { ControlError, ScenarioError } from '../contract/errors.js';
import { parseRequiredCodes } from '../run/coverage.js';
import type { CompiledScenario } from '../scenario/compile.js';
import type { Simulator } from '../simulator/simulator.js';
import type { Challenge } from '../world/challenges.js';
import { isGlob } from '../scenario/glob.js';
import { MAX_SCENARIO_BYTES } from '../scenario/files.js';
import { caughtUp, expressLib, routerOf } from './routes.js';
import { CONTROL_HEADER, requireControl } from './control-access.js';
import { ErrorAnswer, json, scenarioBody, type ControlRoute } from './control-schemas.js';

/**
 * The control API made from its table (control-routes.ts): its router (the guards, each body read and checked against
 * its schema, the errors as JSON), its OpenAPI document, and what the routes share: their views and queries.
 */

/** A challenge as the control API shows it (`GET /__sim/challenges`). */
export type ChallengeView = ReturnType<typeof challengeView>;
export function challengeView(c: Challenge) {
  const iso = (t: number | undefined) => (t === undefined ? undefined : isoTime(t));
  return {
    id: c.id,
    apiUser: c.apiUser,
    user: c.user,
    state: c.state,
    challengeType: c.challengeType,
    expiry: c.expiry,
    createdAt: isoTime(c.createdAt),
    expiresAt: isoTime(c.expiresAt),
    autoVerifyAt: iso(c.autoVerifyAt),
    endedAt: iso(c.endedAt),
    endedBy: c.endedBy,
    trail: c.trail.map((step) => ({
      state: step.state,
      at: isoTime(step.at),
      by: step.by,
      ...(step.pressed && { pressed: step.pressed }),
    })),
    authCode: c.authCode,
    ipAddress: c.ipAddress,
  };
}

/** The simulator's clock as the control API shows it (`GET /__sim/clock`). */
export type ClockView = ReturnType<typeof clockView>;
export function clockView(sim: Simulator) {
  const now = sim.now();
  return { now, iso: isoTime(now), frozen: sim.clock.frozen, offsetMs: sim.scenario.offset };
}

/** A claimed API user's clock as the control API shows it (`GET /__sim/api-users/{apiUser}/clock`). */
export function apiUserClockView(sim: Simulator, apiUser: string): ClockView {
  const { now, frozen, offset } = sim.apiUserClocks.clock(apiUser);
  return { now, iso: isoTime(now), frozen, offsetMs: offset };
}

/** A scenario made active, as the dashboard shows it: its API users, and the accounts it names (e-mails to suggest). */
export function scenarioCardView(sim: Simulator, sc: CompiledScenario) {
  return {
    name: sc.name,
    description: sc.description,
    apiUsers: sim.world.apiUsersOf(sc).map((u) => u.id),
    accounts: Object.keys(sc.input.accounts ?? {}).filter((k) => !isGlob(k)),
    people: peopleLines(sc),
    magicAddresses: sc.input.magicAddresses ?? true,
  };
}

/** The dashboard lists at most this many scripted people (a scenario may list many). */
const SHOWN_PEOPLE = 30;

/** What each person a scenario scripts does (`people:`), a line each: `bob@example.com: approve after 5s`. */
function peopleLines(sc: CompiledScenario): string[] {
  const entries = Object.entries(sc.input.people ?? {});
  const press = (p: Record<string, unknown>) =>
    Object.entries(p)
      .map(([action, after]) => `${action} after ${String(after)}`)
      .join('');
  const lines = entries
    .slice(0, SHOWN_PEOPLE)
    .map(([who, script]) => `${who}: ${typeof script === 'string' ? script : script.map(press).join(', then ')}`);
  const more = entries.length - SHOWN_PEOPLE;
  return more > 0 ? [...lines, `… and ${more} more`] : lines;
}

/** A view with no secret in any string, for what is not sent through the app's JSON (the event stream). */
export function redacted<T>(sim: Simulator, view: T): T {
  return JSON.parse(JSON.stringify(view, (_k, v: unknown) => (typeof v === 'string' ? sim.redact(v) : v))) as T;
}

/**
 * A query's parameters, each read as one text. One given twice (`?apiUser=1&apiUser=2`) is refused: read as a list
 * it would match no filter and silently answer everything.
 */
export function queryOf(req: Request): (name: string) => string | undefined {
  const query = req.query as Record<string, unknown>;
  return (name) => {
    if (!Object.hasOwn(query, name)) return undefined;
    const value = query[name];
    if (typeof value === 'string') return value;
    throw new ControlError(
      400,
      `${name} is given more than once: give it once (a comma-separated list where it takes several)`,
    );
  };
}

/** The `scope` asked for: the whole run (default) or the current scenario; the simulator checks it. */
export const scopeOf = (q: (name: string) => string | undefined) => (q('scope') ?? 'run') as Scope;

/** `format` (markdown or junit), `require` (codes or all) and `failOn` (a severity, checked by the simulator). */
export function reportQuery(q: (name: string) => string | undefined) {
  const format: ReportFormat = reportFormat(q('format') ?? 'markdown');
  const require = q('require');
  let required: number[] | undefined;
  try {
    required = require === undefined ? undefined : parseRequiredCodes(require);
  } catch (e) {
    throw new ControlError(400, `require ${(e as Error).message}`);
  }
  return { format, options: { required, failOn: q('failOn') as Severity | undefined } };
}

/** A scenario sent to the control API is at most as long as a scenario file (1 MiB); any other body, 16 KiB. */
const JSON_BODY_LIMIT = 16 * 1024;
const SCENARIO_TEXT = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'];

/** The control API's router for one simulator: each route behind the token guard, its body read and checked. */
export function controlRouter(sim: Simulator, routes: readonly ControlRoute[]): Router {
  const guard = requireControl(() => sim.secrets.controlToken);
  const express = expressLib();
  const router = routerOf(
    routes.map(({ method, path, open, body, handler }) => {
      const scenario = typeof body === 'string';
      const limit = scenario ? MAX_SCENARIO_BYTES : JSON_BODY_LIMIT;
      // A scenario comes as a JSON object or as text of a text type; any other body is a JSON object of its schema.
      const read = !body
        ? []
        : [
            declaredWithin(limit),
            express.json({ limit, strict: false }),
            ...(scenario ? [express.text({ type: SCENARIO_TEXT, limit })] : []),
            checkBody(scenario ? undefined : body),
          ];
      return { method, path, handlers: [...(open ? [] : [guard, caughtUp(sim)]), ...read, handler(sim)] };
    }),
    'this control route',
  );
  router.use('/__sim', controlErrors);
  return router;
}

/**
 * Checks a route's body before its handler: a JSON body is an object, and meets the route's schema; else 400 in the
 * words of the schema's `errorMessage`. No body is `{}`.
 */
function checkBody(schema?: TObject) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    if (req.is('application/json') && !isObject(body)) {
      const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body;
      return void res.status(400).json({ error: `the body must be a JSON object, not ${kind}` });
    }
    if (!schema) return next();
    req.body = isObject(body) ? body : {};
    const e = Errors(schema, req.body).First();
    if (!e) return next();
    const key = e.path.split('/')[1];
    const missing = e.type === ValueErrorType.ObjectRequiredProperty;
    res.status(400).json({ error: String((missing ? schema : schema.properties[key]).errorMessage) });
  };
}

/**
 * Before a body's parser: a body declared longer than the route's limit is refused at once, and the connection closed
 * (the parser would wait for the whole body: a client that declares 2 MB and sends nothing held the request).
 */
function declaredWithin(limit: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!(Number(req.headers['content-length']) > limit)) return next();
    res.setHeader('connection', 'close');
    res.status(413).json({ error: tooLarge(limit) });
  };
}

const tooLarge = (limit: number | undefined) => `the body is larger than ${limit ?? 'the limit of'} bytes`;

/** Control errors as JSON with their status; a refused scenario with its issues; a body not JSON or too large. */
function controlErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof ControlError) return void res.status(err.status).json({ error: err.message });
  if (err instanceof ScenarioError) return void res.status(400).json({ error: err.message, issues: err.issues });
  const e = err as { status?: number; type?: string; message?: string; limit?: number };
  if (e.type === 'entity.parse.failed')
    return void res.status(400).json({ error: `the body is not JSON: ${e.message}` });
  if (e.type === 'entity.too.large') return void res.status(413).json({ error: tooLarge(e.limit) });
  // Any other refusal of the request itself (an unsupported charset or encoding): its status and reason.
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500)
    return void res.status(e.status).json({ error: e.message ?? 'bad request' });
  next(err);
}

/** The errors a route may answer, by status: one description each, the same JSON shape. */
const ERRORS: Record<number, string> = {
  400: 'a value, a scenario or a file that cannot be used',
  401: 'the control token is needed',
  403: 'a Host that does not name this machine, or a change sent by a page of another site',
  404: 'no such challenge, or no such claimed API user',
  409: 'the challenge is no longer waiting',
  413: 'the body is larger than 1 MiB',
  503: 'too many event streams',
};

/** The OpenAPI 3.1 document of the control API (`/__sim/openapi.json`) made from its table, for this base URL. */
export function controlOpenApiDocument(routes: readonly ControlRoute[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const statuses = [...(route.open ? [403] : [401, 403]), ...(route.errors ?? [])].sort((a, b) => a - b);
    const body = route.body;
    const requestBody =
      typeof body === 'string'
        ? scenarioBody(body === 'scenario')
        : body && { required: (body.required?.length ?? 0) > 0, content: { 'application/json': { schema: body } } };
    (paths[route.path.replace(/:(\w+)/g, '{$1}')] ??= {})[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.open ? { security: [{}] } : {}),
      ...(route.parameters ? { parameters: route.parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: {
        ...route.answers,
        ...Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }])),
      },
    };
  }
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'mfa-sim control API',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Drives a running mfa-sim from a test: scenarios, bindings, the world, challenges, the clock, the journal and coverage. Answers only a Host naming the machine it runs on (or one given with --allowed-hosts); beyond loopback it needs its token. Errors are `{error, issues?}` with the status given.',
    },
    servers: [{ url: serverUrl }],
    // The token is needed only beyond loopback: a route may be called with it or without.
    security: [{}, { controlToken: [] }],
    paths,
    components: {
      securitySchemes: {
        controlToken: {
          type: 'apiKey',
          in: 'header',
          name: CONTROL_HEADER,
          description: 'needed when the simulator listens beyond loopback',
        },
      },
      responses: Object.fromEntries(Object.entries(ERRORS).map(([s, d]) => [`Error${s}`, json(ErrorAnswer, d)])),
    },
  };
  // A body's errorMessage is the simulator's 400, not JSON Schema's (as in the published scenario schema).
  return JSON.parse(JSON.stringify(doc, (k, v: unknown) => (k === 'errorMessage' ? undefined : v))) as typeof doc;
}
