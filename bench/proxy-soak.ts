/**
 * The proxy soak: does proxy mode's memory level off under a hostile upstream? The built command line
 * (`node --max-old-space-size=<heap> dist/cli.cjs --upstream ...`, its request log on) forwards freshly signed
 * requests over 8 keep-alive connections to an upstream of the soak's own, whose every answer (within the 1 MiB an
 * answer may take) holds a different value nobody would send: `ids`, a new challenge (202, 2025) whose challengeId is
 * 900,000 characters; `keys`, the time (200, 15000) with an extra envelope key of 900,000 characters. Each kind is sent
 * `answers` times, `ids` first; RSS (from /proc, no collection forced) is read every `every` answers, and the journal
 * over HTTP at the end. Pass: the proxy stays alive, every answer came through as sent, and no RSS reading after the
 * first thousand of a kind is more than `bound` MiB above the reading at that thousand.
 *
 *   npm run soak:proxy -- [--answers 5000] [--kind both|ids|keys] [--heap 512] [--every 500] [--bound 64] [--no-secret]
 *                                                                       (exit 0 pass, 1 fail, 2 bad arguments)
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { signedHeaders } from '../src/index.js';
import { challengeBody, MiB, mib, startServer } from './lib.js';

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

export interface ProxySoakResult {
  /** Each kind's answers, RSS readings (answers so far, bytes) and what went wrong. */
  kinds: {
    kind: SoakKind;
    answered: number;
    readings: { answered: number; rss: number }[];
    bad: number;
    sample?: string;
  }[];
  /** How the proxy ended when it died during the soak. */
  died?: string;
  /** `GET /__sim/journal` at the end. */
  journal?: { ms: number; status: number; bytes: number };
  rssStart: number;
}

const API_USER = '123456789';
const SECRET = 'proxy-soak-secret';
/** The hostile value's length: with the envelope around it, the answer stays under the upstream's 1 MiB limit. */
const HUGE = 900_000;

/** A kind's answers: the n-th's hostile value made different by n, written over its first characters. */
function answers(kind: SoakKind): (n: number) => Buffer {
  const mark = 'X'.repeat(HUGE);
  const common = { id: 'soak', utctime: new Date().toISOString() };
  const link = { challengeQRcodeUrl: 'https://upstream.example/p' };
  const envelope =
    kind === 'ids'
      ? { ...common, status: 202, code: 2025, message: JSON.stringify({ challengeId: mark, ...link }) }
      : { ...common, status: 200, code: 15000, message: '{"utctime":"2026-01-01T00:00:00.000Z"}', [mark]: 1 };
  const template = Buffer.from(
    JSON.stringify({ ...envelope, moreInfo: `https://upstream.example/codes?code=${envelope.code}` }),
  );
  const at = template.indexOf(mark.slice(0, 10));
  return (n) => {
    const out = Buffer.from(template);
    out.write(String(n).padStart(10, '0'), at, 'latin1');
    return out;
  };
}

/** A process's resident set, bytes, from /proc (Linux); NaN once it is gone. */
function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
  } catch {
    return NaN;
  }
}

/** A signed request of the kind through the proxy, read whole: its status, length and first characters. */
function exchange(url: string, agent: Agent, kind: SoakKind, time: number) {
  const sent = kind === 'ids' ? challengeBody(`soak-${time}`, time, API_USER, 'soak@example.com') : '';
  const headers = { ...signedHeaders({ apiUser: API_USER, secret: SECRET, time }), 'content-type': 'application/json' };
  const path = `${url}/v1/svc/${kind === 'ids' ? 'challenge' : 'time'}`;
  const method = kind === 'ids' ? 'POST' : 'GET';
  return new Promise<{ status: number; bytes: number; head: string }>((resolve, reject) => {
    const req = request(path, { method, agent, headers: { ...headers, 'content-length': sent.length } }, (res) => {
      let bytes = 0;
      let head = '';
      res.on('data', (c: Buffer) => {
        if (bytes < 200) head += c.subarray(0, 200 - bytes).toString();
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, head })).on('error', reject);
    });
    req.on('error', reject).end(sent);
  });
}

