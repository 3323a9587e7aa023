/** The one table of status codes: responses, /status pages, README, OpenAPI and coverage are generated from it. */
import { InternalError } from './errors.js';

/** Every operation, in the order the README lists them. */
export const OPERATIONS = ['challenge', 'cancel', 'time', 'status', 'verify', 'blocked'] as const;
/** An operation of the service: what a request asks for, chosen by endpoint and envelope `type`. */
export type Operation = (typeof OPERATIONS)[number];

/** The named checks of the request path, in the order they run (docs/behaviour.md#order-of-checks). */
export const CHECKS = [
  'transport', // what the HTTP layer answers before the service is reached: parse errors, size limits
  'internal', // an internal failure (forced only: a real one is an exception turned into -5000)
  'route', // path and method
  'authorization-header', // Authorization present and shaped as scheme + parts
  'utctime-header',
  'nonce-header',
  'apiuser-header',
  'signature-part',
  'apiuser-part',
  'algorithm-part',
  'signedheaders-part',
  'api-user-known',
  'api-user-usable',
  'drift',
  'signature',
  'nonce-reuse',
  'timestamp-reuse',
  'permission',
  'envelope',
  'body',
  'ip-rules',
  'auto-verify',
  'account',
  'operation',
] as const;
export type CheckName = (typeof CHECKS)[number];

/** Where a code comes from (docs/behaviour.md#beyond-the-document-status-verify-blocked). */
export type CodeSource = 'contract' | 'vendor' | 'simulator';

/** One row of the code table. */
export interface CodeInfo {
  code: number;
  http: number;
  /** Short meaning, as the interface document words it. */
  title: string;
  /** Plain words: when the simulator answers it, and what a client should do. */
  explain: string;
  check: CheckName;
  /** Operations on which the real service can answer this code; undefined = every request. */
  scope?: readonly Operation[];
  source: CodeSource;
  /** For account codes (-2xxx): the account state name that produces it (docs/behaviour.md#accounts-and-api-users). */
  accountState?: string;
}

/** The operations whose request carries an envelope, a body and a user: every one but time. */
const BODY_OPS: readonly Operation[] = OPERATIONS.filter((op) => op !== 'time');

const account = (code: number, state: string, title: string, explain: string): CodeInfo => ({
  code,
  http: 400,
  title,
  explain: `${explain} The simulator answers it when the user's account is in the state \`${state}\` (scenario key \`accounts\` or \`defaultAccountState\`).`,
  check: 'account',
  scope: BODY_OPS,
  source: 'contract',
  accountState: state,
});

const header = (code: number, check: CheckName, title: string, explain: string): CodeInfo => ({
  code,
  http: 400,
  title,
  explain,
  check,
  source: 'contract',
});

