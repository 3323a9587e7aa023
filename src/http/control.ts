import type { Router, NextFunction, Request, Response } from 'express';
import { isoTime } from '../contract/response.js';
import { ControlError } from '../errors.js';
import { eventStream } from '../observers/event-stream.js';
import { controlSource } from '../scenario/control-source.js';
import { controlOpenApiDocument } from './control-openapi.js';
import { FileRefused } from '../scenario/directories.js';
import { ScenarioError } from '../scenario/errors.js';
import type { Simulator } from '../simulator.js';
import type { Challenge } from '../world/challenges.js';
import { requireControl } from './control-access.js';
import type { Severity } from '../doctor/findings.js';
import { renderReport, reportFormat, type ReportFormat } from '../doctor/report.js';
import { parseRequiredCodes } from '../observers/coverage.js';
import { expressLib } from './express.js';
import { jsonText } from '../output/json.js';

/**
 * The control API under `/__sim/`: one route per operation of the simulator facade, the views it answers with
 * (challenges, journal entries, the clock), and control errors as JSON.
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
    authCode: c.authCode,
    ipAddress: c.ipAddress,
  };
}

function clockView(sim: Simulator) {
  const now = sim.now();
  return { now, iso: isoTime(now), frozen: sim.clock.frozen, offsetMs: sim.scenario.offset };
}

/**
 * The control API under `/__sim/`: scenarios, bindings, the world, challenges, the clock, the journal and
 * coverage, as JSON. Each route is one method of the Simulator.
 */
