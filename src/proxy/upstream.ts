import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import type * as HttpsModule from 'node:https';
import type * as TlsModule from 'node:tls';
import { OptionsError } from '../errors.js';
import { FileRefused, readFileWithin } from '../read-file.js';
import { UPSTREAM_TIMEOUT_MS } from '../run-options.js';
import { lazy } from '../world/lazy.js';

/**
 * The upstream of proxy mode: the real service (or anything the operator points mfa-sim at). Its address comes from
 * the operator only (flag, option, environment): a request can name a path under it and nothing else. Each exchange
 * is bounded in time and size, TLS is verified (a private CA is trusted only when the operator gives its file), and
 * a redirect is never followed.
 */

const https = lazy<typeof HttpsModule>('node:https');
const tls = lazy<typeof TlsModule>('node:tls');

/** An upstream answer larger than this is not read on: the client gets -5000 with the reason. */
export const UPSTREAM_ANSWER_LIMIT = 1024 * 1024;
/** Connections kept open to the upstream at most; further requests wait for one (within their time-out). */
const MAX_SOCKETS = 64;
/** A CA file larger than this is no certificate bundle. */
const CA_FILE_LIMIT = 1024 * 1024;

/** What the operator gives: the base URL, a private CA's file, the time-out. */
export interface UpstreamSettings {
  upstream: string;
  upstreamCa?: string;
  upstreamTimeout?: number;
}

/**
 * A request as it goes to the upstream: the client's method and target, the headers that cross (headers.ts), the body's
 * bytes.
 */
export interface Forwarded {
  method: string;
  /** The path and query the client asked for, under the upstream's base path. */
  target: string;
  /** Name, value, name, value...: as Node's rawHeaders, in the client's order and spelling. */
  headers: string[];
  body: Buffer;
}

/**
 * What came back: the upstream's whole answer, or why there is none (`stopped`: mfa-sim stopped waiting for it, as it
 * closed, which is no failure of the upstream's).
 */
export type UpstreamAnswer =
  | { kind: 'answer'; status: number; headers: string[]; body: Buffer }
  | { kind: 'failure'; reason: string; stopped?: true };

/** A request cut by close(). */
const STOPPED: UpstreamAnswer = {
  kind: 'failure',
  reason: 'mfa-sim stopped before the upstream answered',
  stopped: true,
};

/** The operator's upstream: where requests go, over one pool of connections, each exchange within its bounds. */
export class Upstream {
  /** The base URL as the operator gave it, for pages, logs and reports. */
  readonly url: string;
  readonly timeoutMs: number;
  private readonly base: URL;
  private readonly agent: HttpAgent;
  /** How to stop each exchange under way (close() stops them all). */
  private readonly inFlight = new Set<(reason: string) => void>();
  private closed = false;

  constructor(settings: UpstreamSettings) {
    this.base = baseUrl(settings.upstream);
    this.url = this.base.href.replace(/\/$/, '');
    this.timeoutMs = settings.upstreamTimeout ?? UPSTREAM_TIMEOUT_MS;
    const ca = settings.upstreamCa === undefined ? undefined : [...tls().rootCertificates, caFile(settings.upstreamCa)];
    const pool = { keepAlive: true, maxSockets: MAX_SOCKETS };
    this.agent =
      this.base.protocol === 'https:'
        ? new (https().Agent)({ ...pool, ca, rejectUnauthorized: true })
        : new HttpAgent(pool);
  }

  /** Sends one request and reads the whole answer, within the time-out and the size limit; never rejects. */
  send(f: Forwarded): Promise<UpstreamAnswer> {
    if (this.closed) return Promise.resolve(STOPPED);
    return new Promise((resolve) => {
      let req: ClientRequest | undefined;
      let settled = false;
      const settle = (answer: UpstreamAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(fail);
        resolve(answer);
      };
      const fail = (reason: string) => {
        settle(this.closed ? STOPPED : { kind: 'failure', reason });
        req?.destroy();
      };
      this.inFlight.add(fail);
      // One deadline for the whole exchange: waiting for a connection, connecting, sending and reading the answer.
      const timer = setTimeout(() => fail(`the upstream did not answer within ${this.timeoutMs} ms`), this.timeoutMs);
      try {
        req = (this.base.protocol === 'https:' ? https().request : httpRequest)(this.options(f));
      } catch (e) {
        // Node refuses a target it cannot write on the wire as it is (a character it would have to escape).
        return fail(`the request cannot be forwarded as it is: ${(e as Error).message}`);
      }
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // Node's parser takes any three digits; HTTP's final answers are 200 to 599 (a 1xx is never final).
        if (status < 200 || status > 599)
          return fail(`the upstream's answer is not valid HTTP (status ${String(status).padStart(3, '0')})`);
        readWhole(res, (body) => settle({ kind: 'answer', status, headers: res.rawHeaders, body }), fail);
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

  private options(f: Forwarded): RequestOptions {
    const prefix = this.base.pathname === '/' ? '' : this.base.pathname.replace(/\/$/, '');
    return {
      agent: this.agent,
      // The host and port are the operator's, whatever the request says: its Host never crosses (headers.ts).
      hostname: this.base.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.base.port,
      method: f.method,
      path: prefix + f.target,
      headers: ['Host', this.base.host, ...f.headers, 'Content-Length', String(f.body.length)],
    };
  }
}

/** Reads an answer's body whole, or fails as soon as it is larger than the limit (declared or as it arrives). */
function readWhole(res: IncomingMessage, done: (body: Buffer) => void, fail: (reason: string) => void): void {
  const tooLarge = `the upstream's answer is larger than ${UPSTREAM_ANSWER_LIMIT} bytes`;
  if (Number(res.headers['content-length']) > UPSTREAM_ANSWER_LIMIT) return fail(tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > UPSTREAM_ANSWER_LIMIT) return fail(tooLarge);
    chunks.push(chunk);
  });
  res.on('end', () => done(Buffer.concat(chunks)));
  // An answer cut short (fewer bytes than its Content-Length, a chunked one never ended) is an error of the response.
  res.on('error', () => fail('the upstream closed the connection before its answer was whole'));
}

/** TLS errors that mean "this certificate is not one the system (or the CA given) vouches for". */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** Why a request to the upstream failed, in words a person can act on. */
export function failureReason(e: NodeJS.ErrnoException): string {
  const code = e.code ?? '';
  if (UNTRUSTED.has(code))
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

/**
 * The operator's base URL, checked: http or https, a host, an optional base path; no credentials, query or fragment.
 */
function baseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw optionError('upstream', 'must be an http:// or https:// base URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw optionError('upstream', 'must be an http:// or https:// base URL');
  // Credentials in a URL end up in logs and reports; a query or fragment has no meaning under a base.
  if (url.username || url.password) throw optionError('upstream', 'must not hold a user name or password');
  if (url.search || url.hash) throw optionError('upstream', 'must not have a query or fragment');
  return url;
}

/**
 * The text of a private CA's PEM file, read as every file is (read-file.ts: a regular file only, bounded, never waiting
 * on a FIFO); a file that is missing, too large or holds no certificate is refused with the reason.
 */
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
