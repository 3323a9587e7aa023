/**
 * The benchmark: mfa-sim against a bare Express 5 app, in the same run, interleaved and repeated.
 *
 *   npm run bench                 full run (about 10 minutes on 2 cores)
 *   npm run bench -- --smoke      a few seconds: every scenario once, briefly; checks answers, not targets
 *   options: --rounds N --duration S --soak N (requests) --starts N
 *            --only time,qr,noqr,badsig,start,soak (a part of the run, while tuning)
 *
 * Load: wrk, 2 threads, 32 keep-alive connections; each mfa-sim request freshly signed (new nonce and time,
 * 64 API users). Every answer's status and code are checked, for the baseline too.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_USERS, cpuMs, median, peakRssMiB, post, ROOT, startServer, writeRequests, writeScenario, type Server } from './lib.js';
import { soak, type SoakResult } from './soak.js';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const ROUNDS = opt('rounds', smoke ? 1 : 5);
const DURATION = opt('duration', smoke ? 1 : 8);
const WARMUP = smoke ? 1 : 2;
const SOAK = opt('soak', smoke ? 20_000 : 1_000_000);
const STARTS = opt('starts', smoke ? 1 : 5);
/** Requests written per wrk run: more than the fastest server can take, so none is ever sent twice. */
const MAX_RATE = 30_000;

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-bench-'));
const scenarioFile = join(dir, 'bench.yaml');
writeScenario(scenarioFile);

interface Case {
  /** For --only. */
  key: string;
  name: string;
  path: string;
  kind: 'none' | 'qr' | 'noqr';
  status: number;
  code: number;
  badSignature?: boolean;
  /** Target: throughput ratio to bare Express, at least. */
  target: number;
  p99NoWorse?: boolean;
}

const ALL_CASES: Case[] = [
  { key: 'time', name: 'signed time', path: '/v1/svc/time', kind: 'none', status: 200, code: 15000, target: 1.0, p99NoWorse: true },
  { key: 'qr', name: 'new challenge, QR image', path: '/v1/svc/challenge', kind: 'qr', status: 202, code: 2025, target: 0.25 },
  { key: 'noqr', name: 'new challenge, no QR', path: '/v1/svc/challenge', kind: 'noqr', status: 202, code: 2025, target: 0.8 },
  { key: 'badsig', name: 'bad signature (-4037)', path: '/v1/svc/time', kind: 'none', status: 400, code: -4037, badSignature: true, target: 0.8 },
];

const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : undefined;
const CASES = ALL_CASES.filter((c) => !only || only.includes(c.key));
const skip = (what: string) => only !== undefined && !only.includes(what);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  peakRss: number;
  cpuUs: number;
  requests: number;
  bad: number;
}

const BASELINE_ARGS = ['bench/express-baseline.mjs', '0'];
const SIM_ARGS = ['dist/cli.js', '--port', '0', '--quiet', '--scenario', scenarioFile];
let failures = 0;

function wrk(url: string, seconds: number, file: string, c: Case, baseline: boolean): { requests: number; seconds: number; p50: number; p99: number; bad: number; sample?: string } {
  const status = baseline ? 200 : c.status;
  const code = baseline ? 15000 : c.code;
  const r = spawnSync('wrk', ['-t2', '-c32', `-d${seconds}s`, '-s', join(ROOT, 'bench/wrk.lua'), url, '--', file, '2', c.path, c.kind, String(status), String(code)], {
    encoding: 'utf8',
  });
  const line = /^WRK (.*)$/m.exec(r.stdout ?? '');
  if (!line) throw new Error(`wrk failed: ${r.stderr || r.stdout}`);
  const j = JSON.parse(line[1]) as Record<string, number>;
  const sample = /^WRKSAMPLE (.*)$/m.exec(r.stdout)?.[1];
  const bad = j.bad + j.connect + j.read + j.write + j.timeout + (j.wrapped > 0 ? 1 : 0);
  return { requests: j.requests, seconds: j.duration_us / 1e6, p50: j.p50_us / 1000, p99: j.p99_us / 1000, bad, sample: j.wrapped > 0 ? 'ran out of pre-signed requests' : sample };
}

