/**
 * The soak: a simulator (started with startSimulator() in a process of its own, with --expose-gc) takes `n` signed
 * time requests, each with a fresh nonce and time, over 32 keep-alive connections, 64 API users. Its memory is read
 * after a full GC once the first 10,000 are answered and again at the end; every answer must be 15000.
 *
 *   npx tsx bench/soak.ts [requests]     (default 1,000,000; npm run build first)
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { authorizationValue, sign } from '../src/auth/signature.js';
import { API_USERS, ROOT, writeScenario } from './lib.js';

export interface SoakResult {
  requests: number;
  bad: number;
  rss10k: number;
  rssEnd: number;
  heap10k: number;
  heapEnd: number;
  replayBytes: number;
  rps: number;
}

interface Mem {
  rss: number;
  heapUsed: number;
  replayBytes: number;
}

const CONNECTIONS = 32;

export async function soak(total: number, scenarioFile: string, log: (s: string) => void = (s) => process.stderr.write(s)): Promise<SoakResult> {
  const child = fork(join(ROOT, 'bench/sim-server.mjs'), [scenarioFile], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
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

  function requestBytes(): string {
    const u = API_USERS[userIndex++ % API_USERS.length];
    const t = Math.max(Date.now(), (lastTime.get(u.id) ?? 0) + 1);
    lastTime.set(u.id, t);
    const utctime = String(t);
    const nonce = randomUUID();
    return (
      `POST /v1/svc/time HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: ${authorizationValue(u.id, sign(u.secret, utctime, nonce))}\r\n` +
      `x-svc-apiuser: ${u.id}\r\nx-svc-utctime: ${utctime}\r\nx-svc-cnonce: ${nonce}\r\nContent-Length: 0\r\n\r\n`
    );
  }

  /** Runs requests over the connections until `until` have been answered. */
  const runTo = (until: number) =>
    new Promise<void>((resolve, reject) => {
      let open = 0;
      const sockets: Socket[] = [];
      for (let i = 0; i < CONNECTIONS; i++) {
        const s = connect(Number(port), hostname);
        sockets.push(s);
        open++;
        let buf = '';
        const next = () => {
          if (sent >= until) {
            s.end();
            return;
          }
          sent++;
          s.write(requestBytes());
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
            if (status !== '200' || !body.includes('"code":15000,')) {
              bad++;
              if (!sample) sample = `${status} ${body}`;
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

  try {
    const t0 = performance.now();
    await runTo(Math.min(10_000, total));
    const at10k = await mem();
    const step = Math.max(10_000, Math.ceil(total / 10));
    while (sent < total) {
      await runTo(Math.min(total, sent + step));
      const m = await mem();
      log(`  soak: ${answered.toLocaleString('en')} answered, RSS ${(m.rss / 2 ** 20).toFixed(0)} MiB, heap ${(m.heapUsed / 2 ** 20).toFixed(0)} MiB, replay memory ${(m.replayBytes / 2 ** 20).toFixed(1)} MiB\n`);
    }
    const seconds = (performance.now() - t0) / 1000;
    const end = await mem();
    if (bad) log(`  soak: ${bad} answers were not 15000, e.g. ${sample}\n`);
    return { requests: answered, bad, rss10k: at10k.rss, rssEnd: end.rss, heap10k: at10k.heapUsed, heapEnd: end.heapUsed, replayBytes: end.replayBytes, rps: answered / seconds };
  } finally {
    child.kill('SIGTERM');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.argv[2] ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-soak-'));
  const file = join(dir, 'bench.yaml');
  writeScenario(file);
  soak(n, file)
    .then((r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      process.exitCode = r.bad ? 1 : 0;
    })
    .finally(() => rmSync(dir, { recursive: true, force: true }));
}
