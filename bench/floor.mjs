// The floor: the least a faithful server does for a signed time request, in one function on node:http. It routes,
// parses the Authorization header, checks the signing headers' shapes and that they agree, knows the API user, checks
// the drift, verifies the HMAC-SHA512 signature (createHmac, timingSafeEqual), refuses a reused nonce or time, and
// answers the envelope with its own time. Nothing else of mfa-sim: no journal, log, doctor, coverage or scenarios.
//   node bench/floor.mjs '<API users as JSON: [{"id","secret"}]>'
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const DRIFT_MS = 300_000;
const JSON_TYPE = 'application/json; charset=utf-8';
const AUTH = /^svc-hmac: apiuser=(\d{9}),signedheaders=(.*),algorithm=(.*),signature=([0-9a-fA-F]{128})$/;
// Replay memory: the floor lives for one round of seconds, so it never forgets (a long-lived server forgets what
// leaves the drift window).
const users = new Map(JSON.parse(process.argv[2]).map((u) => [u.id, { ...u, nonces: new Set(), times: new Set() }]));
let seq = 0;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const now = Date.now();
    const [status, code, message] = answer(req.method, req.url, req.headers, now);
    const iso = new Date(now).toISOString();
    const port = server.address().port;
    const envelope = `{"id":"floor-${++seq}","utctime":"${iso}","status":${status},"code":${code},"message":${JSON.stringify(message)},"moreInfo":"http://127.0.0.1:${port}/status?code=${code}"}`;
    res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(envelope) }).end(envelope);
  });
});

function answer(method, url, h, now) {
  if (url !== '/v1/svc/time') return [404, -404, 'no such endpoint'];
  if (method !== 'POST' && method !== 'GET') return [405, -405, 'method not allowed'];
  if (!h.authorization) return [401, -4000, 'Authorization header missing'];
  const auth = AUTH.exec(h.authorization);
  if (!auth) return [401, -4001, 'Authorization header malformed'];
  const [, apiUser, signed, algorithm, signature] = auth;
  const utctime = h['x-svc-utctime'];
  const nonce = h['x-svc-cnonce'];
  if (!/^\d{1,16}$/.test(utctime ?? '')) return [401, -4005, 'x-svc-utctime malformed'];
  if (!/^[A-Za-z0-9_-]{8,128}$/.test(nonce ?? '')) return [401, -4007, 'x-svc-cnonce malformed'];
  if (h['x-svc-apiuser'] !== apiUser) return [401, -4029, 'apiuser differs'];
  if (algorithm.toLowerCase() !== 'svc-hmac512') return [401, -4031, 'algorithm not supported'];
  if (signed.toLowerCase() !== 'x-svc-utctime;x-svc-cnonce') return [401, -4033, 'signedheaders not as signed'];
  const user = users.get(apiUser);
  if (!user) return [400, -1001, 'API user not known'];
  const time = Number(utctime);
  if (Math.abs(time - now) > DRIFT_MS) return [401, -4036, 'utctime clock drift error'];
  const expected = createHmac('sha512', user.secret).update(`x-svc-utctime: ${utctime}\nx-svc-cnonce: ${nonce}`);
  if (!timingSafeEqual(expected.digest(), Buffer.from(signature, 'hex'))) return [400, -4037, 'Signature error'];
  if (user.nonces.has(nonce)) return [401, -4034, 'nonce reused'];
  if (user.times.has(time)) return [401, -4035, 'utctime reused'];
  user.nonces.add(nonce);
  user.times.add(time);
  return [200, 15000, JSON.stringify({ 'utc-time': String(Math.floor(now / 1000)) })];
}

server.listen(0, '127.0.0.1', () => console.log(`floor listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
