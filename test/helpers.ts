import { randomUUID } from 'node:crypto';
import { request as httpRequest, type Agent } from 'node:http';
import { connect } from 'node:net';
import { afterAll, expect } from 'vitest';
import type { Answered } from '../src/run/answered-events.js';
import { signedHeaders, startSimulator, type RunningSimulator, type StartOptions } from '../src/index.js';

/**
 * A running simulator for one test file, closed after the file's tests. No observer of its traffic may have failed
 * (a coverage or finding that missed a request would make a verdict wrong without a sign): the file fails if one did.
 */
export async function simulator(options: StartOptions | string = {}): Promise<RunningSimulator> {
  const sim = await startSimulator(options);
  afterAll(async () => {
    await sim.close();
    expect(sim.observerFailures(), 'observers of traffic that failed').toEqual([]);
  });
  return sim;
}

/** Runs `fn` with a simulator started for it alone, closed after `fn` ends, whether it passed or threw. */
export async function withSimulator<T>(
  options: StartOptions | string,
  fn: (sim: RunningSimulator) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator(options);
  try {
    return await fn(sim);
  } finally {
    await sim.close();
  }
}

export interface Envelope {
  id: string;
  utctime?: string;
  utcTime?: string;
  status: number;
  code: number;
  message: string;
  moreInfo: string;
}

export interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body (throws in the test if it is not JSON). */
  json: Envelope;
}

export interface SendOptions {
  method?: string;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
  /** Sign as this API user (default: the simulator's default API user); false sends no authentication headers. */
  as?: { apiUser: string; secret: string } | false;
  token?: string;
  /** Signing time; default the simulator's clock. */
  time?: number;
  nonce?: string;
  headers?: Record<string, string>;
  /** Changes the signed headers before sending (delete one, spoil one). */
  mutate?: (headers: Record<string, string>) => void;
}

const lastTime = new Map<string, number>();
/** Times a test gave explicitly (`time:`), which clientTime must not give again. */
const givenTimes = new Map<string, Set<number>>();

/**
 * A signing time as a client's own clock would give it: the simulator's time, but never the same millisecond
 * twice for one simulator (two requests in one millisecond are -4035, and a test may freeze the clock), nor
 * one a test already signed with explicitly.
 */
export function clientTime(sim: RunningSimulator): number {
  let t = Math.max(sim.simulator.now(), (lastTime.get(sim.url) ?? 0) + 1);
  const given = givenTimes.get(sim.url);
  while (given?.has(t)) t++;
  lastTime.set(sim.url, t);
  return t;
}

/** Sends a request to a running simulator, freshly signed unless told otherwise, and reads the answer. */
export async function send(sim: RunningSimulator, path: string, opts: SendOptions = {}): Promise<Sent> {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    accept: 'application/json; charset=utf-8',
  };
  if (opts.time !== undefined) givenTimes.set(sim.url, (givenTimes.get(sim.url) ?? new Set()).add(opts.time));
  if (opts.as !== false) {
    const who = opts.as ?? { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
    Object.assign(
      headers,
      signedHeaders({
        apiUser: who.apiUser,
        secret: who.secret,
        token: opts.token ?? sim.token,
        time: opts.time ?? clientTime(sim),
        nonce: opts.nonce ?? randomUUID(),
      }),
    );
  }
  Object.assign(headers, opts.headers);
  opts.mutate?.(headers);
  const body =
    opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  return raw(sim.url, opts.method ?? 'POST', path, Object.entries(headers), body);
}

/**
 * Sends exactly these headers (in this order; a repeated name is sent as several lines) and body; a new connection
 * unless an agent is given.
 */
