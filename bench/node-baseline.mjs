// The physical limit of the platform: a bare node:http server answering every request with one fixed JSON envelope
// (the shape and size of a time answer). It reads nothing, routes nothing and checks nothing.
//   node bench/node-baseline.mjs <port> [<work µs>]
// With a work time, it spins that long before each answer: the budget table (bench/budget.ts) shows what a fixed
// amount of work per request costs on this machine, the network included.
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
const WORK_NS = BigInt(Math.round(Number(process.argv[3] ?? 0) * 1000));

function work() {
  const until = process.hrtime.bigint() + WORK_NS;
  while (process.hrtime.bigint() < until);
}

const server = createServer((req, res) => {
  // The request is read to its end, as any server must before the connection is reused.
  req.resume();
  req.on('end', () => {
    if (WORK_NS > 0n) work();
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`node:http listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
