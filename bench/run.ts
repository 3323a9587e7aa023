/**
 * The benchmark: mfa-sim against the floor of a faithful server (every check of a signed request, a journal entry
 * and a log line in one function on node:http: bench/checks-baseline.ts), the physical limit of its platform (a bare
 * node:http server answering a fixed envelope) and a bare Express 5 app, in the same run, interleaved and repeated.
 * mfa-sim is measured as users run it (the command line with its default request log, into a pipe) and with --quiet.
 * Its cost targets are ratios to the floor measured in the same round.
 *
 *   npm run bench                 full run (about 20 minutes on 2 cores)
 *   npm run bench -- --smoke      a few seconds per part: every case once, briefly; checks answers, not targets
 *   options: --rounds N --duration S --soak N (requests) --starts N
 *            --only time,qr,noqr,badsig,budget,start,growth,soak (a part of the run, while tuning)
 *
 * Load: wrk, 2 threads, 32 keep-alive connections; each mfa-sim request freshly signed (new nonce and time,
 * 64 API users). Every answer's status and code are checked, the baselines' too.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetMarkdown, budgetTable, type BudgetResult } from './budget.js';
import { growthMarkdown, growthTable, type GrowthResult } from './growth.js';
import { API_USERS, median, post, ROOT, startServer, writeScenario } from './lib.js';
import {
  LOAD_CASES,
  measureSideBySide,
  SERVER_LABEL,
  serverArgs,
  type Load,
  type LoadCase,
  type ServerKind,
} from './measure.js';
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
const STARTS = opt('starts', smoke ? 1 : 11);
/**
 * Requests written per second of a wrk run: more than the fastest mfa-sim can take, so none is ever sent twice (a
 * request sent again is a replay, refused, and fails the run). mfa-sim --quiet answered over 31,000 signed requests a
 * second on 2026-11-25, past the 30,000 this was; a baseline, which answers any request alike, may go round the file.
 */
const MAX_RATE = 50_000;

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-bench-'));
const scenarioFile = join(dir, 'bench.yaml');
writeScenario(scenarioFile);

interface Case extends LoadCase {
  /**
   * Targets for mfa-sim as users run it, as ratios to the floor in the same round: its throughput, and its CPU per
   * request. The floor answers a signed time request and refuses a bad signature; for a case it does not serve (a new
   * challenge), mfa-sim is held to the floor's signed time, measured beside it in the same round.
   */
  minThroughput?: number;
  maxCpu?: number;
}

const ALL_CASES: Case[] = [
  { ...LOAD_CASES.time, minThroughput: 0.9, maxCpu: 1.15 },
  { ...LOAD_CASES.badsig, minThroughput: 0.75 },
  { ...LOAD_CASES.noqr, minThroughput: 0.6 },
  LOAD_CASES.qr,
];
/** The cases the floor serves as the contract says; for the others it serves signed time, beside mfa-sim's case. */
const floorServes = (c: LoadCase) => c.key === 'time' || c.key === 'badsig';

/**
 * The servers of a row in a round, unit by unit: the floor and mfa-sim, whose ratio is the target, are one unit,
 * measured side by side in turns (bench/measure.ts: measureSideBySide), which of them first alternating from round to
 * round, so that a change of the host's speed (the rounds' spread is wider than the targets' margins) falls on both
 * alike; the order of the units turns by one from round to round.
 */
function roundUnits(round: number, c: LoadCase): ServerKind[][] {
  // A new challenge without QR has a floor of its own too, beside them in the same turns (shown, not a target).
  const side: ServerKind[] = c.kind === 'noqr' ? ['floor', 'sim', 'challengeFloor'] : ['floor', 'sim'];
  const pair = round % 2 === 0 ? side : [...side].reverse();
  const units: ServerKind[][] = [['node'], ['express'], pair, ['quiet']];
  return units.map((_, i) => units[(i + round) % units.length]);
}

/**
 * The floor and mfa-sim side by side take turns of 2 s (wrk takes whole seconds), as many as the duration holds, at
 * least two; a smoke takes two turns of 1 s, so that the turns are run wherever the benchmark is.
 */
