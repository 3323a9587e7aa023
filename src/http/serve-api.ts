import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiResult } from '../request/path.js';
import type { Simulator } from '../simulator.js';
import { monotonicMs } from '../world/monotonic.js';

/**
 * Serving the simulated API over node:http, without Express: reading a request's body within its limit, handing it
 * to the request path, and writing the result to the wire, faults included. Express (app.ts) is for people's pages
 * and the control API, and is loaded only when one of those is first asked for.
 */

/** serveApi, with anything it throws answered -5000 as an envelope. */
export function serveApiSafely(sim: Simulator, req: IncomingMessage, res: ServerResponse): void {
  try {
    serveApi(sim, req, res);
  } catch (e) {
    answerInternalError(sim, req, res, e);
  }
}

/** Reads the body (up to the simulator's limit) and answers through the request path. */
export function serveApi(sim: Simulator, req: IncomingMessage, res: ServerResponse, tooLarge = false): void {
  const startedAt = monotonicMs();
  const limit = sim.bodyLimit;
  const declared = Number(req.headers['content-length']);
  const go = (body: string, over: boolean) => {
    let result: ApiResult | Promise<ApiResult>;
    try {
      result = sim.path.handle(
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          body,
          tooLarge: over ? limit : undefined,
        },
        startedAt,
      );
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
  if (req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] === undefined || declared === 0))
    return go('', false);
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
  return sim.path.lastResort({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: '' }, err);
}

/**
 * Answers -5000 for an exception outside the request path's checks; a connection already answering is closed instead.
 * Never throws.
 */
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
  const headers: Record<string, string | number> = {
    'content-type': r.contentType,
    'content-length': Buffer.byteLength(r.body),
  };
  if (r.close) headers.connection = 'close';
  res.writeHead(r.status, headers);
  res.end(r.body);
}
