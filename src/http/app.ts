import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { OptionsError } from '../contract/errors.js';
import { jsonText } from '../output/json.js';
import type { StartOptions } from '../simulator/options.js';
import { Simulator } from '../simulator/simulator.js';
import type { SimulatorOptions } from '../simulator/options.js';
import { requireAllowedHost } from '../simulator/allowed-hosts.js';
import { CONTROL_ROUTES } from './control-routes.js';
import { controlRouter } from './control.js';
import { pageRoutes } from './pages.js';
import { expressLib, pathOf, routerOf } from './routes.js';
import type { ApiResult } from '../request/path.js';

/** A simulator as a Node request listener (the Express app that serves it). */
export type SimulatorApp = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  simulator: Simulator;
};

/** How the simulated API (`/v1/...`) is served: by the request path, or forwarded (proxy mode). */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The Express app of a simulator. Every answer of the API, a 404 and an internal failure included, is an envelope. */
export function createApp(options: SimulatorOptions | string | Simulator = {}): SimulatorApp {
  // Proxy mode forwards over HTTP and must be closed: startSimulator and the command line run it.
  if (!(options instanceof Simulator) && (options as StartOptions | null)?.upstream !== undefined) {
    const message = 'proxy mode runs with startSimulator or the command line: createApp answers the API itself';
    throw new OptionsError([{ path: ['upstream'], message }]);
  }
  const sim = options instanceof Simulator ? options : new Simulator(options);
  return appOf(sim, (req, res) => serveApiSafely(sim, req, res));
}

/**
 * The server's request listener: the simulated API straight to its handler (the request path, or `api` in proxy mode),
 * as the app's first middleware would send it; anything else to the app, made (and Express loaded) with the first
 * such request. Express's routing took half a signed request's CPU.
 */
export function listenerOf(sim: Simulator, api?: ApiHandler): (req: IncomingMessage, res: ServerResponse) => void {
  const serve: ApiHandler = api ?? ((req, res) => serveApiSafely(sim, req, res));
  let app: SimulatorApp | undefined;
  return (req, res) => (req.url?.startsWith('/v1/') ? serve(req, res) : (app ??= appOf(sim, serve))(req, res));
}

/** The app of a simulator whose API `api` serves (startSimulator's, in proxy mode too). */
function appOf(sim: Simulator, api: ApiHandler): SimulatorApp {
  const app = expressLib()();
  Object.assign(app, { simulator: sim });
  app.disable('x-powered-by');
  app.set('etag', false);
  // Every JSON answer of the pages and the control API is written by the one JSON function, with no secret in it.
  const redact = (_key: string, value: unknown) => (typeof value === 'string' ? sim.redact(value) : value);
  app.response.json = function (this: Response, body: unknown) {
    return this.type(this.get('Content-Type') ?? 'json').send(jsonText(body, redact));
  };

  app.use((req: Request, res: Response, next: NextFunction) => (req.url.startsWith('/v1/') ? api(req, res) : next()));
  app.use('/__sim', requireAllowedHost(sim.allowedHosts));
  app.use(controlRouter(sim, CONTROL_ROUTES));
  app.use(routerOf(pageRoutes(sim), 'this page'));
  // A control URL no route has: a JSON 404.
  app.use('/__sim', (req: Request, res: Response) => {
    const error = `no control route at ${pathOf(req)}: the control API's routes are described at /__sim/openapi.json, and the dashboard is /__sim/ui`;
    res.status(404).json({ error });
  });
  // Anything else: the request path's route check answers -404 or -405, as an envelope, journaled.
  app.use((req: Request, res: Response) => serveApi(sim, req, res));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status === 413 || (err as { type?: string }).type === 'entity.too.large') return serveApi(sim, req, res, true);
    // A path whose percent-encoding does not decode names no page: -404, not an internal failure.
    if (err instanceof URIError) return serveApi(sim, req, res);
    // A control route that failed (a bug of the simulator's): a JSON error, never an envelope of the API it controls.
    if (!req.path.startsWith('/__sim/')) return answerInternalError(sim, req, res, err);
    if (res.headersSent) return void res.destroy();
    res.status(500).json({ error: 'internal error of the simulator' });
  });
  return app as unknown as SimulatorApp;
}