const TURN_SECONDS = smoke ? 1 : 2;
const TURNS = Math.max(2, Math.floor(DURATION / TURN_SECONDS));

const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : undefined;
const CASES = ALL_CASES.filter((c) => !only || only.includes(c.key));
const skip = (what: string) => only !== undefined && !only.includes(what);
let failures = 0;

type Row = { c: Case } & Record<ServerKind, Load[]>;

async function loadTable(): Promise<Row[]> {
  const rows: Row[] = CASES.map((c) => ({
    c,
    node: [],
    express: [],
    floor: [],
    challengeFloor: [],
    sim: [],
    quiet: [],
  }));
  const plan = { dir, warmup: WARMUP, duration: DURATION, maxRate: MAX_RATE };
  const pairPlan = { ...plan, duration: TURNS * TURN_SECONDS };
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      for (const unit of roundUnits(round, row.c)) {
        const servers = unit.map((kind) => ({
          c: kind === 'floor' && !floorServes(row.c) ? LOAD_CASES.time : row.c,
          args: serverArgs(kind, scenarioFile),
          baseline: kind === 'node' || kind === 'express',
        }));
        const sideBySide = unit.length > 1;
        const loads = await measureSideBySide(servers, sideBySide ? pairPlan : plan, sideBySide ? TURNS : 1);
        unit.forEach((kind, i) => {
          const l = loads[i];
          const served = servers[i].c;
          if (l.bad > 0) {
            failures++;
            process.stderr.write(
              `  ${SERVER_LABEL[kind]} ${row.c.name}: ${l.bad} answers not as expected, e.g. ${l.sample}\n`,
            );
          }
          row[kind].push(l);
          process.stderr.write(
            `  round ${round + 1}/${ROUNDS} ${row.c.name.padEnd(24)} ${(served === row.c ? SERVER_LABEL[kind] : `${SERVER_LABEL[kind]}, ${served.name}`).padEnd(18)} ${l.rps.toFixed(0).padStart(6)} req/s  p50 ${l.p50.toFixed(2)} ms  p99 ${l.p99.toFixed(2)} ms  peak ${l.peakRss.toFixed(0)} MiB  ${l.cpuUs.toFixed(0)} µs CPU/req  (harness ${l.harnessCpuMs.toFixed(0)} ms CPU)${l.droppedLines ? `  ${l.droppedLines} log lines DROPPED` : ''}\n`,
          );
        });
      }
    }
  }
  return rows;
}

/**
 * Spawn to first answer (a signed time request for mfa-sim, started as a user starts it; the same POST for a baseline),
 * ms. `sim-first`: mfa-sim's first start on a machine, before V8's code cache of the command line is kept (a cache
 * folder of its own, empty: XDG_CACHE_HOME, where the command keeps it on Linux); `sim`: every later start.
 */
async function firstAnswer(kind: 'node' | 'sim' | 'sim-first'): Promise<number> {
  const t0 = performance.now();
  const user = { id: '123456789', secret: 'bench-start-secret' };
  const fresh = kind === 'sim-first' ? mkdtempSync(join(dir, 'first-start-')) : undefined;
  const server = await startServer(
    kind === 'node' ? serverArgs('node', scenarioFile) : ['dist/cli.cjs', '--port', '0', '--secret', user.secret],
    fresh === undefined ? {} : { XDG_CACHE_HOME: fresh },
  );
  try {
    const a = await post(server.url, '/v1/svc/time', kind === 'node' ? undefined : user);
    if (!(a.status === 200 && a.body.includes('"code":15000,'))) {
      failures++;
      process.stderr.write(`  first answer of ${kind} not as expected: ${a.status} ${a.body}\n`);
    }
    return performance.now() - t0;
  } finally {
    await server.stop();
    if (fresh !== undefined) rmSync(fresh, { recursive: true, force: true });
  }
}

/**
 * In a fresh process: import of the package, then startSimulator() to listening. `first`: the first start on a machine,
 * before V8's code cache of the package's program is kept (a cache folder of its own, empty, as for the command line).
 */