/** Runs the soak (the proxy, its hostile upstream, the load) and returns what it read; `verdict` judges it. */
export async function proxySoak(o: ProxySoakOptions): Promise<ProxySoakResult> {
  const log = o.log ?? ((line: string) => console.error(line));
  let kind = o.kinds[0];
  let n = 0;
  const makers = { ids: answers('ids'), keys: answers('keys') };
  const upstream = createServer((req, res) => {
    req.resume().on('end', () => {
      const body = makers[kind](n++);
      const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
      res.writeHead(kind === 'ids' ? 202 : 200, headers).end(body);
    });
  });
  // The proxy keeps its connections open; one closed as it is reused would be a -5000, not what the soak measures.
  upstream.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const up = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  // A soak of memory, not of time: on a busy machine an answer may take longer than the 10 s an upstream has.
  const args = ['--upstream', up, '--upstream-timeout', '120000', '--port', '0', '--api-user', API_USER];
  if (o.secret) args.push('--secret', SECRET);
  const heap = `--max-old-space-size=${o.heapMiB}`;
  const proxy = await startServer([heap, 'dist/cli.cjs', ...args]).catch(
    (e: Error) => (upstream.close(), Promise.reject(e)),
  );
  const pid = proxy.proc.pid!;
  let died: string | undefined;
  proxy.proc.on('exit', (code, signal) => (died = signal ?? `exit ${code}`));
  try {
    const rssStart = rssOf(pid);
    log(`proxy-soak: RSS at start ${mib(rssStart)} MiB`);
    let lastTime = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const kinds: ProxySoakResult['kinds'] = [];
    for (kind of o.kinds) {
      const r: ProxySoakResult['kinds'][number] = { kind, answered: 0, readings: [], bad: 0 };
      kinds.push(r);
      let sent = 0;
      const t0 = performance.now();
      while (r.answered < o.answers && died === undefined) {
        const until = Math.min(o.answers, r.answered + o.every);
        const worker = async () => {
          while (sent < until && died === undefined) {
            sent++;
            lastTime = Math.max(Date.now(), lastTime + 1);
            try {
              const a = await exchange(proxy.url, agent, r.kind, lastTime);
              const ok = a.status === (r.kind === 'ids' ? 202 : 200) && a.bytes > HUGE;
              if (!ok && r.bad++ === 0) r.sample = `HTTP ${a.status}, ${a.bytes} bytes: ${a.head}`;
            } catch (e) {
              if (r.bad++ === 0) r.sample = (e as Error).message;
            }
            r.answered++;
          }
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        if (died !== undefined) break;
        const [rss, seconds] = [rssOf(pid), ((performance.now() - t0) / 1000).toFixed(0)];
        r.readings.push({ answered: r.answered, rss });
        log(`proxy-soak: ${kind} ${r.answered} answered, ${seconds} s, RSS ${mib(rss)} MiB, ${r.bad} not as sent`);
      }
    }
    agent.destroy();
    if (died !== undefined) {
      log(`proxy-soak: the proxy died (${died}): ${proxy.stderr().trim().split('\n').slice(-3).join(' | ')}`);
      return { kinds, died, rssStart };
    }
    const t = performance.now();
    const res = await fetch(`${proxy.url}/__sim/journal`);
    const bytes = (await res.arrayBuffer()).byteLength;
    const journal = { ms: Math.round(performance.now() - t), status: res.status, bytes };
    log(`proxy-soak: GET /__sim/journal: HTTP ${res.status}, ${mib(bytes)} MiB in ${journal.ms} ms`);
    return { kinds, journal, rssStart };
  } finally {
    await proxy.stop();
    await new Promise((resolve) => upstream.close(resolve).closeAllConnections());
  }
}

/** Whether a run passed: alive, every answer as sent, RSS within `bound` bytes of its reading at the first thousand. */
export function verdict(r: ProxySoakResult, bound: number): { pass: boolean; lines: string[] } {
  const lines = r.died === undefined ? [] : [`the proxy died: ${r.died}`];
  let pass = r.died === undefined && r.journal?.status === 200;
  for (const k of r.kinds) {
    const base = k.readings.find((x) => x.answered >= 1000) ?? k.readings[0];
    const most = Math.max(...k.readings.filter((x) => x.answered >= (base?.answered ?? 0)).map((x) => x.rss));
    pass &&= base !== undefined && most - base.rss <= bound && k.bad === 0;
    lines.push(
      `${k.kind}: ${k.answered} answered, ${k.bad} not as sent${k.sample ? ` (${k.sample})` : ''}; RSS ${mib(base?.rss ?? NaN)} MiB after ${base?.answered} answers, at most ${mib(most)} MiB after; bound +${mib(bound)} MiB`,
    );
  }
  return { pass, lines: [...lines, `RSS at start ${mib(r.rssStart)} MiB`] };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const stop = (why: string) => (console.error(`proxy-soak: ${why}`), process.exit(2));
  let values: Record<string, string | boolean> = {};
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
    }));
  } catch (e) {
    stop((e as Error).message);
  }
  const whole = (name: string, min: number, max: number) => {
    const n = Number(values[name]);
    if (!(Number.isInteger(n) && n >= min && n <= max)) stop(`--${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
  const kind = values.kind as string;
  if (!['both', 'ids', 'keys'].includes(kind)) stop('--kind must be both, ids or keys');
  const answers = whole('answers', 1000, 10_000_000);
  const options: ProxySoakOptions = {
    answers,
    kinds: kind === 'both' ? ['ids', 'keys'] : [kind as SoakKind],
    heapMiB: whole('heap', 64, 65_536),
    every: whole('every', 100, answers),
    secret: values['no-secret'] !== true,
  };
  const bound = whole('bound', 1, 100_000) * MiB;
  const given = `${options.heapMiB} MiB heap, ${options.secret ? 'with' : 'without'} the secret`;
  console.error(`proxy-soak: ${answers} answers of each of ${options.kinds.join(' and ')}, ${given}`);
  const v = verdict(await proxySoak(options), bound);
  console.log([...v.lines, v.pass ? 'PASS' : 'FAIL'].join('\n'));
  process.exitCode = v.pass ? 0 : 1;
}