export function raw(
  base: string,
  method: string,
  path: string,
  headers: [string, string | string[]][],
  body?: string | Buffer,
  agent: Agent | false = false,
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    // An IPv6 host name keeps its brackets in a URL; http.request wants the bare address.
    const req = httpRequest(
      {
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        path: url.pathname + url.search,
        method,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            get json() {
              return JSON.parse(text) as Envelope;
            },
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // setHeader keeps each name's spelling and the order given.
    for (const [name, value] of headers) req.setHeader(name, value);
    const chunked = headers.some(([n]) => n.toLowerCase() === 'transfer-encoding');
    if (body !== undefined && !chunked) req.setHeader('Content-Length', Buffer.byteLength(body));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** An envelope for a new challenge, as the interface document shows it. */
export function challengeEnvelope(
  apiUser: string,
  body: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  token = 'svc',
) {
  return {
    id: 'ref-1',
    utctime: String(Date.now()),
    apiUser,
    type: 150,
    body: {
      [`${token}User`]: 'user@example.com',
      challengeType: 'UserKeyAndPattern',
      challengeExpiry: 'FiveMins',
      enableQRcode: false,
      status: 'NEW',
      ...body,
    },
    ...extra,
  };
}

export function cancelEnvelope(apiUser: string, challengeId: string, user = 'user@example.com', token = 'svc') {
  return {
    id: 'ref-2',
    utctime: String(Date.now()),
    apiUser,
    type: 151,
    body: { challengeId, [`${token}User`]: user, status: 'CANCEL' },
  };
}

export function lookupEnvelope(
  apiUser: string,
  type: 170 | 171,
  challengeId: string,
  extra: Record<string, unknown> = {},
  user = 'user@example.com',
) {
  return { id: 'ref-3', utctime: String(Date.now()), apiUser, type, body: { challengeId, svcUser: user, ...extra } };
}

/** The checks every envelope must pass: exactly the six keys, types, status = HTTP status, moreInfo link. */
export function expectEnvelope(r: Sent, http: number, code: number, style: 'document' | 'sdk' = 'document'): Envelope {
  const e = r.json;
  const timeKey = style === 'sdk' ? 'utcTime' : 'utctime';
  const keys = Object.keys(e);
  if (keys.join(',') !== ['id', timeKey, 'status', 'code', 'message', 'moreInfo'].join(','))
    throw new Error(`envelope keys are ${keys.join(',')}: ${r.text}`);
  if (r.status !== http || e.status !== http || e.code !== code)
    throw new Error(`expected HTTP ${http} code ${code}, got HTTP ${r.status} ${r.text}`);
  if (typeof e.message !== 'string' || typeof e.id !== 'string')
    throw new Error(`message and id must be strings: ${r.text}`);
  const t = (e as unknown as Record<string, string>)[timeKey];
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(t))
    throw new Error(`${timeKey} is not ISO 8601 with ms and Z: ${t}`);
  if (!new RegExp(`^http://[^/]+/status\\?code=${code}$`).test(e.moreInfo))
    throw new Error(`moreInfo is ${e.moreInfo}`);
  if (!String(r.headers['content-type']).startsWith('application/json'))
    throw new Error(`content-type ${String(r.headers['content-type'])}`);
  return e;
}

/** Writes raw bytes to the simulator's port and reads everything until the server closes the connection. */
export function rawSocket(
  base: string,
  bytes: string | Buffer,
  opts: { endAfterWrite?: boolean; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    }, opts.timeoutMs ?? 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      if ((e as NodeJS.ErrnoException).code === 'ECONNRESET') resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(e);
    });
    socket.write(bytes);
    if (opts.endAfterWrite) socket.end();
  });
}

/** The JSON body of a raw HTTP response text. */
export function bodyOf(response: string): Record<string, unknown> {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

/**
 * An open `GET /__sim/events` stream: the data of each event named `event` received so far, parsed; `text`, all it
 * received; `opened`, whether the stream's first comment came; `stop` closes it.
 */
export function followEvents<T>(
  base: string,
  event: string,
): { events: T[]; text: () => string; opened: () => boolean; stop: () => void } {
  const events: T[] = [];
  let text = '';
  const pattern = new RegExp(`^event: ${event}\\ndata: (.*)$`, 'gm');
  const req = httpRequest(`${base}/__sim/events`, { agent: false }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      for (const m of chunk.matchAll(pattern)) events.push(JSON.parse(m[1]) as T);
    });
  });
  req.on('error', () => {});
  req.end();
  return { events, text: () => text, opened: () => text.includes(': mfa-sim events'), stop: () => req.destroy() };
}

/** The "answered" event of request `seq`, answered `code`, as an observer receives it (for the observers' tests). */
export function answeredOf(seq: number, code?: number): Answered {
  return {
    record: {
      seq,
      at: '2026-11-27T10:00:00.000Z',
      method: 'GET',
      path: '/v1/svc/time',
      code,
      latencyMs: 0,
      scenario: 'default',
      request: { headers: {}, body: '' },
    },
    counts: true,
    caller: 'signed',
  };
}
