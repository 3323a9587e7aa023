import { ENDPOINTS } from '../contract/operations.js';
import type { Hint } from './hint.js';

/**
 * A client configured for another identifier token than the simulator's (a published client library set up for the
 * real service puts the service's own name in the path, the header names, the scheme, the algorithm, signedheaders and
 * the body's user field): found in whichever of those the refusal is about, and named with both tokens and the flag
 * that serves that client. Only a value that could be a token (lower-case letters and digits, starting with a letter,
 * as `--token` takes it) is named, so a hint never quotes anything else the caller sent.
 */

const TOKEN = '[a-z][a-z0-9]{0,31}';
const PATH = new RegExp(`^/v1/(${TOKEN})/(${ENDPOINTS.join('|')})/?(?:[?#]|$)`);
const SCHEME = new RegExp(`^\\s*(${TOKEN})-hmac\\s*:`, 'i');
const ALGORITHM = new RegExp(`^(${TOKEN})-hmac512$`, 'i');
const SIGNED_HEADERS = new RegExp(`^x-(${TOKEN})-utctime;x-(${TOKEN})-cnonce$`, 'i');
const HEADER = new RegExp(`^x-(${TOKEN})-(?:utctime|cnonce|apiuser)$`);
const BODY_USER = new RegExp(`^(${TOKEN})User$`);

/** The hint: where the other token was found, both tokens, and the flag that serves such a client. */
function otherTokenHint(where: string, theirs: string, ours: string): Hint {
  return {
    id: 'other-token',
    text: `${where} uses the token ${theirs}, but this simulator runs with the token ${ours}: start it with --token ${theirs} (scenario key \`token\`) for a client configured for ${theirs}`,
  };
}

function other(found: string | undefined, ours: string): string | undefined {
  return found !== ours ? found : undefined;
}

/** A path not served (-404) that names an endpoint under another token: `/v1/<theirs>/time`. */
export function pathToken(path: string, ours: string): Hint | undefined {
  const m = PATH.exec(path);
  const theirs = m ? other(m[1], ours) : undefined;
  return theirs === undefined ? undefined : otherTokenHint(`the path /v1/${theirs}/${m![2]}`, theirs, ours);
}

/** An Authorization value whose scheme is `<theirs>-hmac:` (-4001). */
export function schemeToken(value: string, ours: string): Hint | undefined {
  const theirs = other(SCHEME.exec(value)?.[1].toLowerCase(), ours);
  return theirs === undefined ? undefined : otherTokenHint('the Authorization scheme', theirs, ours);
}

/** The algorithm part `<theirs>-hmac512` (-4031). */
export function algorithmToken(value: string, ours: string): Hint | undefined {
  const theirs = other(ALGORITHM.exec(value)?.[1].toLowerCase(), ours);
  return theirs === undefined ? undefined : otherTokenHint('the algorithm', theirs, ours);
}

/** The signedheaders part `x-<theirs>-utctime;x-<theirs>-cnonce` (-4033). */
export function signedHeadersToken(value: string, ours: string): Hint | undefined {
  const m = SIGNED_HEADERS.exec(value);
  const theirs = m && m[1].toLowerCase() === m[2].toLowerCase() ? other(m[1].toLowerCase(), ours) : undefined;
  return theirs === undefined ? undefined : otherTokenHint('signedheaders', theirs, ours);
}

/**
 * A missing `x-<ours>-…` header (-4004, -4006, -4008) where the request has `x-<theirs>-utctime`, `-cnonce` or
 * `-apiuser`.
 */
export function headerToken(headers: Record<string, unknown>, ours: string): Hint | undefined {
  for (const key of Object.keys(headers)) {
    const theirs = other(HEADER.exec(key)?.[1], ours);
    if (theirs !== undefined) return otherTokenHint(`the header ${key}`, theirs, ours);
  }
  return undefined;
}

/** A body without `<ours>User` (-5077) that has `<theirs>User`. */
export function bodyUserToken(body: Record<string, unknown>, ours: string): Hint | undefined {
  for (const key of Object.keys(body)) {
    const theirs = other(BODY_USER.exec(key)?.[1], ours);
    if (theirs !== undefined) return otherTokenHint(`the body's ${key}`, theirs, ours);
  }
  return undefined;
}
