// The floor for a new challenge without QR (bench/floor.ts says what the floor is and does): what a faithful server
// cannot skip for one beyond a signed request's checks. Its body read whole and parsed as JSON; the envelope's type
// and API user and the body's user, challenge type and expiry checked against the contract's tables; a challenge made
// (a random id, its times) and kept in a Map bounded at 10,000 as mfa-sim keeps them, the oldest forgotten; its id and
// link answered. Not a target of its own: the benchmark shows how far below the floor's signed time a new challenge is
// for the least server that makes one, and how far mfa-sim is from it.
//   node --import tsx bench/challenge-floor.ts <port>
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { CHALLENGE_TYPES, EXPIRY_MS } from '../src/contract/operations.js';
import { serveFloor, signedRefusal, type FloorAnswer } from './floor.js';

const KEPT = 10_000;
const challenges = new Map<string, object>();
const order = new Array<string>(KEPT);
let oldest = 0;

/** The body's fields a new challenge needs, or undefined when one is missing or not as the contract's tables say. */
function challengeOf(text: string, apiUser: string): { user: string; type: string; expiryMs: number } | undefined {
  let env: unknown;
  try {
    env = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof env !== 'object' || env === null) return undefined;
  const { type, apiUser: sentApiUser, body } = env as { type?: unknown; apiUser?: unknown; body?: unknown };
  if (type !== 150 || String(sentApiUser) !== apiUser || typeof body !== 'object' || body === null) return undefined;
  const { svcUser, challengeType, challengeExpiry } = body as Record<string, unknown>;
  if (typeof svcUser !== 'string' || !svcUser.includes('@')) return undefined;
  if (typeof challengeType !== 'string' || !(CHALLENGE_TYPES as readonly string[]).includes(challengeType))
    return undefined;
  if (typeof challengeExpiry !== 'string' || !Object.prototype.hasOwnProperty.call(EXPIRY_MS, challengeExpiry))
    return undefined;
  return { user: svcUser, type: challengeType, expiryMs: EXPIRY_MS[challengeExpiry] };
}

/** The checks of a new challenge request, in the contract's order, and its answer. */
function checked(req: IncomingMessage, now: number, text: string, port: number): FloorAnswer {
  if (req.url !== '/v1/svc/challenge') return [404, -404, 'no endpoint'];
  const refusal = signedRefusal(req, now);
  if (refusal) return refusal;
  const apiUser = req.headers['x-svc-apiuser'] as string;
  const asked = challengeOf(text, apiUser);
  if (!asked) return [400, -5000, 'not a new challenge as the contract writes one'];
  const id = randomUUID();
  challenges.set(id, { id, apiUser, ...asked, createdAt: now, expiresAt: now + asked.expiryMs, state: 'waiting' });
  const forgotten = order[oldest];
  if (forgotten !== undefined) challenges.delete(forgotten);
  order[oldest] = id;
  oldest = (oldest + 1) % KEPT;
  return [202, 2025, JSON.stringify({ challengeId: id, challengeQRcodeUrl: `http://127.0.0.1:${port}/phone/${id}` })];
}

serveFloor('challenge floor', checked, true);
