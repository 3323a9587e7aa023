/**
 * The proxy soak: does proxy mode's memory level off under a hostile upstream? The built command line
 * (`node --max-old-space-size=<heap> dist/cli.cjs --upstream ...`, its request log on) forwards freshly signed
 * requests over 8 keep-alive connections to an upstream of the soak's own, which answers each within the 1 MiB an
 * answer may take, with a value nobody would send:
 *
 * - `ids`: a new challenge (202, 2025) whose challengeId is 900,000 characters, a new one each time;
 * - `keys`: the time (200, 15000) with one extra envelope key of 900,000 characters, a new one each time.
 *
 * Each kind is sent `answers` times, `ids` first. RSS (from /proc, Linux; no collection forced) is read every `every`
 * answers; at the end the journal is read over HTTP once.
 *
 * Pass: the proxy stays alive, every answer came through as the upstream sent it, and no RSS reading after the first
 * thousand of a kind is more than `bound` MiB above the reading at that thousand.
 *
 *   npm run soak:proxy -- [--answers 5000] [--kind both|ids|keys] [--heap 512] [--every 500] [--bound 64] [--no-secret]
 *
 * (exit 0 pass, 1 fail, 2 bad arguments)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { signedHeaders } from '../src/auth/signature.js';
import { ROOT } from './lib.js';

export type SoakKind = 'ids' | 'keys';

export interface ProxySoakOptions {
  answers: number;
  kinds: SoakKind[];
  /** The proxy's `--max-old-space-size`, in MiB. */
  heapMiB: number;
  every: number;
  /** Whether the proxy is given the API user's secret (its shadow then compares every answer). */
  secret: boolean;
  log?: (line: string) => void;
}

/** One kind's run: its RSS readings (answers so far, bytes), and what went wrong. */
export interface KindResult {
  kind: SoakKind;
  /** Answers read whole (as expected or not). */
  answered: number;
  readings: { answered: number; rss: number }[];
  bad: number;
  sample?: string;
}

export interface ProxySoakResult {
  kinds: KindResult[];
  /** The proxy's exit code or signal when it died during the soak; undefined while alive. */
  died?: string;
  /** How long `GET /__sim/journal` took at the end, and its status. */
  journal?: { ms: number; status: number; bytes: number };
  rssStart: number;
  /** The largest RSS the proxy had, as of its last reading. */
  rssPeak: number;
}

const API_USER = '123456789';
const SECRET = 'proxy-soak-secret';
const CONNECTIONS = 8;
/** The hostile value's length: with the envelope around it, the answer stays under the upstream's 1 MiB limit. */
const HUGE = 900_000;
const MiB = 2 ** 20;
/** Bytes as MiB with one decimal. */
export const mib = (b: number) => (b / MiB).toFixed(1);

/**
 * An answer whose hostile value differs each time: a template written once, with the answer's number written over the
 * value's first characters.
 */
function answers(kind: SoakKind): (n: number) => Buffer {
  const mark = 'X'.repeat(HUGE);
  const now = () => new Date().toISOString();
  const envelope =
    kind === 'ids'
      ? {
          id: 'soak',
          utctime: now(),
          status: 202,
          code: 2025,
          message: JSON.stringify({ challengeId: mark, challengeQRcodeUrl: 'https://upstream.example/p' }),
          moreInfo: 'https://upstream.example/codes?code=2025',
        }
      : {
          id: 'soak',
          utctime: now(),
          status: 200,
          code: 15000,
          message: '{"utctime":"2026-01-01T00:00:00.000Z"}',
          moreInfo: 'https://upstream.example/codes?code=15000',
          [mark]: 1,
        };
  const template = Buffer.from(JSON.stringify(envelope));
  const at = template.indexOf('XXXXXXXXXX');
  return (n) => {
    const out = Buffer.from(template);
    out.write(String(n).padStart(10, '0'), at, 'latin1');
    return out;
  };
}

/** The hostile upstream: each request gets the next answer of the kind the soak is at. */
async function upstream(kind: () => SoakKind): Promise<{ url: string; server: Server }> {
  const makers = { ids: answers('ids'), keys: answers('keys') };
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const k = kind();
      const body = makers[k](n++);
      res.writeHead(k === 'ids' ? 202 : 200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
    });
  });
  // The proxy keeps its connections open; one closed by the upstream as it is reused is an ECONNRESET to the client
  // (-5000), which is not what the soak measures.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A process's resident set now, and its peak, in bytes, from /proc (Linux), as bench/forged-flood.ts reads them. */
