import type { Operation } from './codes.js';

/**
 * The service's endpoints, envelope types and challenge values: which operation each endpoint and `type` name.
 */

/** The endpoints under `/v1/svc/`. */
export type Endpoint = 'challenge' | 'time' | 'status' | 'verify' | 'blocked';
export const ENDPOINTS: readonly Endpoint[] = ['challenge', 'time', 'status', 'verify', 'blocked'];

/**
 * Envelope `type` values and the operation each selects (docs/behaviour.md#leniency-and-body-checks,
 * #beyond-the-document-status-verify-blocked).
 */
export const TYPE_OPERATION: ReadonlyMap<number, Operation> = new Map([
  [150, 'challenge'],
  [151, 'cancel'],
  [990, 'time'],
  [171, 'status'],
  [170, 'verify'],
  [950, 'blocked'],
]);

export const OPERATION_TYPE: Readonly<Record<Operation, number>> = {
  challenge: 150,
  cancel: 151,
  time: 990,
  status: 171,
  verify: 170,
  blocked: 950,
};

/**
 * The `type` values each endpoint serves. Type 950 on the challenge endpoint is accepted when lenient
 * (docs/behaviour.md#leniency-and-body-checks).
 */
export function endpointTypes(endpoint: Endpoint, strict: boolean): readonly number[] {
  switch (endpoint) {
    case 'challenge':
      return strict ? [150, 151] : [150, 151, 950];
    case 'time':
      return [990];
    case 'status':
      return [171];
    case 'verify':
      return [170];
    case 'blocked':
      return [950];
  }
}

/** Methods each endpoint answers: POST everywhere, and GET on time, which the published clients send. */
export function endpointMethods(endpoint: Endpoint): readonly string[] {
  return endpoint === 'time' ? ['POST', 'GET'] : ['POST'];
}

/**
 * The path prefix of every endpoint. The path is the same whatever the identifier token (the clients send `/v1/svc/`
 * with their own token).
 */
const API_PREFIX = '/v1/svc/';

/**
 * The endpoint a path names, or undefined: under `/v1/svc/`, or under `/v1/<token>/` (a client set up for a deployment
 * that puts its own name in the path as well). A trailing slash and a query string are ignored.
 */
export function endpointOf(path: string, token: string): Endpoint | undefined {
  const prefix = path.startsWith(API_PREFIX)
    ? API_PREFIX.length
    : path.startsWith(`/v1/${token}/`)
      ? token.length + 5
      : -1;
  if (prefix < 0) return undefined;
  let rest = path.slice(prefix);
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  return (ENDPOINTS as readonly string[]).includes(rest) ? (rest as Endpoint) : undefined;
}

export const CHALLENGE_TYPES = [
  'UserKeyAndPattern',
  'UserKeyPatternAndPin',
  'UserKeyAndUserPin',
  'UserKeyAndUserFace',
  'UserKeyAndUserVoice',
] as const;

/**
 * challengeExpiry values and their length; TenMins and SixtyMins are sent by real clients and accepted when lenient.
 */
export const EXPIRY_MS: Readonly<Record<string, number>> = {
  ThreeMins: 3 * 60_000,
  FiveMins: 5 * 60_000,
  FifteenMins: 15 * 60_000,
  ThirtyMins: 30 * 60_000,
};
export const LENIENT_EXPIRY_MS: Readonly<Record<string, number>> = {
  ...EXPIRY_MS,
  TenMins: 10 * 60_000,
  SixtyMins: 60 * 60_000,
};
