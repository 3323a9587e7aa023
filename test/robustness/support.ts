import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, expect } from 'vitest';
import { codeInfo } from '../../src/contract/codes.js';
import { signedHeaders, type RunningSimulator } from '../../src/index.js';
import { clientTime, expectEnvelope, raw, type Envelope, type Sent } from '../helpers.js';

/**
 * Runs of a property (or its time limit in ms), scaled by FUZZ_SCALE (default 1): `FUZZ_SCALE=10 npm test --
 * test/robustness` for a deeper search on a quiet machine.
 */
export function runs(n: number): number {
  const scale = Number(process.env.FUZZ_SCALE ?? 1);
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** A keep-alive agent for one test file (fuzzing sends thousands of requests), destroyed after it. */
export function keepAlive(): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  afterAll(() => agent.destroy());
  return agent;
}

/** Valid signed headers for the simulator's default API user, as name/value pairs, with a fresh time and nonce. */
export function signedPairs(sim: RunningSimulator): [string, string][] {
  const h = signedHeaders({
    apiUser: sim.apiUser.id,
    secret: sim.apiUser.secret,
    token: sim.token,
    time: clientTime(sim),
    nonce: randomUUID(),
  });
  return Object.entries(h);
}

/**
 * The property every answer of the API must have: a JSON envelope (exactly its six keys, status equal to the
 * HTTP status) with a code from the code table, and never HTTP 500 unless `allow500` says why it may be.
 */
export function expectServiceAnswer(
  r: Sent,
  style: 'document' | 'sdk' = 'document',
  allow500?: (e: Envelope) => boolean,
): Envelope {
  let e: Envelope;
  try {
    e = r.json;
  } catch {
    throw new Error(`not JSON (HTTP ${r.status}): ${r.text.slice(0, 300)}`);
  }
  const info = codeInfo(e.code);
  if (!info) throw new Error(`code ${e.code} is not in the code table: ${r.text.slice(0, 300)}`);
  expectEnvelope(r, info.http, e.code, style);
  if (r.status === 500 && !allow500?.(e)) throw new Error(`HTTP 500 without a forced fault: ${r.text.slice(0, 300)}`);
  return e;
}

/** A normal, valid request still gets its normal answer (the time, 15000). */
export async function expectStillServes(sim: RunningSimulator, agent: Agent | false = false): Promise<void> {
  const r = await raw(sim.url, 'GET', '/v1/svc/time', signedPairs(sim), undefined, agent);
  expectEnvelope(r, 200, 15000, sim.simulator.scenario.responseStyle);
}

/** Object.prototype as it is now, to compare after hostile input (prototype pollution). */
export function prototypeSnapshot(): string[] {
  return [Object.prototype, Array.prototype, Function.prototype].map((p) =>
    Object.getOwnPropertyNames(p).sort().join(','),
  );
}

export function expectNoPollution(before: string[]): void {
  expect(prototypeSnapshot()).toEqual(before);
  const probe = {} as Record<string, unknown>;
  for (const k of ['polluted', 'isAdmin', 'x', 'y']) expect(probe[k]).toBeUndefined();
}

export interface Exchange {
  /** Everything the server wrote. */
  text: string;
  /** Whether the server closed the connection (rather than the client giving up after `timeoutMs`). */
  closed: boolean;
}

/**
 * Writes bytes to the simulator's port (all at once, or the first `atOnce` and then one byte every `dripMs`),
 * optionally stops after `abortAfter` bytes by destroying the socket, and reads until the server closes or `timeoutMs`
 * passes.
 */
export function exchange(
  base: string,
  bytes: string | Buffer,
  opts: { dripMs?: number; atOnce?: number; abortAfter?: number; timeoutMs?: number } = {},
): Promise<Exchange> {
  return new Promise((resolve) => {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    const data = Buffer.from(bytes);
    const chunks: Buffer[] = [];
    let drip: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      clearInterval(drip);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed });
    };
    const timer = setTimeout(() => finish(false), opts.timeoutMs ?? 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    const upTo = Math.min(data.length, opts.abortAfter ?? data.length);
    if (opts.dripMs) {
      let i = Math.min(upTo, opts.atOnce ?? 0);
      socket.write(data.subarray(0, i));
      drip = setInterval(() => {
        if (i < upTo && !socket.destroyed) socket.write(data.subarray(i, ++i));
      }, opts.dripMs);
    } else {
      socket.write(data.subarray(0, upTo));
      if (opts.abortAfter !== undefined) setTimeout(() => finish(false), 50);
    }
  });
}

/** Opens a connection and sends nothing. */
export function idleConnection(base: string): Promise<Socket> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(url.port), url.hostname, () => resolve(s));
    s.on('error', reject);
  });
}

export interface ControlAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body; throws in the test when it is not JSON. */
  json: Record<string, unknown>;
}

/** A request to the control API (or any page), JSON body when an object is given, with extra headers. */
export async function control(
  sim: RunningSimulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ControlAnswer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??=
      typeof body === 'string' ? 'application/yaml' : 'application/json';
  }
  const r = await fetch(`${sim.url}${path}`, init);
  const text = await r.text();
  return {
    status: r.status,
    contentType: r.headers.get('content-type') ?? '',
    text,
    get json() {
      return JSON.parse(text) as Record<string, unknown>;
    },
  };
}

/** A request as a flood sends it: method, path, headers in order, body. */
export type FloodRequest = [method: string, path: string, headers: [string, string][], body?: string];

/**
 * Sends `count` requests made by `make` to `url`, 32 at a time over the keep-alive connections of `agent`; returns how
 * often each code was answered (the envelope's code, or the HTTP status of an answer that is not JSON).
 */
export async function flood(
  url: string,
  agent: Agent,
  count: number,
  make: (i: number) => FloodRequest,
): Promise<Map<number, number>> {
  const codes = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const [method, path, headers, body] = make(next++);
      const r = await raw(url, method, path, headers, body, agent);
      const code = r.headers['content-type']?.toString().startsWith('application/json') ? r.json.code : r.status;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return codes;
}
