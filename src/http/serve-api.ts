import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiResult } from '../request/path.js';
import type { Simulator } from '../simulator/simulator.js';

/**
 * The simulated API on the wire: a request's body read within its limit, handed to the request path, and the result
 * written back, faults included. The app's first middleware (app.ts) and proxy mode hand requests here.
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
  const startedAt = performance.now();
  const limit = sim.bodyLimit;
  const declared = Number(req.headers['content-length']);
  const answer = (body: string, over: boolean) => {
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
    let result: ApiResult | Promise<ApiResult>;
    try {
      result = sim.path.handle({ ...request, tooLarge: over ? limit : undefined }, startedAt);
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
  // Truncate: half the answer, and the connection closed.
  if (r.fault === 'truncate')
    res.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => socket.destroy());
  else res.end(bytes);
}
