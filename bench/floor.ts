// The floor: the least a faithful server does for a signed request, written as one function for speed, the
// benchmark's answer to "could any server keep the contract within the targets on this machine?". Not mfa-sim and not
// a simulator: it serves the benchmark's API users only, and keeps no doctor, coverage, scenario, rule or secret
// search. What it does do, per request, is what no faithful server can skip: route; parse the Authorization header;
// check the signing headers' and the parts' shapes and that they agree; know the API user; check the drift; verify
// the HMAC-SHA512 signature; refuse a reused nonce or time; answer the envelope with its own time; keep a journal entry
// (a ring of 1,000) and write the request log line, in batches once per turn of the event loop (as mfa-sim did when
// the floor was written; it now writes at most every 20 ms). It calls mfa-sim's own parsing, shapes and signature
// check (src/auth, src/request/header-checks.ts), so what it leaves out is mfa-sim's structure and the rest of what it
// is, not a faster primitive. Its servers: bench/checks-baseline.ts (signed time) and bench/challenge-floor.ts (a new
// challenge).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAuthorization } from '../src/auth/authorization.js';
import { signatureMatches, stringToSign } from '../src/auth/signature.js';
import { API_USER_ID } from '../src/contract/api-user.js';
import { HEX128, NONCE, UTCTIME } from '../src/request/checks.js';
import { API_USERS } from './lib.js';

const MAX_DRIFT_MS = 300_000;

/** An answer: HTTP status, code, message. */
export type FloorAnswer = [number, number, string];

/**
 * The benchmark's API users: each one's HMAC key, and the nonces and times it sent (a baseline lives for seconds: never
 * forgotten).
 */
const users = new Map(
  API_USERS.map((u) => [
    u.id,
    { secret: u.secret, nonces: new Set<string>(), times: new Set<number>() },
  ]),
);

/**
 * The checks of a signed request after its route, in the contract's order: the refusal, or undefined when the request
 * passes them all (its nonce and time are then remembered).
 */
export function signedRefusal(req: IncomingMessage, now: number): FloorAnswer | undefined {
  if (req.method !== 'POST' && req.method !== 'GET') return [405, -405, 'method not allowed'];
  const h = req.headers;
  if (!h.authorization) return [401, -4000, 'Authorization header missing'];
  const parts = parseAuthorization(h.authorization, 'svc');
  if (!parts) return [401, -4001, 'Authorization header malformed'];
  const utctime = h['x-svc-utctime'] as string | undefined;
  const nonce = h['x-svc-cnonce'] as string | undefined;
  const apiUser = h['x-svc-apiuser'] as string | undefined;
  if (!utctime || !UTCTIME.test(utctime)) return [401, -4005, 'x-svc-utctime malformed'];
  if (!nonce || !NONCE.test(nonce)) return [401, -4007, 'x-svc-cnonce malformed'];
  if (!apiUser || !API_USER_ID.test(apiUser)) return [401, -4009, 'x-svc-apiuser malformed'];
  if (!parts.signature || !HEX128.test(parts.signature)) return [401, -4027, 'signature malformed'];
  if (parts.apiuser !== apiUser) return [401, -4029, 'apiuser differs'];
  if (parts.algorithm?.toLowerCase() !== 'svc-hmac512') return [401, -4031, 'algorithm'];
  if (parts.signedheaders?.toLowerCase() !== 'x-svc-utctime;x-svc-cnonce') return [401, -4033, 'signedheaders'];
  const user = users.get(apiUser);
  if (!user) return [401, -1001, 'API user not known'];
  const time = Number(utctime);
  if (Math.abs(time - now) > MAX_DRIFT_MS) return [401, -4036, 'utctime clock drift error'];
  if (!signatureMatches(user.secret, stringToSign(utctime, nonce), parts.signature))
    return [400, -4037, 'Signature error'];
  if (user.nonces.has(nonce)) return [401, -4034, 'nonce reused'];
  if (user.times.has(time)) return [401, -4035, 'utctime reused'];
  user.nonces.add(nonce);
  user.times.add(time);
  return undefined;
}

/**
 * Serves `answer` on node:http at the port the command line names: each request read to its end (its body kept, as
 * text, when `readBody`), answered with the envelope, its journal entry kept and its log line written in batches.
 */
export function serveFloor(
  name: string,
  answer: (req: IncomingMessage, now: number, body: string, port: number) => FloorAnswer,
  readBody: boolean,
): void {
  const journal = new Array<object>(1000);
  let seq = 0;
  let port = 0;
  let pendingLog: string[] = [];
  let flushScheduled = false;

  function flushLog(): void {
    flushScheduled = false;
    const text = pendingLog.join('');
    pendingLog = [];
    process.stdout.write(text);
  }

  /** The answer to a request read to its end: the envelope written, its journal entry kept, its log line queued. */
  function respond(req: IncomingMessage, res: ServerResponse, body: string): void {
    const now = Date.now();
    const [status, code, message] = answer(req, now, body, port);
    seq++;
    const at = new Date(now).toISOString();
    const envelope = `{"id":"sim-${seq}","utctime":"${at}","status":${status},"code":${code},"message":${JSON.stringify(message)},"moreInfo":"http://127.0.0.1:${port}/status?code=${code}"}`;
    journal[seq % journal.length] = {
      seq,
      at,
      method: req.method,
      path: req.url,
      apiUser: req.headers['x-svc-apiuser'],
      status,
      code,
      message,
      headers: req.headers,
      body,
    };
    pendingLog.push(
      `${at.slice(11, 23)} ${req.method} ${req.url} ${(req.headers['x-svc-apiuser'] as string | undefined) ?? ''} -> ${status} ${code} ${message}\n`,
    );
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushLog);
    }
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(envelope),
    });
    res.end(envelope);
  }

  // Each request is read to its end, as any server must before the connection is reused; its body kept only when the
  // answer reads it (the signed time floor's requests have none, and it reads them as it did before it had a sibling).
  const server = createServer((req, res) => {
    if (!readBody) {
      req.resume();
      req.on('end', () => respond(req, res, ''));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      respond(req, res, chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString()),
    );
  });
  server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
    port = (server.address() as AddressInfo).port;
    process.stdout.write(`${name} listening on http://127.0.0.1:${port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
