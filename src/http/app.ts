import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { ApiResult } from '../request/path.js';
import { Simulator, type SimulatorOptions } from '../simulator.js';
import { openApiDocument } from '../contract/openapi.js';
import { requireAllowedHost } from './allowed-hosts.js';
import { controlRouter } from './control.js';
import { dashboardRouter } from './dashboard.js';
import { pagesRouter } from './pages.js';

/**
 * The Express app of a simulator: the shell for pages, the dashboard and the control API (the API itself is served
 * straight from node:http by server.ts, and through this app's first middleware for supertest); reading an API
 * request's body within its limit; writing a result to the wire, faults included.
 */

/** An Express app that serves one simulator; the simulator is reachable as `app.simulator`. */
export type SimulatorApp = Express & { simulator: Simulator };

/**
 * The Express app of a simulator. The simulated API (`/v1/...`) is handed to the simulator's request path by the
 * first middleware, before Express's router; pages, the control API and the final 404 follow. Every answer
 * of the API, a 404 and an internal failure included, is a JSON envelope.
 */
export function createApp(options: SimulatorOptions | string | Simulator = {}): SimulatorApp {
  const sim = options instanceof Simulator ? options : new Simulator(options);
  const app = express() as SimulatorApp;
  app.simulator = sim;
  app.disable('x-powered-by');
  app.set('etag', false);
  // Every JSON answer of the pages and the control API passes here: no string in it shows a secret the simulator holds.
  app.set('json replacer', (_key: string, value: unknown) => (typeof value === 'string' ? sim.redact(value) : value));

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!req.url.startsWith('/v1/')) return next();
    serveApi(sim, req, res);
  });
  app.use('/__sim', requireAllowedHost(sim.allowedHosts));
  app.use(controlRouter(sim));
  app.use(dashboardRouter(sim));
  // Built from the code table alone (no caller input), so it skips the replacer's work.
  app.get('/openapi.json', (req, res) => void res.type('json').send(JSON.stringify(openApiDocument({ token: sim.token, responseStyle: sim.scenario.responseStyle, serverUrl: sim.links.base(req.headers.host) }))));
  app.use(pagesRouter(sim));
  // Anything else: the request path's route check answers -404 or -405, as an envelope, journaled.
  app.use((req: Request, res: Response) => serveApi(sim, req, res));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status === 413 || (err as { type?: string }).type === 'entity.too.large') return serveApi(sim, req, res, true);
    // A path whose percent-encoding does not decode names no page: -404, not an internal failure.
    if (err instanceof URIError) return serveApi(sim, req, res);
    // The control API answers JSON errors, never an envelope of the API it controls.
    if (req.path.startsWith('/__sim/')) return answerControlFailure(res);
    answerInternalError(sim, req, res, err);
  });
  return app;
}

/** Reads the body (up to the simulator's limit) and answers through the request path. */
export function serveApi(sim: Simulator, req: IncomingMessage, res: ServerResponse, tooLarge = false): void {
  const startedAt = performance.now();
  const limit = sim.bodyLimit;
  const declared = Number(req.headers['content-length']);
  const go = (body: string, over: boolean) => {
    let result: ApiResult | Promise<ApiResult>;
    try {
      result = sim.handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, tooLarge: over ? limit : undefined }, startedAt);
    } catch (e) {
      result = internalErrorOf(sim, req, e);
    }
    if (result instanceof Promise) {
      result.then(
        (r) => writeResult(sim, req, res, r),
        (e) => writeResult(sim, req, res, internalErrorOf(sim, req, e)),
      );
    } else {
      writeResult(sim, req, res, result);
    }
  };
  if (tooLarge || declared > limit) return go('', true);
  if (req.readableEnded || (req as { complete?: boolean }).complete) return go('', false);
  // Neither Content-Length (or 0) nor Transfer-Encoding: the request has no body (RFC 9112 §6.3), nothing to wait for.
  if (req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] === undefined || declared === 0)) return go('', false);
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  req.on('data', (chunk: Buffer) => {
    if (done) return;
    size += chunk.length;
    if (size > limit) {
      done = true;
      go('', true);
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (done) return;
    done = true;
    go(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'), false);
  });
  req.on('error', () => {
    done = true;
  });
}

/** An exception outside the request path's checks (a bug of the simulator's), as the -5000 answer to this request. */
function internalErrorOf(sim: Simulator, req: IncomingMessage, err: unknown): ApiResult {
  return sim.lastResort({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: '' }, err);
}

/** Answers -5000 for an exception outside the request path's checks; a connection already answering is closed instead. Never throws. */
export function answerInternalError(sim: Simulator, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  try {
    if (res.headersSent) return void res.destroy();
    writeResult(sim, req, res, internalErrorOf(sim, req, err));
  } catch {
    res.destroy();
  }
}

/** A control API route failed (a bug of the simulator's): HTTP 500 with a JSON error, as every control error is. Never throws. */
function answerControlFailure(res: ServerResponse): void {
  try {
    if (res.headersSent) return void res.destroy();
    const body = '{"error":"internal error of the simulator"}';
    res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  } catch {
    res.destroy();
  }
}

/** Writes a result of the request path to the wire, including the faults a rule can inject. */
export function writeResult(sim: Simulator, req: IncomingMessage, res: ServerResponse, r: ApiResult): void {
  const socket = req.socket;
  if (res.writableEnded || socket.destroyed) return;
  switch (r.fault) {
    case 'reset':
      // An RST, as a dropped connection looks to the client (ECONNRESET).
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
      return;
    case 'hang': {
      // Held (bounded by hangFor) and then closed without an answer; closing the simulator lets it go at once.
      sim.hanging.add(socket);
      const timer = setTimeout(() => socket.destroy(), r.hangMs ?? 60_000);
      socket.once('close', () => {
        clearTimeout(timer);
        sim.hanging.delete(socket);
      });
      return;
    }
    case 'truncate': {
      const bytes = Buffer.from(r.body, 'utf8');
      res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': bytes.length });
      res.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => socket.destroy());
      return;
    }
  }
  const headers: Record<string, string | number> = { 'content-type': r.contentType, 'content-length': Buffer.byteLength(r.body) };
  if (r.close) headers.connection = 'close';
  res.writeHead(r.status, headers);
  res.end(r.body);
}
