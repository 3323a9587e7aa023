import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { OptionsError } from '../contract/errors.js';
import { FileRefused, readFileWithin } from '../files/read-file.js';
import { UPSTREAM_TIMEOUT_MS } from '../simulator/options.js';

// The upstream of proxy mode: the real service, at an address from the operator only.

/** An upstream answer larger than this is not read on: the client gets -5000 with the reason. */
export const UPSTREAM_ANSWER_LIMIT = 1024 * 1024;
/** Connections open to the upstream at most; further requests wait for one (within their time-out). */
const MAX_SOCKETS = 64;
/** A CA file larger than this is no certificate bundle. */
const CA_FILE_LIMIT = 1024 * 1024;

/** A request as it goes to the upstream: the path and query under the upstream's base path, raw header pairs, bytes. */
export type Forwarded = { method: string; target: string; headers: string[]; body: Buffer };

/** The upstream's whole answer, or why there is none (`stopped`: mfa-sim stopped waiting, no fault of the upstream). */
export type UpstreamAnswer =
  | { kind: 'answer'; status: number; headers: string[]; body: Buffer }
  | { kind: 'failure'; reason: string; stopped?: true };

const STOPPED: UpstreamAnswer = {
  kind: 'failure',
  reason: 'mfa-sim stopped before the upstream answered',
  stopped: true,
};

/** The operator's upstream: where requests go, over one pool of connections, each exchange within its bounds. */
export class Upstream {
  /** The base URL as the operator gave it, for pages, logs and reports. */
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly base: URL;
  private readonly agent: HttpAgent;
  private readonly inFlight = new Set<(reason: string) => void>();
  private closed = false;

  constructor(settings: { upstream: string; upstreamCa?: string; upstreamTimeout?: number }) {
    this.base = baseUrl(settings.upstream);
    this.url = this.base.href.replace(/\/$/, '');
    this.timeoutMs = settings.upstreamTimeout ?? UPSTREAM_TIMEOUT_MS;
    const ca = settings.upstreamCa === undefined ? undefined : [...rootCertificates, caFile(settings.upstreamCa)];
    const pool = { keepAlive: true, maxSockets: MAX_SOCKETS };
    this.agent =
      this.base.protocol === 'https:' ? new HttpsAgent({ ...pool, ca, rejectUnauthorized: true }) : new HttpAgent(pool);
  }

  /** Sends one request and reads the whole answer, within the time-out and the size limit; never rejects. */
  send(f: Forwarded): Promise<UpstreamAnswer> {
    if (this.closed) return Promise.resolve(STOPPED);
    return new Promise((resolve) => {
      let req: ClientRequest | undefined;
      // The first end counts: what comes after it (a late error, more of a body cut off) changes nothing.
      const end = (answer: UpstreamAnswer) => {
        clearTimeout(timer);
        this.inFlight.delete(fail);
        resolve(answer);
      };
      const fail = (reason: string) => {
        end(this.closed ? STOPPED : { kind: 'failure', reason });
        req?.destroy();
      };
      this.inFlight.add(fail);
      // One deadline for the whole exchange: waiting for a connection, connecting, sending and reading the answer.
      const timer = setTimeout(() => fail(`the upstream did not answer within ${this.timeoutMs} ms`), this.timeoutMs);
      const prefix = this.base.pathname.replace(/\/$/, '');
      try {
        req = (this.base.protocol === 'https:' ? httpsRequest : httpRequest)({
          agent: this.agent,
          // The host and port are the operator's, whatever the request says: its Host never crosses.
          hostname: this.base.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.base.port,
          method: f.method,
          path: prefix + f.target,
          headers: ['Host', this.base.host, ...f.headers, 'Content-Length', String(f.body.length)],
        });
      } catch (e) {
        // Node refuses a target it cannot write on the wire as it is (a character it would have to escape).
        return fail(`the request cannot be forwarded as it is: ${(e as Error).message}`);
      }
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // Node's parser takes any three digits; HTTP's final answers are 200 to 599 (a 1xx is never final).
        if (status < 200 || status > 599)
          return fail(`the upstream's answer is not valid HTTP (status ${String(status).padStart(3, '0')})`);
        void readWithin(res, UPSTREAM_ANSWER_LIMIT).then((body) => {
          if (body === 'too-large') fail(`the upstream's answer is larger than ${UPSTREAM_ANSWER_LIMIT} bytes`);
          else if (body === 'gone') fail('the upstream closed the connection before its answer was whole');
          else end({ kind: 'answer', status, headers: res.rawHeaders, body });
        });
      });
      req.on('error', (e) => fail(failureReason(e)));
      req.end(f.body);
    });
  }

  /** Lets go of every connection; a request still waiting for its answer, or sent after, is STOPPED at once. */
  close(): void {
    this.closed = true;
    for (const stop of this.inFlight) stop('mfa-sim is closing');
    this.agent.destroy();
  }
}

