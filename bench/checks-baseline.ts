// The floor for a signed time request (bench/floor.ts says what the floor is and does): the route, the signed
// request's checks, and the service's time.
//   node --import tsx bench/checks-baseline.ts <port>
import type { IncomingMessage } from 'node:http';
import { serveFloor, signedRefusal, type FloorAnswer } from './floor.js';

/** The checks of a signed time request, in the contract's order, and its answer. */
function checked(req: IncomingMessage, now: number): FloorAnswer {
  if (req.url !== '/v1/svc/time') return [404, -404, 'no endpoint'];
  return signedRefusal(req, now) ?? [200, 15000, `{"utc-time":"${Math.floor(now / 1000)}"}`];
}

serveFloor('checks baseline', checked, false);