/** The table. Order is the README's order: successes, then errors in the order of the contract's table. */
// prettier-ignore
export const CODES: readonly CodeInfo[] = [
  // Successes.
  { code: 2025, http: 202, title: 'New challenge accepted', explain: 'The challenge was sent to the user. `message` is the JSON text of `{challengeId, challengeQRcodeUrl, challengeQRcode}` (the image only when `enableQRcode` is true).', check: 'operation', scope: ['challenge'], source: 'contract' },
  { code: 2028, http: 202, title: 'Challenge cancelled', explain: 'The challenge was waiting and is now cancelled. `message` is the JSON text of `{"status":"CANCELLED"}`.', check: 'operation', scope: ['cancel'], source: 'contract' },
  { code: 15000, http: 200, title: 'Current UTC time returned', explain: "`message` is the JSON text of `{\"utc-time\":\"<whole epoch seconds>\"}`, read from the simulator's virtual clock (a scenario may set it off on purpose).", check: 'operation', scope: ['time'], source: 'contract' },
  { code: 3080, http: 200, title: 'Verified', explain: 'Status or verify: the user approved the challenge (and, for verify, the auth code matched). `message` is the JSON text of `{challengeId, status}` with status `APPROVED` or `VERIFIED`.', check: 'operation', scope: ['status', 'verify'], source: 'vendor' },
  { code: 6020, http: 200, title: 'Not blocked', explain: "Blocked check: no IP or user block rule stops this user at this address. The vendor's material shows no code for this answer; this one is the simulator's.", check: 'operation', scope: ['blocked'], source: 'simulator' },

  // API user.
  { code: -1001, http: 400, title: 'API user validation error', explain: 'The API user named in the headers is not known to the simulator. Check the id, or add it under `apiUsers`.', check: 'api-user-known', source: 'contract' },
  { code: -1003, http: 400, title: 'API user validation error', explain: "The API user exists but is not usable (its `state` is not `active`), or the envelope's `apiUser` is missing or differs from the authenticated one.", check: 'api-user-usable', source: 'contract' },
  { code: -1026, http: 400, title: 'API user permissions error', explain: 'The API user may not call this operation: its `permissions` list lacks it.', check: 'permission', source: 'contract' },
  { code: -1095, http: 400, title: 'API user auto-verify disabled', explain: 'The request asked for `enableAutoVerify` but the API user lacks the `autoVerify` permission.', check: 'auto-verify', scope: ['challenge'], source: 'contract' },

  // Account.
  account(-2003, 'invalid', 'Account validation error', 'The user e-mail is not a valid account.'),
  account(-2004, 'blocked', 'Account blocked', 'The account is blocked.'),
  account(-2005, 'tooManyFailedAttempts', 'Account too many failed attempts', 'The account has had too many failed attempts.'),
  account(-2006, 'locked', 'Account locked', 'The account is locked.'),
  account(-2007, 'disabled', 'Account disabled', 'The account is disabled.'),
  account(-2008, 'notActive', 'Account not active', 'The account is not active yet.'),
  account(-2009, 'lockedOut', 'Account locked', 'The account is locked out.'),
  account(-2010, 'temporarilyDisabled', 'Account temporarily disabled', 'The account is temporarily disabled.'),
  account(-2017, 'lockEnabled', 'Account lock enabled', 'The user has switched the account lock on.'),
  account(-2038, 'lockdown', 'Account lockdown activated', 'The account is in lockdown.'),

  // Challenge.
  { code: -2035, http: 400, title: 'Challenge cancelled error', explain: 'The cancel failed: the challenge is unknown, already cancelled or finished (approved, denied, expired), or belongs to another user or API user.', check: 'operation', scope: ['cancel'], source: 'contract' },

  // Headers.
  header(-4000, 'authorization-header', 'Authorization header missing', 'No `Authorization` header was sent.'),
  header(-4001, 'authorization-header', 'Authorization header format error', 'The `Authorization` header is not `<token>-hmac: key=value,...`: wrong scheme, or its parts are not comma-separated `key=value` pairs.'),
  header(-4004, 'utctime-header', 'x-svc-utctime header missing', 'The `x-<token>-utctime` header is missing or empty.'),
  header(-4005, 'utctime-header', 'x-svc-utctime header format error', 'The `x-<token>-utctime` header is not 1 to 16 decimal digits (milliseconds since the epoch).'),
  header(-4006, 'nonce-header', 'Nonce header missing', 'The `x-<token>-cnonce` header is missing or empty.'),
  header(-4007, 'nonce-header', 'Nonce header format error', 'The `x-<token>-cnonce` header is not 8 to 128 letters, digits, `-` or `_`.'),
  header(-4008, 'apiuser-header', 'x-svc-apiuser header missing', 'The `x-<token>-apiuser` header is missing or empty.'),
  header(-4009, 'apiuser-header', 'x-svc-apiuser header format error', 'The `x-<token>-apiuser` header is not exactly 9 digits.'),

  // Authorization parts.
  header(-4026, 'signature-part', 'Authorization signature missing', 'The `signature=` part of `Authorization` is absent or empty.'),
  header(-4027, 'signature-part', 'Authorization signature format error', 'The `signature=` part is not 128 hexadecimal characters (an HMAC-SHA512 written as hex). Some published clients put the text of an object here.'),
  header(-4028, 'apiuser-part', 'Authorization apiuser missing', 'The `apiuser=` part of `Authorization` is absent or empty.'),
  header(-4029, 'apiuser-part', 'Authorization apiuser format error', 'The `apiuser=` part is not exactly 9 digits, or differs from the `x-<token>-apiuser` header.'),
  header(-4030, 'algorithm-part', 'Authorization algorithm missing', 'The `algorithm=` part of `Authorization` is absent or empty.'),
  header(-4031, 'algorithm-part', 'Authorization algorithm format error', 'The `algorithm=` part is not `<token>-hmac512`.'),
  header(-4032, 'signedheaders-part', 'Authorization signed headers missing', 'The `signedheaders=` part of `Authorization` is absent or empty.'),
  header(-4033, 'signedheaders-part', 'Authorization signed headers format error', 'The `signedheaders=` part is not exactly `x-<token>-utctime;x-<token>-cnonce`.'),

  // Replay, drift, signature.
  header(-4034, 'nonce-reuse', 'Nonce reused', 'This API user already sent this nonce inside the drift window. Make a fresh nonce (a UUID) for every request, retries included.'),
  header(-4035, 'timestamp-reuse', 'Timestamp reused', "This API user already sent this `x-<token>-utctime` value: two requests signed in the same millisecond collide, as on the real service. A scenario can switch this check off (`replay.timestamps: false`)."),
  header(-4036, 'drift', 'utctime clock drift error', "`x-<token>-utctime` is further from the simulator's clock than the allowed drift (default ±5 minutes, scenario key `clock.maxDrift`). A client can read the server's time from the time endpoint and correct its clock."),
  header(-4037, 'signature', 'Signature error', "The signature does not verify with the API user's secret. The simulator's log and journal show the exact string it expected to be signed (never the secret)."),

  // Envelope and body.
  { code: -5070, http: 400, title: 'Request JSON null body', explain: 'The request has no JSON envelope, or its `body` is null or absent.', check: 'envelope', scope: BODY_OPS, source: 'contract' },
  { code: -5071, http: 400, title: 'Request JSON body type error', explain: 'The request is not JSON, or `body` is not an object (strict mode: a body written as a string is refused here too).', check: 'envelope', scope: BODY_OPS, source: 'contract' },
  { code: -5072, http: 400, title: 'Request JSON body type unknown', explain: "The envelope's `type` is not an operation of this endpoint (150 or 151 on challenge, 171 on status, 170 on verify, 950 on blocked).", check: 'envelope', scope: BODY_OPS, source: 'contract' },
  { code: -5075, http: 400, title: 'Challenge request body error', explain: 'A field has the wrong type or value: `id` over 25 characters, user over 125, a wrong `status`, an unknown `challengeExpiry`, a missing `challengeId`, a missing or malformed `ipAddress` when the API user has IP rules; in strict mode also any key the document does not show.', check: 'body', scope: BODY_OPS, source: 'contract' },
  { code: -5076, http: 400, title: 'Challenge request challenge type error', explain: '`challengeType` is not one of UserKeyAndPattern, UserKeyPatternAndPin, UserKeyAndUserPin, UserKeyAndUserFace, UserKeyAndUserVoice.', check: 'body', scope: ['challenge'], source: 'contract' },
  { code: -5077, http: 400, title: 'Challenge request body missing user', explain: 'The body has no `<token>User` (the user e-mail).', check: 'body', scope: BODY_OPS, source: 'contract' },
  { code: -5078, http: 400, title: 'Challenge request body missing challenge type', explain: 'The body has no `challengeType`.', check: 'body', scope: ['challenge'], source: 'contract' },
  { code: -5079, http: 400, title: 'Challenge request body invalid e-mail address', explain: 'The user field is not a valid e-mail address (lenient mode also accepts one written in Base64).', check: 'body', scope: BODY_OPS, source: 'contract' },

  // IP rules.
  { code: -6021, http: 400, title: 'Request blocked: IP address location blocked', explain: "The body's `ipAddress` is blocked by the API user's `ipRules` (in a block list and no allow list, or outside a given allow list).", check: 'ip-rules', scope: ['challenge', 'blocked'], source: 'contract' },

  // Lifecycle (docs/behaviour.md#beyond-the-document-status-verify-blocked).
  { code: -3087, http: 400, title: 'Auth-code verification error', explain: 'Verify: the auth code does not match the one the user was shown. Status or verify: the challenge is unknown to this API user and user.', check: 'operation', scope: ['status', 'verify'], source: 'vendor' },
  { code: -3091, http: 400, title: 'Verification still waiting', explain: 'The user has not answered the challenge yet: poll again later.', check: 'operation', scope: ['status', 'verify'], source: 'vendor' },
  { code: -3092, http: 400, title: 'Rejected', explain: 'The challenge ended without approval: the user denied it, it expired, or it was cancelled (`message` says which).', check: 'operation', scope: ['status', 'verify'], source: 'vendor' },

  // Internal.
  { code: -5000, http: 500, title: 'Internal error', explain: 'An internal failure, answered with HTTP 500. The simulator answers it only when a scenario forces it, or for a bug of its own (which its log then shows).', check: 'internal', source: 'contract' },

  // What the HTTP layer answers before the service is reached.
  { code: -400, http: 400, title: 'Malformed HTTP request', explain: 'The bytes received are not a valid HTTP/1.1 request. The connection is closed after this answer.', check: 'transport', source: 'simulator' },
  { code: -404, http: 404, title: 'Not found', explain: 'No endpoint at this path. The service serves `/v1/svc/challenge`, `/time`, `/status`, `/verify` and `/blocked`.', check: 'route', source: 'simulator' },
  { code: -405, http: 405, title: 'Method not allowed', explain: 'The endpoint exists but not for this method: every endpoint takes POST, and the time endpoint GET too.', check: 'route', source: 'simulator' },
  { code: -408, http: 408, title: 'Request timeout', explain: 'The request (headers and body) did not arrive in time; the connection is closed.', check: 'transport', source: 'simulator' },
  { code: -413, http: 413, title: 'Payload too large', explain: 'The request body is larger than the limit (64 KiB by default).', check: 'transport', source: 'simulator' },
  { code: -431, http: 431, title: 'Request header fields too large', explain: "The header block is larger than Node's limit (16 KiB by default); the connection is closed.", check: 'transport', source: 'simulator' },
];