/** One measurement: a fresh server process, a warm-up, then the measured load. */
async function measure(c: Case, baseline: boolean): Promise<Load> {
  const server = await startServer(baseline ? BASELINE_ARGS : SIM_ARGS);
  try {
    const warm = join(dir, 'warm.txt');
    const file = join(dir, 'load.txt');
    const after = writeRequests(warm, Math.ceil(MAX_RATE * WARMUP), c.badSignature);
    writeRequests(file, Math.ceil(MAX_RATE * DURATION), c.badSignature, after);
    const w = wrk(server.url, WARMUP, warm, c, baseline);
    const cpu0 = cpuMs(server.pid);
    const m = wrk(server.url, DURATION, file, c, baseline);
    const cpu = cpuMs(server.pid) - cpu0;
    const bad = w.bad + m.bad;
    if (bad > 0) {
      failures++;
      process.stderr.write(`  ${baseline ? 'express' : 'mfa-sim'} ${c.name}: ${bad} answers not as expected, e.g. ${w.sample ?? m.sample}\n`);
    }
    return { rps: m.requests / m.seconds, p50: m.p50, p99: m.p99, peakRss: peakRssMiB(server.pid), cpuUs: (cpu * 1000) / m.requests, requests: m.requests, bad };
  } finally {
    await server.stop();
  }
}

interface Row {
  c: Case;
  base: Load[];
  sim: Load[];
}

async function loadTable(): Promise<Row[]> {
  const rows: Row[] = CASES.map((c) => ({ c, base: [], sim: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      // Interleaved: the order alternates from round to round.
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const baseline of order) {
        const l = await measure(row.c, baseline);
        (baseline ? row.base : row.sim).push(l);
        process.stderr.write(
          `  round ${round + 1}/${ROUNDS} ${row.c.name.padEnd(24)} ${baseline ? 'express' : 'mfa-sim'}  ${l.rps.toFixed(0)} req/s  p50 ${l.p50.toFixed(2)} ms  p99 ${l.p99.toFixed(2)} ms  peak ${l.peakRss.toFixed(0)} MiB  ${l.cpuUs.toFixed(0)} µs CPU/req\n`,
        );
      }
    }
  }
  return rows;
}

/** Spawn to first answer (a signed time request for mfa-sim; the same POST for Express), ms. */
async function firstAnswer(baseline: boolean): Promise<number> {
  const t0 = performance.now();
  const user = { id: '123456789', secret: 'bench-start-secret' };
  const server = await startServer(baseline ? BASELINE_ARGS : ['dist/cli.js', '--port', '0', '--secret', user.secret]);
  try {
    const a = await post(server.url, '/v1/svc/time', baseline ? undefined : user);
    const ok = baseline ? a.status === 200 : a.status === 200 && a.body.includes('"code":15000,');
    if (!ok) {
      failures++;
      process.stderr.write(`  first answer of ${baseline ? 'express' : 'mfa-sim'} not as expected: ${a.status} ${a.body}\n`);
    }
    return performance.now() - t0;
  } finally {
    await server.stop();
  }
}

