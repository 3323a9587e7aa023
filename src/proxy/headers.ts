/**
 * Which headers cross the proxy, each way. Everything the client sent goes to the upstream, in its order and
 * spelling, and everything the upstream answered comes back, except the headers that belong to one connection
 * (RFC 9110 §7.6.1) and those the proxy sets itself: Host (the upstream's, never the client's), Content-Length (of
 * the body as it was read whole), and Accept-Encoding (answers come uncompressed, so that mfa-sim can judge them).
 */

/** Headers of one connection, never forwarded either way. */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
]);
/** Set by the proxy itself towards the upstream. */
const SET_TOWARDS_UPSTREAM = new Set(['host', 'content-length', 'accept-encoding', 'expect']);
/** Set by the proxy itself towards the client. */
const SET_TOWARDS_CLIENT = new Set(['content-length']);

/** The client's headers (Node's rawHeaders: name, value, ...) as they go to the upstream. */
export function towardsUpstream(raw: readonly string[]): string[] {
  return crossing(raw, SET_TOWARDS_UPSTREAM);
}

/** The upstream's headers as they go back to the client (the proxy adds Content-Length). */
export function towardsClient(raw: readonly string[]): string[] {
  return crossing(raw, SET_TOWARDS_CLIENT);
}

/** The value of a header in raw pairs (the first, case-insensitive). */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].toLowerCase() === name) return raw[i + 1];
  return undefined;
}

function crossing(raw: readonly string[], ownHeaders: ReadonlySet<string>): string[] {
  // A header the Connection header names is of that connection too.
  const named = new Set((rawHeader(raw, 'connection') ?? '').split(',').map((n) => n.trim().toLowerCase()));
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (CONNECTION_HEADERS.has(name) || ownHeaders.has(name) || named.has(name)) continue;
    out.push(raw[i], raw[i + 1]);
  }
  return out;
}
