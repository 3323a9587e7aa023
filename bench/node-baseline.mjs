// The physical limit of the platform: a bare node:http server answering every request with one fixed JSON envelope
// (the shape and size of a time answer). It reads nothing, routes nothing and checks nothing.
//   node bench/node-baseline.mjs <port> [<work µs> | hmac]
// With a work time, it spins that long before each answer: the budget table (bench/budget.ts) shows what a fixed
// amount of work per request costs on this machine, the network included. With `hmac`, it checks each request's
// signature before answering, and nothing else: the least work the contract asks of a server, done the fastest way
// Node offers (the key's pads made once, then two one-shot SHA-512 hashes), for the same table.
import { createHash, hash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const BODY = JSON.stringify({
  id: 'sim-1',
  utctime: '2026-01-01T00:00:00.000Z',
  status: 200,
  code: 15000,
  message: '{"utc-time":"1767225600"}',
  moreInfo: 'http://127.0.0.1:8080/status?code=15000',
});
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) };
const REFUSED = JSON.stringify({
  id: 'sim-1',
  utctime: '2026-01-01T00:00:00.000Z',
  status: 400,
  code: -4037,
  message: 'Signature error',
  moreInfo: '',
});
const mode = process.argv[3] ?? '0';
const WORK_NS = mode === 'hmac' ? 0n : BigInt(Math.round(Number(mode) * 1000));

function work() {
  const until = process.hrtime.bigint() + WORK_NS;
  while (process.hrtime.bigint() < until);
}

/** Where the inner hash's input is put together (the signed lines of a request are far shorter than this). */
const scratch = Buffer.alloc(4096);

/** HMAC-SHA512 pads per API user, made once: the benchmark's API user 90000nnnn signs with bench-secret-n. */
const pads = new Map();
function padsOf(apiUser) {
  let p = pads.get(apiUser);
  if (!p) {
    const block = Buffer.alloc(128);
    const key = Buffer.from(`bench-secret-${Number(apiUser) - 900_000_000}`);
    (key.length > 128 ? createHash('sha512').update(key).digest() : key).copy(block);
    p = { inner: Buffer.from(block.map((b) => b ^ 0x36)), outer: Buffer.alloc(192) };
    for (let i = 0; i < 128; i++) p.outer[i] = block[i] ^ 0x5c;
    pads.set(apiUser, p);
  }
  return p;
}

/** Whether the request's signature is HMAC-SHA512 of its two signed header lines under its API user's secret. */
function signed(req) {
  const h = req.headers;
  const sig = /signature=([0-9a-fA-F]{128})/.exec(h.authorization ?? '')?.[1];
  if (!sig || !/^\d{9}$/.test(h['x-svc-apiuser'] ?? '')) return false;
  const p = padsOf(h['x-svc-apiuser']);
  // The inner pad and the message put together in one scratch buffer, as mfa-sim's HmacKey does: no concatenation.
  p.inner.copy(scratch, 0);
  const length =
    128 + scratch.write(`x-svc-utctime: ${h['x-svc-utctime']}\nx-svc-cnonce: ${h['x-svc-cnonce']}`, 128, 'utf8');
  hash('sha512', scratch.subarray(0, length), 'buffer').copy(p.outer, 128);
  return timingSafeEqual(hash('sha512', p.outer, 'buffer'), Buffer.from(sig, 'hex'));
}

const server = createServer((req, res) => {
  // The request is read to its end, as any server must before the connection is reused.
  req.resume();
  req.on('end', () => {
    if (WORK_NS > 0n) work();
    if (mode === 'hmac' && !signed(req)) {
      res.writeHead(400, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(REFUSED),
      });
      res.end(REFUSED);
      return;
    }
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`node:http listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
