// The least a faithful server does for a signed request, written as one function for speed: the budget table's
// answer to "could any server keep the contract within the targets on this machine?". Not mfa-sim and not a
// simulator: it serves /v1/svc/time only, with the benchmark's API users, and keeps no doctor, coverage, scenario,
// rule or secret search. What it does do, per request, is what no faithful server can skip: route; parse the
// Authorization header; check the signing headers' and the parts' shapes and that they agree; know the API user;
// check the drift; verify the HMAC-SHA512 signature; refuse a reused nonce or time; answer the envelope with its own
// time; keep a journal entry (a ring of 1,000) and write the request log line, in batches once per turn of the event
// loop (as mfa-sim did when the floor was written; it now writes at most every 20 ms). It calls mfa-sim's own
// parsing, shapes and signature check (src/auth, src/request/header-checks.ts), so what it leaves out is mfa-sim's
// structure and the rest of what it is, not a faster primitive.
//   node --import tsx bench/checks-baseline.ts <port>
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAuthorization } from '../src/auth/authorization.js';
import { HmacKey } from '../src/auth/hmac-key.js';
import { signatureMatches, stringToSign } from '../src/auth/signature.js';
import { API_USER_ID } from '../src/contract/api-user.js';
import { HEX128, NONCE, UTCTIME } from '../src/request/header-checks.js';
import { API_USERS } from './lib.js';

const MAX_DRIFT_MS = 300_000;

/**
 * The benchmark's API users: each one's HMAC key, and the nonces and times it sent (a baseline lives for seconds: never
 * forgotten).
 */
const users = new Map(
  API_USERS.map((u) => [
    u.id,
    { key: new HmacKey(Buffer.from(u.secret)), nonces: new Set<string>(), times: new Set<number>() },
  ]),
);

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

/** The checks of a signed time request, in the contract's order: [HTTP status, code, message]. */
function checked(req: IncomingMessage, now: number): [number, number, string] {
  if (req.url !== '/v1/svc/time') return [404, -404, 'no endpoint'];
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
  if (!signatureMatches(user.key, stringToSign(utctime, nonce), parts.signature))
    return [400, -4037, 'Signature error'];
  if (user.nonces.has(nonce)) return [401, -4034, 'nonce reused'];
  if (user.times.has(time)) return [401, -4035, 'utctime reused'];
  user.nonces.add(nonce);
  user.times.add(time);
  return [200, 15000, `{"utc-time":"${Math.floor(now / 1000)}"}`];
}

const server = createServer((req, res) => {
  // The request is read to its end, as any server must before the connection is reused.
  req.resume();
  req.on('end', () => {
    const now = Date.now();
    const [status, code, message] = checked(req, now);
    seq++;
    const at = new Date(now).toISOString();
    const body = `{"id":"sim-${seq}","utctime":"${at}","status":${status},"code":${code},"message":${JSON.stringify(message)},"moreInfo":"http://127.0.0.1:${port}/status?code=${code}"}`;
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
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  port = (server.address() as AddressInfo).port;
  process.stdout.write(`checks baseline listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
