import { timingSafeEqual } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { isoTime } from '../contract/response.js';
import type { JournalEntry } from '../journal.js';
import { FileRefused } from '../scenario/directories.js';
import { ScenarioError } from '../scenario/errors.js';
import { readScenarioFile } from '../scenario/files.js';
import { ControlError, type ScenarioSource, type Simulator } from '../simulator.js';
import type { Challenge } from '../world/challenges.js';

/** How many live event streams (dashboard tabs) one simulator serves at once. */
export const MAX_EVENT_STREAMS = 32;
/** An event stream whose reader falls this far behind (bytes waiting to be sent) is closed: a tab that stopped reading cannot make the simulator hold every event. */
export const MAX_EVENT_BACKLOG = 1024 * 1024;

/** Where the control token may come from: a header for scripts, a cookie the dashboard sets, `?token=` to open it. */
export const CONTROL_HEADER = 'x-sim-control-token';
const COOKIE = 'mfa_sim_control';

function tokenMatches(given: string | undefined, want: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/**
 * Requires the control token when one is set. A valid `?token=` also sets a cookie, so that a person can open
 * the dashboard from a link once.
 */
export function requireControl(sim: Simulator) {
  return (req: Request, res: Response, next: NextFunction) => {
    // Without a token (loopback) any web page the developer visits could post to the control API; a browser
    // marks such requests, so a change coming from another site is refused. Scripts and tests send no Origin.
    if (req.method !== 'GET' && req.method !== 'HEAD' && crossSite(req)) {
      return void res.status(403).json({ error: 'the control API refuses changes sent by a page of another site' });
    }
    const token = sim.controlToken;
    if (!token) return next();
    const query = typeof req.query.token === 'string' ? req.query.token : undefined;
    const given = (req.headers[CONTROL_HEADER] as string | undefined) ?? cookie(req, COOKIE) ?? query;
    if (!tokenMatches(given, token)) {
      return void res.status(401).json({ error: `the control API needs its token (header ${CONTROL_HEADER}, or ?token= once in a browser): this simulator is not on loopback` });
    }
    if (query) res.setHeader('set-cookie', `${COOKIE}=${encodeURIComponent(query)}; Path=/__sim; HttpOnly; SameSite=Strict`);
    next();
  };
}

/** Whether a browser sent this request from a page of another site (Fetch metadata, else the Origin header). */
function crossSite(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'cross-site' || site === 'same-site';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

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

/** A journal entry as shown outside: JSON with every known secret replaced. */
export function journalView(sim: Simulator, e: JournalEntry): unknown {
  return JSON.parse(sim.redact(JSON.stringify(e)));
}

function clockView(sim: Simulator) {
  const now = sim.now();
  return { now, iso: isoTime(now), frozen: sim.clock.frozen, offsetMs: sim.scenario.offset };
}

/**
 * What a scenario body says: a name (shipped, or `<name>.yaml` in a scenario directory), a file in a scenario
 * directory, an object, or YAML / JSON text. Files are read without blocking, and only where the operator allowed.
 */
async function scenarioSource(sim: Simulator, req: Request): Promise<ScenarioSource> {
  if (typeof req.body === 'string') return { text: req.body, source: 'request body' };
  const b = req.body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object' || Array.isArray(b) || Object.keys(b).length === 0) throw new ControlError(400, 'send { "name": "<scenario>" }, { "file": "<file in a scenario directory>" }, a scenario object, or YAML text');
  const only = Object.keys(b).length === 1;
  if (only && typeof b.name === 'string') {
    const file = await sim.scenarioDirectories.findByName(b.name);
    if (!file) throw new ScenarioError(sim.echo(b.name, 100), [{ path: [], message: 'is not the name of a shipped scenario (GET /__sim/scenarios lists them) nor of a file in the scenario directories' }]);
    return { text: await readScenarioFile(file), source: file };
  }
  if (only && typeof b.file === 'string') {
    const file = await sim.scenarioDirectories.locate(b.file);
    return { text: await readScenarioFile(file), source: file };
  }
  if (Object.hasOwn(b, 'scenario') && b.scenario && typeof b.scenario === 'object') return b.scenario as ScenarioSource;
  return b as ScenarioSource;
}

/**
 * The control API under `/__sim/`: scenarios, bindings, the world, challenges, the clock, the journal and
 * coverage, as JSON. Each route is one method of the Simulator.
 */
export function controlRouter(sim: Simulator): Router {
  const r = Router();
  const guard = requireControl(sim);
  const body = [express.json({ limit: '1mb', strict: false }), express.text({ type: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'], limit: '1mb' })];

  r.get('/__sim/scenarios', guard, (_req, res) => void res.json(sim.scenarios()));
  r.post('/__sim/scenario', guard, ...body, async (req, res) => {
    const sc = sim.loadScenario(await scenarioSource(sim, req));
    res.json({ active: sc.name, description: sc.description });
  });
  r.put('/__sim/bindings/:apiUser', guard, ...body, async (req, res) => {
    const sc = sim.bindScenario(String(req.params.apiUser), await scenarioSource(sim, req));
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
  r.post('/__sim/challenges/:id/approve', guard, express.json({ limit: '16kb' }), (req, res) => {
    const authCode = (req.body as { authCode?: unknown } | undefined)?.authCode;
    res.json(challengeView(sim.approve(String(req.params.id), authCode as string | undefined)));
  });
  r.post('/__sim/challenges/:id/deny', guard, (req, res) => void res.json(challengeView(sim.deny(String(req.params.id)))));
  r.post('/__sim/challenges/:id/expire', guard, (req, res) => void res.json(challengeView(sim.expire(String(req.params.id)))));

  r.get('/__sim/clock', guard, (_req, res) => void res.json(clockView(sim)));
  r.post('/__sim/clock/freeze', guard, express.json({ limit: '16kb' }), (req, res) => {
    sim.freeze((req.body as { at?: number | string } | undefined)?.at);
    res.json(clockView(sim));
  });
  r.post('/__sim/clock/unfreeze', guard, (_req, res) => {
    sim.unfreeze();
    res.json(clockView(sim));
  });
  r.post('/__sim/clock/advance', guard, express.json({ limit: '16kb' }), (req, res) => {
    const by = (req.body as { by?: number | string } | undefined)?.by;
    if (by === undefined) throw new ControlError(400, 'send { "by": "5m" } (a duration, or milliseconds)');
    sim.advance(by);
    res.json(clockView(sim));
  });

  r.get('/__sim/journal', guard, (req, res) => {
    const q = req.query;
    const codes = typeof q.code === 'string' && q.code !== '' ? q.code.split(',').map(Number) : undefined;
    if (codes?.some((c) => !Number.isInteger(c))) throw new ControlError(400, 'code must be a code or a comma-separated list of codes');
    const limit = typeof q.limit === 'string' ? Number(q.limit) : undefined;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) throw new ControlError(400, 'limit must be a whole number');
    const entries = sim.journalEntries({ code: codes, apiUser: typeof q.apiUser === 'string' ? q.apiUser : undefined, limit });
    res.json(entries.map((e) => journalView(sim, e)));
  });
  r.delete('/__sim/journal', guard, (_req, res) => {
    sim.clearJournal();
    res.json({ cleared: true });
  });

  r.get('/__sim/coverage', guard, (_req, res) => void res.json(sim.coverageReport()));

  let streams = 0;
  r.get('/__sim/events', guard, (req, res) => {
    if (streams >= MAX_EVENT_STREAMS) {
      return void res.status(503).json({ error: `at most ${MAX_EVENT_STREAMS} event streams at once` });
    }
    streams++;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(': mfa-sim events\n\n');
    const stop = sim.journal.subscribe((e) => {
      if (res.writableLength > MAX_EVENT_BACKLOG) return void res.destroy();
      res.write(`event: request\ndata: ${JSON.stringify(journalView(sim, e))}\n\n`);
    });
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    res.on('close', () => {
      streams--;
      stop();
      clearInterval(ping);
    });
  });

  r.use('/__sim', controlErrors);
  return r;
}

/** Control errors as JSON with their status; a refused scenario with its issues; a body that is not JSON or too large. */
export function controlErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err instanceof ControlError) return void res.status(err.status).json({ error: err.message });
  if (err instanceof ScenarioError) return void res.status(400).json({ error: err.message, issues: err.issues });
  if (err instanceof FileRefused) return void res.status(400).json({ error: err.message });
  const e = err as { status?: number; type?: string; message?: string; limit?: number };
  if (e.type === 'entity.parse.failed') return void res.status(400).json({ error: `the body is not JSON: ${e.message}` });
  if (e.type === 'entity.too.large') return void res.status(413).json({ error: `the body is larger than ${e.limit ?? 'the limit of'} bytes` });
  // Any other refusal of the request itself (an unsupported charset or encoding, a path that does not decode): its status and reason.
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return void res.status(e.status).json({ error: e.message ?? 'bad request' });
  next(err);
}
