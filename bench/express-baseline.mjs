// Bare Express 5 with default settings: every POST /v1/svc/<op> answered with one fixed JSON envelope (the shape and
// size of a time answer). It reads nothing and checks nothing.
import express from 'express';

const FIXED = JSON.parse(
  '{"id":"sim-1","utctime":"2026-01-01T00:00:00.000Z","status":200,"code":15000,"message":"{\\"utc-time\\":\\"1767225600\\"}","moreInfo":"http://127.0.0.1:8080/status?code=15000"}',
);
const app = express();
app.post('/v1/svc/:op', (_req, res) => void res.json(FIXED));
const server = app.listen(0, '127.0.0.1', () =>
  console.log(`express listening on http://127.0.0.1:${server.address().port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