/** serveApi, with anything it throws answered -5000 as an envelope. */
function serveApiSafely(sim: Simulator, req: IncomingMessage, res: ServerResponse): void {
  try {
    serveApi(sim, req, res);
  } catch (e) {
    answerInternalError(sim, req, res, e);
  }
}

/** Reads the body (up to the simulator's limit) and answers through the request path. */
export function serveApi(sim: Simulator, req: IncomingMessage, res: ServerResponse, tooLarge = false): void {
  const startedAt = performance.now();
  const limit = sim.bodyLimit;
  const declared = Number(req.headers['content-length']);
  const answer = (body: string, over: boolean) => {
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
    let result: ApiResult | Promise<ApiResult>;
    try {
      const taken = { ...request, tooLarge: over ? limit : undefined };
      // Sharing a store, answered once every replica can apply it (simulator/replicas.ts).
      result = sim.replicas ? sim.replicas.request(taken) : sim.path.handle(taken, startedAt);
    } catch (e) {
      result = internalErrorOf(sim, req, e);
    }
    if (!(result instanceof Promise)) return writeResult(sim, req, res, result);
    result.then(
      (r) => writeResult(sim, req, res, r),
      (e) => writeResult(sim, req, res, internalErrorOf(sim, req, e)),
    );
  };
  if (tooLarge || declared > limit) return answer('', true);
  // Read already, or neither Content-Length (or 0) nor Transfer-Encoding: no body to wait for (RFC 9112 §6.3).
  const noBody =
    req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] === undefined || declared === 0);
  if (req.readableEnded || req.complete || noBody) return answer('', false);
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  req.on('data', (chunk: Buffer) => {
    if (done) return;
    size += chunk.length;
    if (size <= limit) return void chunks.push(chunk);
    done = true;
    answer('', true);
  });
  req.on('end', () => {
    if (!done) answer(Buffer.concat(chunks).toString('utf8'), false);
    done = true;
  });
  req.on('error', () => (done = true));
}

/** An exception outside the request path's checks (a bug of the simulator's), as the -5000 answer to this request. */
function internalErrorOf(sim: Simulator, req: IncomingMessage, err: unknown): ApiResult {
  return sim.path.lastResort({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: '' }, err);
}

/** Answers -5000 for an exception outside the checks; a connection already answering is closed. Never throws. */
export function answerInternalError(sim: Simulator, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  try {
    if (res.headersSent) return void res.destroy();
    writeResult(sim, req, res, internalErrorOf(sim, req, err));
  } catch {
    res.destroy();
  }
}

/** Writes a result of the request path to the wire, including the faults a rule can inject. */
function writeResult(sim: Simulator, req: IncomingMessage, res: ServerResponse, r: ApiResult): void {
  const socket = req.socket;
  if (res.writableEnded || socket.destroyed) return;
  if (r.fault === 'reset') {
    // An RST, as a dropped connection looks to the client (ECONNRESET).
    return void socket.resetAndDestroy();
  }
  if (r.fault === 'hang') {
    // Held (bounded by hangFor) and then closed without an answer; closing the simulator lets it go at once.
    sim.hanging.add(socket);
    const timer = setTimeout(() => socket.destroy(), r.hangMs ?? 60_000);
    return void socket.once('close', () => {
      clearTimeout(timer);
      sim.hanging.delete(socket);
    });
  }
  const bytes = Buffer.from(r.body, 'utf8');
  const headers = {
    'content-type': r.contentType,
    'content-length': bytes.length,
    ...(r.close ? { connection: 'close' } : {}),
  };
  res.writeHead(r.status, headers);
  if (r.fault === 'truncate')
    res.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => socket.destroy());
  else res.end(bytes);
}