function inProcessStart(first = false): { importMs: number; readyMs: number; express: boolean } {
  const code = `
    const t0 = performance.now();
    const m = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
    const t1 = performance.now();
    const sim = await m.startSimulator({ secret: 'x' });
    const t2 = performance.now();
    const { createRequire } = await import('node:module');
    const express = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/express/'));
    await sim.close();
    console.log(JSON.stringify({ importMs: t1 - t0, readyMs: t2 - t1, express }));`;
  const fresh = first ? mkdtempSync(join(dir, 'first-import-')) : undefined;
  const env = fresh === undefined ? process.env : { ...process.env, XDG_CACHE_HOME: fresh };
  try {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as { importMs: number; readyMs: number; express: boolean };
  } finally {
    if (fresh !== undefined) rmSync(fresh, { recursive: true, force: true });
  }
}

/** The same for the platform alone, in a fresh process: import node:http, create a server, listen; ms. */
function inProcessFloor(): number {
  const code = `
    const t0 = performance.now();
    const { createServer } = await import('node:http');
    const server = createServer((q, r) => r.end());
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const t1 = performance.now();
    server.close();
    console.log(t1 - t0);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout);
}

const fx = (x: number) => `${x.toFixed(2)}×`;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const med = (ls: Load[], f: (l: Load) => number) => median(ls.map(f));
/** The median of the per-round ratios: each pair ran in the same round, under the same conditions. */
const pair = (a: Load[], b: Load[], f: (l: Load) => number) => median(a.map((x, i) => f(x) / f(b[i])));
const fig = (ls: Load[]) => `${med(ls, (l) => l.rps).toFixed(0)} req/s, ${med(ls, (l) => l.cpuUs).toFixed(0)} µs`;

/**
 * The line under the table for a new challenge's own floor: how far below the floor's signed time the least server
 * that makes a new challenge is, and how far mfa-sim's new challenge is from it (each the median of the per-round
 * ratios, all three side by side in the same turns).
 */
function challengeFloorLine(row: Row): string {
  const cf = row.challengeFloor;
  return `A new challenge's own floor (bench/challenge-floor.ts: the floor's checks, the body read and parsed, its fields checked against the contract's tables, a challenge made and kept as mfa-sim keeps them; beside the floor and mfa-sim in the same turns; shown, not a target): ${fig(cf)}, ${fx(pair(cf, row.floor, (l) => l.rps))} the floor's signed time (CPU ${fx(pair(cf, row.floor, (l) => l.cpuUs))}); mfa-sim's new challenge is ${fx(pair(row.sim, cf, (l) => l.rps))} it (CPU ${fx(pair(row.sim, cf, (l) => l.cpuUs))}).`;
}

