/**
 * `mfa-sim/client`: a typed client of the simulated service, signing with the simulator's own signing function; it
 * returns the response envelope with `message` parsed. Needs only `node:crypto` and the global `fetch`.
 *
 * @packageDocumentation
 * @module mfa-sim/client
 */
import { DEFAULT_TOKEN, signedHeaders, userKeyOf } from './auth/signature.js';
import { API_USER_ID, API_USER_ID_RULE } from './contract/api-user.js';
import { ClientError, OptionsError } from './contract/errors.js';

export { ClientError, isMfaSimError, OptionsError, type MfaSimErrorCode } from './contract/errors.js';

/** The challenge types a new challenge may ask for. */
export type ChallengeType =
  'UserKeyAndPattern' | 'UserKeyPatternAndPin' | 'UserKeyAndUserPin' | 'UserKeyAndUserFace' | 'UserKeyAndUserVoice';
/** How long a new challenge waits for the user (the lenient simulator also takes TenMins and SixtyMins). */
export type ChallengeExpiry = 'ThreeMins' | 'FiveMins' | 'FifteenMins' | 'ThirtyMins';

/** How a client reaches and signs for the service. */
export interface ClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080` (a running simulator's `url`). */
  baseUrl: string;
  /** The API user: 9 digits. */
  apiUser: string;
  /** The API user's secret. */
  secret: string;
  /** The identifier token in header names, scheme, algorithm and the user field. Default `svc`. */
  token?: string;
  /** How the server spells the time key of its answers: `document` (`utctime`) or `sdk` (`utcTime`). */
  responseStyle?: 'document' | 'sdk';
  /** On -4036 (clock drift), correct this client's clock by the server's `utctime` and retry once. */
  correctClock?: boolean;
  /** Headers added to every request (e.g. `x-sim-scenario` to pick a scenario per request). */
  headers?: Record<string, string>;
  /** This client's clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /** The fetch to use. Default the global `fetch`. */
  fetch?: typeof fetch;
}

/** The fields every answer carries (the response envelope of the interface document). */
interface EnvelopeFields {
  /** Your `id`, or the simulator's `sim-<n>`. */
  id: string;
  /** The server's time (ISO 8601), read from `utctime` or `utcTime`. */
  utctime: string;
  /** HTTP status, as the envelope states it (equal to the HTTP status of the response). */
  status: number;
  code: number;
  /** The message exactly as sent: JSON text for a success, a sentence for an error. */
  text: string;
  moreInfo: string;
  /** Whether this answer came from the retry after a clock correction. */
  retried: boolean;
}

/** A success (positive code): `message` is the parsed JSON of the message text. */
export interface Success<T> extends EnvelopeFields {
  ok: true;
  message: T;
}

/** An error (negative code): `message` is the sentence the server sent. */
export interface Failure extends EnvelopeFields {
  ok: false;
  message: string;
}

/** An answer: a success with its parsed message, or an error with its sentence. */
export type Answer<T> = Success<T> | Failure;

/** The message of 2025, a new challenge. */
export interface NewChallengeMessage {
  challengeId: string;
  challengeQRcodeUrl: string;
  /** A `data:image/png;base64,...` URL, present when `enableQRcode` was true. */
  challengeQRcode?: string;
}
/** The message of 2028, a cancelled challenge. */
export interface CancelMessage {
  status: 'CANCELLED';
}
/** The message of 15000, the server's time. */
export interface TimeMessage {
  /** Whole seconds since the epoch, as text. */
  'utc-time': string;
}
/** The message of 3080, an approved (status) or verified (verify) challenge. */
export interface StatusMessage {
  challengeId: string;
  status: 'APPROVED' | 'VERIFIED';
}
/** The message of 6020, nothing blocks the user. */
export interface BlockedMessage {
  blocked: boolean;
}

/** What a new challenge (type 150) sends. */
export interface NewChallengeRequest {
  /** The user's e-mail address (sent as `<token>User`). */
  user: string;
  challengeType: ChallengeType;
  challengeExpiry?: ChallengeExpiry;
  enableQRcode?: boolean;
  enableAutoVerify?: boolean;
  profile?: string;
  ipAddress?: string;
  /** The envelope's `id` (up to 25 characters). */
  id?: string;
}
/** A challenge of a user, for cancel and status. */
export interface ChallengeRef {
  user: string;
  challengeId: string;
  id?: string;
}
/** A challenge and the code the user was shown, for verify. */
export interface VerifyRequest extends ChallengeRef {
  authCode: string;
}
/** A user and an address, for the blocked check. */
export interface BlockedRequest {
  user: string;
  ipAddress: string;
  id?: string;
}

/** A client of the service: one method per operation, each resolving to the answer. */
export interface MfaClient {
  /** POST /v1/svc/challenge, type 150: 2025 with the challenge id and QR code. */
  newChallenge(req: NewChallengeRequest): Promise<Answer<NewChallengeMessage>>;
  /** POST /v1/svc/challenge, type 151: 2028 when the challenge was waiting. */
  cancel(req: ChallengeRef): Promise<Answer<CancelMessage>>;
  /** GET /v1/svc/time: 15000 with the server's time in whole seconds. */
  time(): Promise<Answer<TimeMessage>>;
  /** POST /v1/svc/status, type 171: 3080 once approved, -3091 while waiting, -3092 when it ended otherwise. */
  status(req: ChallengeRef): Promise<Answer<StatusMessage>>;
  /** POST /v1/svc/verify, type 170: 3080 when the auth code matches. */
  verify(req: VerifyRequest): Promise<Answer<StatusMessage>>;
  /** POST /v1/svc/blocked, type 950: 6020 when nothing blocks the user at the address. */
  blocked(req: BlockedRequest): Promise<Answer<BlockedMessage>>;
  /** Milliseconds added to this client's clock when signing (changed by a clock correction). */
  clockOffset: number;
}

/** A field of an answer as text: a string as it is, anything else as JSON (never `[object Object]`), absent as ''. */
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);

const DRIFT = -4036;
/** The time key of an answer, by the server's response style (either, when the style is not given). */
const TIME_KEYS = { document: 'utctime', sdk: 'utcTime' } as const;

/** A client of the simulated service (or of the real one: it sends what the interface document shows). */
export function createClient(options: ClientOptions): MfaClient {
  if (!API_USER_ID.test(options.apiUser)) throw new OptionsError([{ path: ['apiUser'], message: API_USER_ID_RULE }]);
  if (typeof options.secret !== 'string' || options.secret === '')
    throw new OptionsError([{ path: ['secret'], message: 'must be a non-empty string' }]);
  const base = new URL(options.baseUrl).toString().replace(/\/+$/, '');
  const token = options.token ?? DEFAULT_TOKEN;
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const userKey = userKeyOf(token);
  let lastTime = 0;

  const client: MfaClient = {
    clockOffset: 0,
    newChallenge: (r) => {
      const body: Record<string, unknown> = { [userKey]: r.user, challengeType: r.challengeType };
      for (const k of ['challengeExpiry', 'enableQRcode', 'enableAutoVerify', 'profile', 'ipAddress'] as const)
        if (r[k] !== undefined) body[k] = r[k];
      return call('challenge', 150, body, r.id);
    },
    cancel: (r) => call('challenge', 151, { [userKey]: r.user, challengeId: r.challengeId, status: 'CANCEL' }, r.id),
    time: () => call('time'),
    status: (r) => call('status', 171, { [userKey]: r.user, challengeId: r.challengeId }, r.id),
    verify: (r) => call('verify', 170, { [userKey]: r.user, challengeId: r.challengeId, authCode: r.authCode }, r.id),
    blocked: (r) => call('blocked', 950, { [userKey]: r.user, ipAddress: r.ipAddress }, r.id),
  };

  /** Signing time: the corrected clock, never the same millisecond twice (the server refuses a reused timestamp). */
  function signingTime(): number {
    const t = Math.max(Math.trunc(now() + client.clockOffset), lastTime + 1);
    lastTime = t;
    return t;
  }

  async function send<T>(
    endpoint: string,
    type: number | undefined,
    body: Record<string, unknown> | undefined,
    id: string | undefined,
    retried: boolean,
  ): Promise<Answer<T>> {
    const time = signingTime();
    const headers: Record<string, string> = {
      ...options.headers,
      ...signedHeaders({ apiUser: options.apiUser, secret: options.secret, token, time }),
    };
    let payload: string | undefined;
    if (type !== undefined) {
      headers['content-type'] = 'application/json';
      const envelope: Record<string, unknown> = { utctime: String(time), apiUser: options.apiUser, type, body };
      if (id !== undefined) envelope.id = id;
      payload = JSON.stringify(envelope);
    }
    const res = await doFetch(`${base}/v1/svc/${endpoint}`, {
      method: payload === undefined ? 'GET' : 'POST',
      headers,
      body: payload,
    });
    return read<T>(res.status, await res.text(), retried);
  }

  async function call<T>(
    endpoint: string,
    type?: number,
    body?: Record<string, unknown>,
    id?: string,
  ): Promise<Answer<T>> {
    const first = await send<T>(endpoint, type, body, id, false);
    if (first.code !== DRIFT || !options.correctClock) return first;
    const server = Date.parse(first.utctime);
    if (!Number.isFinite(server)) return first;
    // The answer left the server about now: the difference is the drift (to within the round trip).
    client.clockOffset += server - (now() + client.clockOffset);
    lastTime = 0; // a new time frame: the refused timestamps were never remembered by the server
    return send<T>(endpoint, type, body, id, true);
  }

  function read<T>(httpStatus: number, text: string, retried: boolean): Answer<T> {
    let env: Record<string, unknown>;
    try {
      env = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ClientError(`HTTP ${httpStatus}: the answer is not JSON`, httpStatus, text);
    }
    if (env === null || typeof env !== 'object')
      throw new ClientError(`HTTP ${httpStatus}: the answer is not an envelope`, httpStatus, text);
    const timeKey = options.responseStyle ? [TIME_KEYS[options.responseStyle]] : Object.values(TIME_KEYS);
    const utctime = timeKey.map((k) => env[k]).find((v) => typeof v === 'string');
    const { id, status, code, message, moreInfo } = env;
    if (
      typeof code !== 'number' ||
      typeof message !== 'string' ||
      typeof utctime !== 'string' ||
      typeof status !== 'number'
    ) {
      throw new ClientError(
        `HTTP ${httpStatus}: the answer is not an envelope with code, message, ${timeKey.join(' or ')} and status`,
        httpStatus,
        text,
      );
    }
    const fields: EnvelopeFields = {
      id: asText(id),
      utctime,
      status,
      code,
      text: message,
      moreInfo: asText(moreInfo),
      retried,
    };
    if (code < 0) return { ...fields, ok: false, message };
    try {
      return { ...fields, ok: true, message: JSON.parse(message) as T };
    } catch {
      throw new ClientError(
        `code ${code}: the message of a success is not JSON: ${message.slice(0, 200)}`,
        httpStatus,
        text,
      );
    }
  }

  return client;
}
