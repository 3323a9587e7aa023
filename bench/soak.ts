/**
 * The soak: does memory level off? A simulator (startSimulator() in a process of its own, started with
 * --expose-gc, listening on 127.0.0.1) takes `n` requests over 32 keep-alive connections from 64 API users, every
 * one freshly signed with a new nonce and time (replay and drift checks on, as configured by default). Nine in ten
 * are time requests (answer 15000), one in ten a new challenge without a QR image (2025), so the replay memory, the
 * journal and the challenge store all fill. Memory is read after a full GC once the first 10,000 are answered, then
 * every `every` requests, and at the end. A run of a million takes a minute or two: well inside the 5-minute drift
 * window, so the replay memory ends holding every nonce and time of the run, the most it can ever hold.
 *
 * Pass: every answer as expected, and the final RSS and heap within `bound` MiB of their level after 10,000.
 *
 *   npm run soak -- [--requests 1000000] [--every 50000] [--bound 50]     (exit 0 pass, 1 fail, 2 bad arguments)
 *
 * `npm run bench` runs the same soak for its memory figure.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { authorizationValue, sign } from '../src/auth/signature.js';
import { API_USERS, ROOT, writeScenario } from './lib.js';

export interface SoakResult {
  requests: number;
  bad: number;
  rss10k: number;
  rssEnd: number;
  heap10k: number;
  heapEnd: number;
  /** The largest RSS of any reading (each after a full GC). */
  rssMax: number;
  replayBytes: number;
  rps: number;
}

interface Mem {
  rss: number;
  heapUsed: number;
  replayEntries: number;
  replayBytes: number;
  journal: number;
  challenges: number;
}

const CONNECTIONS = 32;
const WARMUP = 10_000;
const MiB = 2 ** 20;
const mib = (b: number) => (b / MiB).toFixed(1);