async function main(): Promise<void> {
  const cond = `${smoke ? 'SMOKE (figures meaningless)' : 'full'}: ${ROUNDS} round(s) × ${DURATION} s per server and case (the floor and mfa-sim side by side, in ${TURNS} turns of ${TURN_SECONDS} s; after ${WARMUP} s warm-up), wrk -t2 -c32, node ${process.version}, ${API_USERS.length} API users`;
  process.stderr.write(`bench ${cond}\n`);
  const rows = await loadTable();
  const budget: BudgetResult[] = skip('budget')
    ? []
    : await budgetTable({ dir, warmup: WARMUP, duration: smoke ? 1 : 5, maxRate: MAX_RATE }, Math.min(ROUNDS, 3), (l) =>
        process.stderr.write(`${l}\n`),
      );
  if (budget.some((b) => b.loads.some((l) => l.bad > 0))) failures++;

  const starts = { sim: [] as number[], first: [] as number[], node: [] as number[] };
  const nStarts = skip('start') ? 0 : STARTS;
  // Started once untimed, as on any machine where it ran before: its code cache is kept from then on.
  if (nStarts > 0) await firstAnswer('sim');
  for (let i = 0; i < nStarts; i++) {
    starts.node.push(await firstAnswer('node'));
    starts.sim.push(await firstAnswer('sim'));
    starts.first.push(await firstAnswer('sim-first'));
  }
  // Interleaved with the platform's own floor, which shows how fast this machine is at the time; once untimed first,
  // as the command line is.
  if (nStarts > 0) inProcessStart();
  const floors: number[] = [];
  const firstImports: number[] = [];
  const inproc = Array.from({ length: nStarts }, () => {
    floors.push(inProcessFloor());
    const first = inProcessStart(true);
    firstImports.push(first.importMs + first.readyMs);
    return inProcessStart();
  });

  const growth: GrowthResult[] = skip('growth')
    ? []
    : await growthTable({ dir, warmup: WARMUP, duration: smoke ? 1 : 3, maxRate: MAX_RATE }, (l) =>
        process.stderr.write(`${l}\n`),
      );
  if (growth.some((g) => g.load.bad > 0)) failures++;

  process.stderr.write(
    `  soak: ${skip('soak') ? 'skipped' : `${SOAK.toLocaleString('en')} fresh-nonce requests (9 time, 1 new challenge in 10)...`}\n`,
  );
  const s: SoakResult = skip('soak')
    ? {
        requests: 0,
        bad: 0,
        rss10k: NaN,
        rssEnd: NaN,
        heap10k: NaN,
        heapEnd: NaN,
        rssMax: NaN,
        replayBytes: NaN,
        rps: NaN,
      }
    : await soak(SOAK, scenarioFile);
  if (s.bad > 0) failures++;

  const out: string[] = [`mfa-sim vs the floor, bare node:http and bare Express 5, ${cond}`, ''];
  const verdicts: boolean[] = [];
  if (rows.length) {
    out.push(
      '| case | mfa-sim (request log on) | vs the floor: throughput, CPU/request | target (vs the floor) | | floor | mfa-sim --quiet | node:http | Express | mfa-sim vs node:http | p50 / p99 (mfa-sim) | peak RSS (mfa-sim, vs Express) |',
    );
    out.push('|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|');
  }
  for (const row of rows) {
    // The floor beside mfa-sim in each round: its run of this case, or of signed time for a case it does not serve.
    const floor = row.floor;
    const thr = floor?.length ? pair(row.sim, floor, (l) => l.rps) : NaN;
    const cpu = floor?.length ? pair(row.sim, floor, (l) => l.cpuUs) : NaN;
    const parts: string[] = [];
    let ok = true;
    if (row.c.minThroughput !== undefined) {
      parts.push(`≥ ${row.c.minThroughput}× throughput`);
      ok &&= thr >= row.c.minThroughput;
    }
    if (row.c.maxCpu !== undefined) {
      parts.push(`≤ ${row.c.maxCpu}× CPU`);
      ok &&= cpu <= row.c.maxCpu;
    }
    if (parts.length) verdicts.push(ok);
    const floorFig = floor?.length ? `${fig(floor)}${floorServes(row.c) ? '' : ' (signed time)'}` : '—';
    const vsFloor = floor?.length ? `**${fx(thr)}**, **${fx(cpu)}**` : '—';
    out.push(
      `| ${row.c.name} | ${fig(row.sim)} | ${vsFloor} | ${parts.join(', ') || '—'} | ${parts.length ? (ok ? 'met' : 'MISSED') : ''} | ${floorFig} | ${fig(row.quiet)} | ${fig(row.node)} | ${fig(row.express)} | ${fx(pair(row.sim, row.node, (l) => l.rps))}, ${fx(pair(row.sim, row.node, (l) => l.cpuUs))} | ${ms(med(row.sim, (l) => l.p50))} / ${ms(med(row.sim, (l) => l.p99))} | ${med(row.sim, (l) => l.peakRss).toFixed(0)} MiB (${fx(pair(row.sim, row.express, (l) => l.peakRss))}) |`,
    );
  }
  for (const row of rows) if (row.challengeFloor.length) out.push('', challengeFloorLine(row));
  if (budget.length) {
    out.push(
      '',
      "What bare node:http leaves for a server's own work: spinning a fixed time before each answer, or checking each request's signature and nothing else; same load, same rounds.",
      '',
    );
    out.push(...budgetMarkdown(budget));
  }
  out.push('');
  if (!skip('start') || !skip('soak')) {
    out.push('| separate figure | mfa-sim | baseline | ratio | target | |');
    out.push('|---|---:|---:|---:|---|---|');
  }
  if (!skip('start')) {
    const startRatio = median(starts.sim) / median(starts.node);
    const total = median(inproc.map((x) => x.importMs + x.readyMs));
    const expressLoaded = inproc.some((x) => x.express);
    verdicts.push(startRatio <= 1.3, total <= 40 && !expressLoaded);
    out.push(
      `| CLI spawn to its first answer (median of ${STARTS}) | ${ms(median(starts.sim))} | node:http ${ms(median(starts.node))} | ${fx(startRatio)} | ≤ 1.3× | ${startRatio <= 1.3 ? 'met' : 'MISSED'} |`,
      `| the same, the first start on a machine (no code cache kept yet; every start in a fresh container) | ${ms(median(starts.first))} | node:http ${ms(median(starts.node))} | ${fx(median(starts.first) / median(starts.node))} | | |`,
    );
    out.push(
      `| \`import('mfa-sim')\` + \`startSimulator()\` to listening, fresh process (median of ${STARTS}: import ${ms(median(inproc.map((x) => x.importMs)))}, start ${ms(median(inproc.map((x) => x.readyMs)))}; Express ${expressLoaded ? 'LOADED' : 'not loaded'}) | ${ms(total)} | node:http import + listen ${ms(median(floors))} | ${fx(total / median(floors))} | ≤ 40 ms | ${total <= 40 && !expressLoaded ? 'met' : 'MISSED'} |`,
      `| the same, the first start on a machine (no code cache kept yet) | ${ms(median(firstImports))} | node:http import + listen ${ms(median(floors))} | ${fx(median(firstImports) / median(floors))} | | |`,
    );
  }
  if (!skip('soak')) {
    const grow = (s.rssEnd - s.rss10k) / 2 ** 20;
    const heapGrow = (s.heapEnd - s.heap10k) / 2 ** 20;
    const ok = grow <= 50 && heapGrow <= 50;
    verdicts.push(ok);
    out.push(
      `| soak: RSS and heap after ${s.requests.toLocaleString('en')} fresh-nonce requests (after GC) vs after 10,000 | RSS ${(s.rssEnd / 2 ** 20).toFixed(0)} MiB, heap ${(s.heapEnd / 2 ** 20).toFixed(0)} MiB | | RSS ${grow >= 0 ? '+' : ''}${grow.toFixed(1)} MiB, heap ${heapGrow >= 0 ? '+' : ''}${heapGrow.toFixed(1)} MiB (largest RSS reading ${(s.rssMax / 2 ** 20).toFixed(0)} MiB; replay memory ${(s.replayBytes / 2 ** 20).toFixed(1)} MiB; ${s.rps.toFixed(0)} req/s) | ≤ +50 MiB | ${ok ? 'met' : 'MISSED'} |`,
    );
  }
  if (growth.length) {
    out.push(
      '',
      'Growth: one simulator of each size in a process of its own (startSimulator(), no request log), same load.',
      '',
    );
    out.push(...growthMarkdown(growth));
  }
  out.push('');
  out.push(
    failures
      ? `${failures} measurement(s) saw answers that were not the expected code: see above.`
      : 'Every answer had the expected status and code.',
  );
  // The request log is read as it comes: a server that still fell behind its reader wrote less than its whole log.
  const dropped = rows.reduce((n, r) => n + [...r.sim, ...r.quiet].reduce((k, l) => k + l.droppedLines, 0), 0);
  if (rows.length)
    out.push(
      dropped
        ? `mfa-sim dropped ${dropped} request log lines, its reader behind: those loads wrote less than the whole log.`
        : 'mfa-sim wrote every request log line: its reader never fell behind.',
    );
  // A part of the run (--only budget, growth) may judge no target: it then says so, not that every target was met.
  if (!smoke)
    out.push(
      verdicts.length === 0
        ? 'No target was judged in this part of the run.'
        : verdicts.every(Boolean)
          ? 'Every target met.'
          : 'Some targets MISSED.',
    );
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