function memoryOf(pid: number): { rss: number; peak: number } {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // It died since it was last seen alive: no reading (NaN), and the exit says why.
  }
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/** Sends one signed request of the kind and reads the whole answer: its status and length. */
function exchange(
  url: string,
  agent: Agent,
  kind: SoakKind,
  time: number,
): Promise<{ status: number; bytes: number; head: string }> {
  const headers = signedHeaders({ apiUser: API_USER, secret: SECRET, time });
  const body =
    kind === 'ids'
      ? JSON.stringify({
          id: `soak-${time}`,
          utctime: String(time),
          apiUser: API_USER,
          type: 150,
          body: {
            svcUser: 'soak@example.com',
            challengeType: 'UserKeyAndPattern',
            challengeExpiry: 'FiveMins',
            enableQRcode: false,
            status: 'NEW',
          },
        })
      : '';
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/svc/${kind === 'ids' ? 'challenge' : 'time'}`,
      {
        method: kind === 'ids' ? 'POST' : 'GET',
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let bytes = 0;
        let head = '';
        res.on('data', (c: Buffer) => {
          if (bytes < 200) head += c.subarray(0, 200 - bytes).toString();
          bytes += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, head }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs the soak (the proxy, its hostile upstream, the load) and returns what it read; `verdict` judges it. */
export async function proxySoak(o: ProxySoakOptions): Promise<ProxySoakResult> {
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let current: SoakKind = o.kinds[0];
  const up = await upstream(() => current);
  // A soak of memory, not of time: on a busy machine an answer may take longer than the 10 s an upstream has.
  const args = ['--upstream', up.url, '--upstream-timeout', '120000', '--port', '0', '--api-user', API_USER];
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${o.heapMiB}`,
      join(ROOT, 'dist/cli.cjs'),
      ...args,
      ...(o.secret ? ['--secret', SECRET] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let died: string | undefined;
  let stderr = '';
  child.on('exit', (code, signal) => (died = signal ?? `exit ${code}`));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the proxy did not start: ${out} ${stderr}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^mfa-sim listening on (http:\/\/\S+)$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          // The request log goes on being read (and dropped), as a terminal would.
          child.stdout.removeAllListeners('data');
          child.stdout.resume();
          resolve(m[1]);
        }
      });
      child.once('exit', () => reject(new Error(`the proxy exited at start: ${out} ${stderr}`)));
    });
    const rssStart = memoryOf(child.pid!).rss;
    log(`proxy-soak: RSS at start ${mib(rssStart)} MiB`);
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    let lastTime = 0;
    let peak = rssStart;
    const results: KindResult[] = [];
    for (const kind of o.kinds) {
      current = kind;
      const r: KindResult = { kind, answered: 0, readings: [], bad: 0 };
      results.push(r);
      let sent = 0;
      let answered = 0;
      const t0 = performance.now();
      while (answered < o.answers && died === undefined) {
        const until = Math.min(o.answers, answered + o.every);
        const worker = async () => {
          while (sent < until && died === undefined) {
            sent++;
            lastTime = Math.max(Date.now(), lastTime + 1);
            try {
              const a = await exchange(url, agent, kind, lastTime);
              const ok = a.status === (kind === 'ids' ? 202 : 200) && a.bytes > HUGE;
              if (!ok && r.bad++ === 0) r.sample = `HTTP ${a.status}, ${a.bytes} bytes: ${a.head}`;
            } catch (e) {
              if (r.bad++ === 0) r.sample = (e as Error).message;
            }
            r.answered = ++answered;
          }
        };
        await Promise.all(Array.from({ length: CONNECTIONS }, worker));
        if (died !== undefined) break;
        const { rss, peak: sofar } = memoryOf(child.pid!);
        peak = sofar;
        r.readings.push({ answered, rss });
        log(
          `proxy-soak: ${kind} ${String(answered).padStart(6)} answered  ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s  RSS ${mib(rss).padStart(7)} MiB${r.bad ? `  ${r.bad} not as sent` : ''}`,
        );
      }
    }
    agent.destroy();
    let journal: ProxySoakResult['journal'];
    if (died === undefined) {
      const t = performance.now();
      const res = await fetch(`${url}/__sim/journal`);
      const bytes = (await res.arrayBuffer()).byteLength;
      journal = { ms: Math.round(performance.now() - t), status: res.status, bytes };
      log(`proxy-soak: GET /__sim/journal: HTTP ${res.status}, ${mib(bytes)} MiB in ${journal.ms} ms`);
    } else log(`proxy-soak: the proxy died (${died}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return { kinds: results, died, journal, rssStart, rssPeak: peak };
  } finally {
    if (died === undefined) child.kill('SIGTERM');
    await new Promise<void>((resolve) => up.server.close(() => resolve()).closeAllConnections());
  }
}

/** Whether a run passed: alive, every answer as sent, RSS within `bound` bytes of its reading at the first thousand. */
export function verdict(r: ProxySoakResult, bound: number): { pass: boolean; lines: string[] } {
  const lines: string[] = [];
  let pass = r.died === undefined && r.journal?.status === 200;
  if (r.died !== undefined) lines.push(`the proxy died: ${r.died}`);
  for (const k of r.kinds) {
    const base = k.readings.find((x) => x.answered >= 1000) ?? k.readings[0];
    const after = k.readings.filter((x) => x.answered > (base?.answered ?? 0));
    const most = Math.max(base?.rss ?? 0, ...after.map((x) => x.rss));
    const last = k.readings[k.readings.length - 1];
    const flat = base !== undefined && most - base.rss <= bound;
    pass &&= flat && k.bad === 0;
    lines.push(
      `${k.kind}: ${k.answered} answered, ${k.bad} not as sent${k.sample ? ` (${k.sample})` : ''}; RSS ${base ? mib(base.rss) : '?'} MiB after ${base?.answered ?? '?'}, at most ${mib(most)} MiB after it (+${mib(most - (base?.rss ?? 0))}), ${last ? mib(last.rss) : '?'} MiB at the end; bound +${mib(bound)} MiB`,
    );
  }
  lines.push(`RSS at start ${mib(r.rssStart)} MiB, at its peak ${mib(r.rssPeak)} MiB`);
  return { pass, lines };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  let values: Record<string, string | boolean>;
  try {
    ({ values } = parseArgs({
      options: {
        answers: { type: 'string', default: '5000' },
        kind: { type: 'string', default: 'both' },
        heap: { type: 'string', default: '512' },
        every: { type: 'string', default: '500' },
        bound: { type: 'string', default: '64' },
        'no-secret': { type: 'boolean', default: false },
      },
    }) as { values: Record<string, string | boolean> });
  } catch (e) {
    process.stderr.write(`proxy-soak: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const whole = (name: string, min: number, max: number) => {
    const n = Number(values[name]);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    process.stderr.write(`proxy-soak: --${name} must be a whole number from ${min} to ${max}\n`);
    process.exit(2);
  };
  const kind = values.kind as string;
  if (!['both', 'ids', 'keys'].includes(kind)) {
    process.stderr.write('proxy-soak: --kind must be both, ids or keys\n');
    process.exit(2);
  }
  const answersEach = whole('answers', 1000, 10_000_000);
  const options: ProxySoakOptions = {
    answers: answersEach,
    kinds: kind === 'both' ? ['ids', 'keys'] : [kind as SoakKind],
    heapMiB: whole('heap', 64, 65_536),
    every: whole('every', 100, answersEach),
    secret: values['no-secret'] !== true,
  };
  const bound = whole('bound', 1, 100_000) * MiB;
  process.stderr.write(
    `proxy-soak: ${answersEach.toLocaleString('en')} answers of each kind (${options.kinds.join(', ')}), values of ${HUGE.toLocaleString('en')} characters, a ${options.heapMiB} MiB heap, ${options.secret ? 'with' : 'without'} the secret\n`,
  );
  proxySoak(options)
    .then((r) => {
      const v = verdict(r, bound);
      for (const line of v.lines) console.log(line);
      console.log(v.pass ? 'PASS' : 'FAIL');
      process.exitCode = v.pass ? 0 : 1;
    })
    .catch((e: Error) => {
      process.stderr.write(`proxy-soak: ${e.message}\n`);
      process.exitCode = 1;
    });
}