export async function soak(
  total: number,
  scenarioFile: string,
  every = Math.max(WARMUP, Math.ceil(total / 10)),
  log: (s: string) => void = (s) => process.stderr.write(s),
): Promise<SoakResult> {
  const child = fork(join(ROOT, 'bench/sim-server.mjs'), [scenarioFile], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`the soak simulator exited with ${code}`)));
  });
  const mem = () =>
    new Promise<Mem>((resolve) => {
      child.once('message', (m) => resolve(m as Mem));
      child.send('mem');
    });
  const { hostname, port } = new URL(url);
  const lastTime = new Map<string, number>();
  let userIndex = 0;
  let sent = 0;
  let answered = 0;
  let bad = 0;
  let sample = '';

  /** The next request's bytes, and the code its answer must carry. */
  function nextRequest(): [string, string] {
    const n = sent;
    const u = API_USERS[userIndex++ % API_USERS.length];
    // A timestamp may be used once per API user and millisecond.
    const t = Math.max(Date.now(), (lastTime.get(u.id) ?? 0) + 1);
    lastTime.set(u.id, t);
    const utctime = String(t);
    const nonce = randomUUID();
    const auth = `Authorization: ${authorizationValue(u.id, sign(u.secret, utctime, nonce))}\r\nx-svc-apiuser: ${u.id}\r\nx-svc-utctime: ${utctime}\r\nx-svc-cnonce: ${nonce}\r\n`;
    if (n % 10 !== 9)
      return [
        `POST /v1/svc/time HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${auth}Content-Length: 0\r\n\r\n`,
        '"code":15000,',
      ];
    const body = JSON.stringify({
      id: `soak-${n}`,
      utctime,
      apiUser: u.id,
      type: 150,
      body: {
        svcUser: `user${n % 1000}@example.com`,
        challengeType: 'UserKeyAndPattern',
        challengeExpiry: 'FiveMins',
        enableQRcode: false,
        status: 'NEW',
      },
    });
    return [
      `POST /v1/svc/challenge HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      '"code":2025,',
    ];
  }

  /** Runs requests over the connections until `until` have been answered. */
  const runTo = (until: number) =>
    new Promise<void>((resolve, reject) => {
      let open = 0;
      for (let i = 0; i < CONNECTIONS; i++) {
        const s = connect(Number(port), hostname);
        open++;
        let buf = '';
        let want = '';
        const next = () => {
          if (sent >= until) {
            s.end();
            return;
          }
          const [bytes, code] = nextRequest();
          sent++;
          want = code;
          s.write(bytes);
        };
        s.setEncoding('latin1');
        s.on('connect', next);
        s.on('data', (chunk: string) => {
          buf += chunk;
          for (;;) {
            const head = buf.indexOf('\r\n\r\n');
            if (head < 0) return;
            const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, head))?.[1] ?? 0);
            if (buf.length < head + 4 + len) return;
            const status = buf.slice(9, 12);
            const body = buf.slice(head + 4, head + 4 + len);
            buf = buf.slice(head + 4 + len);
            answered++;
            if (!(status === '200' || status === '202') || !body.includes(want)) {
              bad++;
              if (!sample) sample = `${status} ${body} (wanted ${want})`;
            }
            next();
          }
        });
        s.on('error', reject);
        s.on('close', () => {
          if (--open === 0) resolve();
        });
      }
    });

  const row = (m: Mem, seconds: number) =>
    log(
      `  soak: ${answered.toLocaleString('en').padStart(10)} answered  ${seconds.toFixed(0).padStart(4)} s  RSS ${mib(m.rss).padStart(6)} MiB  heap ${mib(m.heapUsed).padStart(5)} MiB  replay ${m.replayEntries.toLocaleString('en').padStart(9)} entries in ${mib(m.replayBytes)} MiB  journal ${m.journal}  challenges ${m.challenges}\n`,
    );
  try {
    const t0 = performance.now();
    await runTo(Math.min(WARMUP, total));
    const at10k = await mem();
    row(at10k, (performance.now() - t0) / 1000);
    let rssMax = at10k.rss;
    let end = at10k;
    while (sent < total) {
      await runTo(Math.min(total, sent + every));
      end = await mem();
      rssMax = Math.max(rssMax, end.rss);
      row(end, (performance.now() - t0) / 1000);
    }
    const seconds = (performance.now() - t0) / 1000;
    if (bad) log(`  soak: ${bad} answers were not as expected, e.g. ${sample}\n`);
    return {
      requests: answered,
      bad,
      rss10k: at10k.rss,
      rssEnd: end.rss,
      heap10k: at10k.heapUsed,
      heapEnd: end.heapUsed,
      rssMax,
      replayBytes: end.replayBytes,
      rps: answered / seconds,
    };
  } finally {
    child.kill('SIGTERM');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const whole = (name: string, value: string, min: number, max: number) => {
    const n = Number(value);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    process.stderr.write(`soak: --${name} must be a whole number from ${min} to ${max}\n`);
    process.exit(2);
  };
  let values: Record<string, string>;
  try {
    ({ values } = parseArgs({
      options: {
        requests: { type: 'string', default: '1000000' },
        every: { type: 'string', default: '50000' },
        bound: { type: 'string', default: '50' },
      },
    }) as { values: Record<string, string> });
  } catch (e) {
    process.stderr.write(`soak: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const n = whole('requests', values.requests, WARMUP + 1, 100_000_000);
  const every = whole('every', values.every, 1000, n);
  const bound = whole('bound', values.bound, 1, 100_000) * MiB;
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-soak-'));
  const file = join(dir, 'soak.yaml');
  writeScenario(file);
  process.stderr.write(
    `soak: ${n.toLocaleString('en')} freshly signed requests (9 time, 1 new challenge in 10), ${CONNECTIONS} connections, ${API_USERS.length} API users; memory after a full GC\n`,
  );
  soak(n, file, every)
    .then((r) => {
      const rss = r.rssEnd - r.rss10k;
      const heap = r.heapEnd - r.heap10k;
      const within = rss <= bound && heap <= bound;
      console.log(
        `${r.requests.toLocaleString('en')} requests at ${r.rps.toFixed(0)} a second; ${r.bad} answers not as expected`,
      );
      console.log(
        `after ${WARMUP.toLocaleString('en')}: RSS ${mib(r.rss10k)} MiB, heap ${mib(r.heap10k)} MiB; at the end: RSS ${mib(r.rssEnd)} MiB (${rss >= 0 ? '+' : ''}${mib(rss)}), heap ${mib(r.heapEnd)} MiB (${heap >= 0 ? '+' : ''}${mib(heap)}); largest RSS reading ${mib(r.rssMax)} MiB; bound +${mib(bound)} MiB`,
      );
      console.log(r.bad === 0 && within ? 'PASS' : 'FAIL');
      process.exitCode = r.bad === 0 && within ? 0 : 1;
    })
    .catch((e: Error) => {
      process.stderr.write(`soak: ${e.message}\n`);
      process.exitCode = 1;
    })
    .finally(() => rmSync(dir, { recursive: true, force: true }));
}