const byCode = new Map(CODES.map((c) => [c.code, c]));

/** The row for a code, or undefined when the code is not in the table. */
export function codeInfo(code: number): CodeInfo | undefined {
  return byCode.get(code);
}

/** The row for a code that must exist (a bug otherwise). */
export function mustCode(code: number): CodeInfo {
  const info = byCode.get(code);
  if (!info) throw new InternalError(`code ${code} is not in the code table`);
  return info;
}

/** Whether a code is the HTTP layer's own answer (bad path, bad bytes, limits) rather than the service's. */
export function isTransportCode(info: CodeInfo): boolean {
  return info.check === 'transport' || info.check === 'route';
}

/** Codes a client can meet from the service itself: what status coverage counts. */
export const SERVICE_CODES: readonly number[] = CODES.filter((c) => !isTransportCode(c)).map((c) => c.code);

/** Account state name -> its -2xxx code. `active` has no code. */
export const ACCOUNT_STATES: ReadonlyMap<string, number> = new Map(
  CODES.filter((c) => c.accountState).map((c) => [c.accountState as string, c.code]),
);

/** Whether a code can be answered for an operation (undefined operation: not yet known). */
export function codeApplies(info: CodeInfo, op: Operation | undefined): boolean {
  return !info.scope || (op !== undefined && info.scope.includes(op));
}