/** In a fresh process: import of the package, then startSimulator() to listening, and to its first answer. */
function inProcessStart(): { importMs: number; readyMs: number } {
  const code = `
    const t0 = performance.now();
    const m = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
    const t1 = performance.now();
    const sim = await m.startSimulator({ secret: 'x' });
    const t2 = performance.now();
    await sim.close();
    console.log(JSON.stringify({ importMs: t1 - t0, readyMs: t2 - t1 }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { importMs: number; readyMs: number };
}

const ratio = (a: number, b: number) => a / b;
const fx = (x: number) => `${x.toFixed(2)}×`;
const ms = (x: number) => `${x.toFixed(2)} ms`;

function pairRatios(row: Row, f: (l: Load) => number): number {
  // The median of the per-round ratios: each pair ran back to back under the same conditions.
  return median(row.sim.map((s, i) => ratio(f(s), f(row.base[i]))));
}

async function main(): Promise<void> {
  const cond = `${smoke ? 'SMOKE (figures meaningless)' : 'full'}: ${ROUNDS} round(s) × ${DURATION} s per server and case (after ${WARMUP} s warm-up), wrk -t2 -c32, node ${process.version}, ${API_USERS.length} API users`;
  process.stderr.write(`bench ${cond}\n`);
  const rows = await loadTable();

  const starts = { sim: [] as number[], base: [] as number[] };
  const nStarts = skip('start') ? 0 : STARTS;
  for (let i = 0; i < nStarts; i++) {
    starts.base.push(await firstAnswer(true));
    starts.sim.push(await firstAnswer(false));
  }
  const inproc = Array.from({ length: nStarts }, () => inProcessStart());

  process.stderr.write(`  soak: ${skip('soak') ? 'skipped' : `${SOAK.toLocaleString('en')} fresh-nonce requests (9 time, 1 new challenge in 10)...`}\n`);
  const s: SoakResult = skip('soak') ? { requests: 0, bad: 0, rss10k: NaN, rssEnd: NaN, heap10k: NaN, heapEnd: NaN, rssMax: NaN, replayBytes: NaN, rps: NaN } : await soak(SOAK, scenarioFile);
  if (s.bad > 0) failures++;

  const out: string[] = [];
  out.push(`mfa-sim vs bare Express 5, ${cond}`);
  out.push('');
  if (rows.length) {
    out.push('| case | throughput | p50 | p99 | peak RSS | CPU per request | target | |');
    out.push('|---|---:|---:|---:|---:|---:|---|---|');
  }
  const verdicts: boolean[] = [];
  for (const row of rows) {
    const thr = pairRatios(row, (l) => l.rps);
    const p99s = median(row.sim.map((l) => l.p99));
    const p99b = median(row.base.map((l) => l.p99));
    const mem = pairRatios(row, (l) => l.peakRss);
    let ok = thr >= row.c.target && mem <= 1.2;
    let target = `≥ ${row.c.target}×, RSS ≤ 1.2×`;
    if (row.c.p99NoWorse) {
      ok &&= p99s <= p99b;
      target = `≥ ${row.c.target}×, p99 ≤ Express's, RSS ≤ 1.2×`;
    }
    verdicts.push(ok);
    out.push(
      `| ${row.c.name} | ${fx(thr)} (${median(row.sim.map((l) => l.rps)).toFixed(0)} vs ${median(row.base.map((l) => l.rps)).toFixed(0)} req/s) | ${fx(pairRatios(row, (l) => l.p50))} (${ms(median(row.sim.map((l) => l.p50)))} vs ${ms(median(row.base.map((l) => l.p50)))}) | ${fx(pairRatios(row, (l) => l.p99))} (${ms(p99s)} vs ${ms(p99b)}) | ${fx(mem)} (${median(row.sim.map((l) => l.peakRss)).toFixed(0)} vs ${median(row.base.map((l) => l.peakRss)).toFixed(0)} MiB) | ${fx(pairRatios(row, (l) => l.cpuUs))} (${median(row.sim.map((l) => l.cpuUs)).toFixed(0)} vs ${median(row.base.map((l) => l.cpuUs)).toFixed(0)} µs) | ${target} | ${ok ? 'met' : 'MISSED'} |`,
    );
  }
  out.push('');
  const startRatio = median(starts.sim) / median(starts.base);
  const ready = median(inproc.map((x) => x.readyMs));
  const grow = (s.rssEnd - s.rss10k) / 2 ** 20;
  const heapGrow = (s.heapEnd - s.heap10k) / 2 ** 20;
  out.push('| separate figure | mfa-sim | bare Express | ratio | target | |');
  out.push('|---|---:|---:|---:|---|---|');
  if (!skip('start')) {
    verdicts.push(startRatio <= 1.3, ready <= 20);
    out.push(`| CLI spawn to first answer (median of ${STARTS}) | ${ms(median(starts.sim))} | ${ms(median(starts.base))} | ${fx(startRatio)} | ≤ 1.3× | ${startRatio <= 1.3 ? 'met' : 'MISSED'} |`);
    out.push(`| startSimulator() to listening, in-process (median of ${STARTS}; import ${ms(median(inproc.map((x) => x.importMs)))}) | ${ms(ready)} | | | ≤ 20 ms | ${ready <= 20 ? 'met' : 'MISSED'} |`);
  }
  if (!skip('soak')) {
    const ok = grow <= 50 && heapGrow <= 50;
    verdicts.push(ok);
    out.push(
      `| soak: RSS and heap after ${s.requests.toLocaleString('en')} fresh-nonce requests (after GC) vs after 10,000 | RSS ${(s.rssEnd / 2 ** 20).toFixed(0)} MiB, heap ${(s.heapEnd / 2 ** 20).toFixed(0)} MiB | | RSS ${grow >= 0 ? '+' : ''}${grow.toFixed(1)} MiB, heap ${heapGrow >= 0 ? '+' : ''}${heapGrow.toFixed(1)} MiB (largest RSS reading ${(s.rssMax / 2 ** 20).toFixed(0)} MiB; replay memory ${(s.replayBytes / 2 ** 20).toFixed(1)} MiB; ${s.rps.toFixed(0)} req/s) | ≤ +50 MiB | ${ok ? 'met' : 'MISSED'} |`,
    );
  }
  out.push('');
  out.push(failures ? `${failures} measurement(s) saw answers that were not the expected code: see above.` : 'Every answer had the expected status and code.');
  if (!smoke) out.push(verdicts.every(Boolean) ? 'Every target met.' : 'Some targets MISSED.');
  process.stdout.write(`${out.join('\n')}\n`);
}

main()
  .then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(failures ? 1 : 0);
  })
  .catch((e) => {
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