export function controlRouter(sim: Simulator): Router {
  const r = expressLib().Router();
  const guard = requireControl(() => sim.controlToken);
  const source = (req: Request) => controlSource(req.body, sim.scenarioDirectories, (v, max) => sim.echo(v, max));
  const body = [expressLib().json({ limit: '1mb', strict: false }), expressLib().text({ type: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'], limit: '1mb' })];

  // The description of these routes needs no token, as the simulated API's own at /openapi.json.
  r.get('/__sim/openapi.json', (req, res) => void res.type('json').send(jsonText(controlOpenApiDocument(sim.links.base(req.headers.host)))));
  r.get('/__sim/scenarios', guard, (_req, res) => void res.json(sim.scenarios()));
  r.post('/__sim/scenario', guard, ...body, async (req, res) => {
    const sc = sim.loadScenario(await source(req));
    res.json({ active: sc.name, description: sc.description });
  });
  r.put('/__sim/bindings/:apiUser', guard, ...body, async (req, res) => {
    const sc = sim.bindScenario(String(req.params.apiUser), await source(req));
    res.json({ apiUser: req.params.apiUser, scenario: sc.name });
  });
  r.delete('/__sim/bindings/:apiUser', guard, (req, res) => {
    res.json({ apiUser: req.params.apiUser, removed: sim.unbindScenario(String(req.params.apiUser)) });
  });
  r.post('/__sim/reset', guard, (_req, res) => {
    sim.reset();
    res.json({ reset: true, scenario: sim.scenario.name, clock: clockView(sim) });
  });

  r.get('/__sim/challenges', guard, (_req, res) => void res.json(sim.listChallenges().map(challengeView)));
  r.post('/__sim/challenges/:id/approve', guard, expressLib().json({ limit: '16kb' }), (req, res) => {
    const authCode = (req.body as { authCode?: unknown } | undefined)?.authCode;
    res.json(challengeView(sim.approve(String(req.params.id), authCode as string | undefined)));
  });
  r.post('/__sim/challenges/:id/deny', guard, (req, res) => void res.json(challengeView(sim.deny(String(req.params.id)))));
  r.post('/__sim/challenges/:id/expire', guard, (req, res) => void res.json(challengeView(sim.expire(String(req.params.id)))));

  r.get('/__sim/clock', guard, (_req, res) => void res.json(clockView(sim)));
  r.post('/__sim/clock/freeze', guard, expressLib().json({ limit: '16kb' }), (req, res) => {
    sim.freeze((req.body as { at?: number | string } | undefined)?.at);
    res.json(clockView(sim));
  });
  r.post('/__sim/clock/unfreeze', guard, (_req, res) => {
    sim.unfreeze();
    res.json(clockView(sim));
  });
  r.post('/__sim/clock/advance', guard, expressLib().json({ limit: '16kb' }), (req, res) => {
    const by = (req.body as { by?: number | string } | undefined)?.by;
    if (by === undefined) throw new ControlError(400, 'send { "by": "5m" } (a duration, or milliseconds)');
    sim.advance(by);
    res.json(clockView(sim));
  });

  r.get('/__sim/journal', guard, (req, res) => {
    const q = queryOf(req);
    const code = q('code');
    const codes = code !== undefined && code !== '' ? code.split(',').map(Number) : undefined;
    if (codes?.some((c) => !Number.isInteger(c))) throw new ControlError(400, 'code must be a code or a comma-separated list of codes');
    // Read as the command line reads its numbers: digits only (Number() would take ' 5', '0x10' and '1e3'); empty is
    // not given, as for code.
    const limitText = q('limit') || undefined;
    if (limitText !== undefined && !/^\d+$/.test(limitText)) throw new ControlError(400, 'limit must be a whole number');
    const limit = limitText === undefined ? undefined : Number(limitText);
    const entries = sim.journalEntries({ code: codes, apiUser: q('apiUser'), limit });
    // Entries come sealed (every secret hidden), and every string of a JSON answer passes the app's replacer too.
    res.json(entries);
  });
  r.delete('/__sim/journal', guard, (_req, res) => {
    sim.clearJournal();
    res.json({ cleared: true });
  });

  r.get('/__sim/coverage', guard, (_req, res) => void res.json(sim.coverageReport()));
  r.get('/__sim/findings', guard, (_req, res) => void res.json({ findings: sim.findings(), hints: sim.hints() }));
  r.get('/__sim/report', guard, (req, res) => {
    const { format, options } = reportQuery(queryOf(req));
    res.type(format === 'junit' ? 'application/xml' : 'text/markdown').send(renderReport(sim.runSummary(options), format));
  });

  r.get('/__sim/events', guard, eventStream(sim.journal, (e) => e));

  r.use('/__sim', controlErrors);
  return r;
}

/**
 * A query's parameters, each read as one text. A parameter given twice (`?apiUser=1&apiUser=2`) is refused: read as
 * a list it would match no filter and silently answer everything.
 */
function queryOf(req: Request): (name: string) => string | undefined {
  const query = req.query as Record<string, unknown>;
  return (name) => {
    if (!Object.hasOwn(query, name)) return undefined;
    const value = query[name];
    if (typeof value !== 'string') throw new ControlError(400, `${name} is given more than once: give it once (a comma-separated list where it takes several)`);
    return value;
  };
}

/** `GET /__sim/report`'s query: `format` (markdown or junit), `require` (codes or all) and `failOn` (a severity). */
function reportQuery(q: (name: string) => string | undefined): { format: ReportFormat; options: { required?: number[]; failOn?: Severity } } {
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

/** Control errors as JSON with their status; a refused scenario with its issues; a body that is not JSON or too large. */
export function controlErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof ControlError) return void res.status(err.status).json({ error: err.message });
  if (err instanceof ScenarioError) return void res.status(400).json({ error: err.message, issues: err.issues });
  if (err instanceof FileRefused) return void res.status(400).json({ error: err.message });
  const e = err as { status?: number; type?: string; message?: string; limit?: number; body?: unknown };
  if (e.type === 'entity.parse.failed') return void res.status(400).json({ error: bodyParseError(e) });
  if (e.type === 'entity.too.large') return void res.status(413).json({ error: `the body is larger than ${e.limit ?? 'the limit of'} bytes` });
  // Any other refusal of the request itself (an unsupported charset or encoding, a path that does not decode): its status and reason.
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return void res.status(e.status).json({ error: e.message ?? 'bad request' });
  next(err);
}

/**
 * Why a JSON body was refused. Express reads these bodies strictly, so `null`, `5` or `"time"` are refused with
 * JSON.parse's words for the first character ("not valid JSON"), which is untrue of them: they are JSON, of the
 * wrong kind.
 */
function bodyParseError(e: { message?: string; body?: unknown }): string {
  if (typeof e.body === 'string') {
    try {
      const value: unknown = JSON.parse(e.body);
      return `the body must be a JSON object, not ${value === null ? 'null' : typeof value}`;
    } catch {
      // Not JSON at all: the parser's own reason, below.
    }
  }
  return `the body is not JSON: ${e.message}`;
}