/** A message's body read whole within `limit` (declared or as it arrives): 'too-large' past it, 'gone' when cut off. */
export function readWithin(msg: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'gone'> {
  return new Promise((resolve) => {
    if (Number(msg.headers['content-length']) > limit) return resolve('too-large');
    const chunks: Buffer[] = [];
    let size = 0;
    msg.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      msg.removeAllListeners('data');
      resolve('too-large');
    });
    msg.on('end', () => resolve(Buffer.concat(chunks)));
    // Cut short (the peer went, a stop cut it, fewer bytes than its Content-Length, a chunked one never ended).
    msg.on('error', () => resolve('gone'));
    msg.on('close', () => resolve('gone'));
  });
}

/** TLS errors that mean "this certificate is not one the system (or the CA given) vouches for". */
const UNTRUSTED =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED)$/;

/** Why a request to the upstream failed, in words a person can act on. */
export function failureReason(e: NodeJS.ErrnoException): string {
  const code = e.code ?? '';
  if (UNTRUSTED.test(code))
    return `the upstream's TLS certificate is not trusted (${code}): give its CA with --upstream-ca`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return "the upstream's TLS certificate is for another host name (ERR_TLS_CERT_ALTNAME_INVALID)";
  if (code === 'CERT_HAS_EXPIRED') return "the upstream's TLS certificate has expired (CERT_HAS_EXPIRED)";
  if (code === 'ECONNREFUSED') return 'the upstream refused the connection (ECONNREFUSED)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the upstream's host name does not resolve (${code})`;
  if (code === 'ECONNRESET' || code === 'EPIPE')
    return `the upstream closed the connection without an answer (${code})`;
  if (code.startsWith('HPE_')) return `the upstream's answer is not valid HTTP (${code})`;
  return `the upstream could not be reached: ${e.message}`;
}

/** The operator's base URL: http or https, a host, an optional base path; no credentials, query or fragment. */
function baseUrl(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw optionError('upstream', 'must be an http:// or https:// base URL');
  // Credentials in a URL end up in logs and reports; a query or fragment has no meaning under a base.
  if (url.username || url.password) throw optionError('upstream', 'must not hold a user name or password');
  if (url.search || url.hash) throw optionError('upstream', 'must not have a query or fragment');
  return url;
}

/** A private CA's PEM file, read as every file is (read-file.ts: a regular file only, bounded, never a FIFO). */
function caFile(file: string): string {
  let text: string;
  try {
    text = readFileWithin(file, { limit: CA_FILE_LIMIT }).toString('utf8');
  } catch (e) {
    if (!(e instanceof FileRefused)) throw e;
    const why =
      e.reason === 'not regular'
        ? `${e.message} (a CA's certificates are a PEM text file)`
        : e.reason === 'too large'
          ? `is larger than ${CA_FILE_LIMIT} bytes: not a CA certificate file`
          : e.message;
    throw optionError('upstreamCa', `${file} ${why}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw optionError('upstreamCa', `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

function optionError(key: string, message: string): OptionsError {
  return new OptionsError([{ path: [key], message }]);
}

/** Headers of one connection (RFC 9110 §7.6.1), never forwarded either way. */
const CONNECTION_HEADERS =
  /^(connection|keep-alive|proxy-connection|transfer-encoding|te|trailer|upgrade|proxy-authenticate|proxy-authorization)$/;

/** The client's headers as they go to the upstream. */
export function towardsUpstream(raw: readonly string[]): string[] {
  return crossing(raw, ['host', 'content-length', 'accept-encoding', 'expect']);
}

/** The upstream's headers as they go back to the client. */
export function towardsClient(raw: readonly string[]): string[] {
  return crossing(raw, ['content-length']);
}

/** The value of a header in raw pairs (the first, case-insensitive). */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].toLowerCase() === name) return raw[i + 1];
  return undefined;
}

function crossing(raw: readonly string[], proxySets: string[]): string[] {
  // A header the Connection header names is of that connection too.
  const left = [...proxySets, ...(rawHeader(raw, 'connection') ?? '').split(',').map((n) => n.trim().toLowerCase())];
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!CONNECTION_HEADERS.test(name) && !left.includes(name)) out.push(raw[i], raw[i + 1]);
  }
  return out;
}
