/**
 * The soak: RSS and heap (after a full collection) of a simulator (bench/sim-server.mjs: the built package's
 * startSimulator(), 64 API users) after `requests` freshly signed requests over 32 keep-alive connections, nine time
 * requests and one new challenge (no QR image) in ten, against their level after the first 10,000. What grows: the
 * replay memory, which holds every nonce and time of the drift window (5 minutes; two entries a request), and the
 * challenge store and the journal up to their caps (10,000 and 1,000). Pass: every answer as expected, and the heap
 * grew by at most HEAP_PER_REQUEST bytes a request after the first 10,000.
 *
 *   npm run soak -- [--requests 1000000]          (exit 0 pass, 1 fail)
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { signedHeaders } from '../src/index.js';
import { API_USERS, challengeBody, memoryOf, mib, startServer } from './lib.js';

/** The bound of linear growth: what one request may leave in the heap while the drift window holds it. */
export const HEAP_PER_REQUEST = 512;
const FIRST = 10_000;

export interface SoakResult {
  /** After a full collection: the first after 10,000 answers, the last at the end. */
  readings: { answered: number; seconds: number; rss: number; heap: number }[];
  bad: number;
  sample?: string;
  /** What the journal and the challenge store hold at the end (GET /__sim/journal, /__sim/challenges). */
  journal: number;
  challenges: number;
}

/** The soak in words (memory at the end, its growth after the first 10,000, what holds what), and whether it passed. */
export function summary(r: SoakResult): { memory: string; holds: string; pass: boolean } {
  const [first, last] = [r.readings[0], r.readings.at(-1)!];
  const perRequest = (last.heap - first.heap) / Math.max(1, last.answered - first.answered);
  const change = (bytes: number) => `${bytes < 0 ? '' : '+'}${mib(bytes)} MiB`;
  const window = last.seconds <= 300 ? 'of the run' : `of its last 5 minutes (of ${last.seconds.toFixed(0)} s)`;
  return {
    memory: `RSS ${mib(last.rss)} MiB, heap ${mib(last.heap)} MiB; since ${first.answered.toLocaleString('en')}: RSS ${change(last.rss - first.rss)}, heap ${change(last.heap - first.heap)} (${perRequest.toFixed(0)} bytes a request)`,
    holds: `the replay memory holds every nonce and time ${window}, two entries a request; the journal ${r.journal.toLocaleString('en')} entries (its cap 1,000); the challenge store ${r.challenges.toLocaleString('en')} (its cap 10,000)`,
    pass: r.bad === 0 && perRequest <= HEAP_PER_REQUEST,
  };
}

/** A request's bytes (the n-th of the soak) and the code its answer must carry. */
function requestOf(n: number, host: string, lastTime: Map<string, number>): [string, string] {
  const u = API_USERS[n % API_USERS.length];
  // A time may be used once per API user and millisecond.
  const time = Math.max(Date.now(), (lastTime.get(u.id) ?? 0) + 1);
  lastTime.set(u.id, time);
  const signed = signedHeaders({ apiUser: u.id, secret: u.secret, time, nonce: randomUUID() });
  const head = Object.entries({ host, ...signed }).reduce((h, [k, v]) => `${h}${k}: ${v}\r\n`, '');
  if (n % 10 !== 9) return [`POST /v1/svc/time HTTP/1.1\r\n${head}Content-Length: 0\r\n\r\n`, '"code":15000,'];
  const body = challengeBody(`soak-${n}`, time, u.id, `user${n % 1000}@example.com`);
  const length = Buffer.byteLength(body);
  return [`POST /v1/svc/challenge HTTP/1.1\r\n${head}Content-Length: ${length}\r\n\r\n${body}`, '"code":2025,'];
}

/** Runs the soak; `log` gets a line at each reading. */
export async function soak(requests: number, log = (line: string) => console.error(line)): Promise<SoakResult> {
  const server = await startServer(['--expose-gc', 'bench/sim-server.mjs', JSON.stringify(API_USERS)], true);
  const { host, hostname, port } = new URL(server.url);
  const lastTime = new Map<string, number>();
  const r: SoakResult = { readings: [], bad: 0, journal: 0, challenges: 0 };
  let sent = 0;
  let answered = 0;

  /** Sends requests over 32 connections, one at a time on each, until `until` are answered. */
  const runTo = (until: number) =>
    new Promise<void>((resolve, reject) => {
      let open = 32;
      for (let c = 0; c < 32; c++) {
        const socket = connect(Number(port), hostname).setEncoding('latin1');
        let text = '';
        let want = '';
        const next = () => {
          if (sent >= until) return void socket.end();
          const [bytes, code] = requestOf(sent++, host, lastTime);
          want = code;
          socket.write(bytes);
        };
        socket.on('connect', next).on('error', reject);
        socket.on('close', () => --open === 0 && resolve());
        socket.on('data', (chunk: string) => {
          text += chunk;
          const head = text.indexOf('\r\n\r\n');
          if (head < 0) return;
          const length = Number(/content-length: (\d+)/i.exec(text.slice(0, head))?.[1] ?? 0);
          if (text.length < head + 4 + length) return;
          // One request at a time on a connection: the answer is the whole text.
          const ok = /^HTTP\/1\.1 20[02]/.test(text) && text.includes(want);
          if (!ok && r.bad++ === 0) r.sample = `${text.slice(head + 4, head + 304)} (wanted ${want})`;
          text = '';
          answered++;
          next();
        });
      }
    });

  try {
    const t0 = performance.now();
    const every = Math.max(FIRST, Math.ceil(requests / 10));
    for (let until = Math.min(FIRST, requests); ; until = Math.min(requests, until + every)) {
      await runTo(until);
      const [seconds, { rss, heap }] = [(performance.now() - t0) / 1000, await memoryOf(server)];
      r.readings.push({ answered, seconds, rss, heap });
      log(`  soak: ${answered} answered, ${seconds.toFixed(0)} s, RSS ${mib(rss)} MiB, heap ${mib(heap)} MiB`);
      if (until >= requests) break;
    }
    const count = async (path: string) => ((await (await fetch(`${server.url}${path}`)).json()) as unknown[]).length;
    r.journal = await count('/__sim/journal');
    r.challenges = await count('/__sim/challenges');
    if (r.bad) log(`  soak: ${r.bad} answers not as expected, e.g. ${r.sample}`);
    return r;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '1000000' } } });
  const requests = Number(values.requests);
  if (!Number.isInteger(requests) || requests <= FIRST) {
    console.error(`soak: --requests must be a whole number above ${FIRST}`);
    process.exit(1);
  }
  console.error(`soak: ${requests} freshly signed requests, 9 time and 1 new challenge in 10`);
  const r = await soak(requests);
  const { memory, holds, pass } = summary(r);
  const last = r.readings.at(-1)!;
  console.log(`${last.answered} requests in ${last.seconds.toFixed(0)} s; ${r.bad} answers not as expected`);
  console.log(`${memory}; bound ${HEAP_PER_REQUEST} bytes a request\n${holds}\n${pass ? 'PASS' : 'FAIL'}`);
  process.exitCode = pass ? 0 : 1;
}
