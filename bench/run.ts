/**
 * The benchmark (docs/performance.md): mfa-sim as users run it, side by side with bare Express 5
 * (bench/express-baseline.mjs) and the floor (bench/floor.mjs) in one run, then its start-up and memory. Load: wrk on
 * 127.0.0.1 (2 threads, 32 keep-alive connections), each request pre-signed with a new nonce and time (64 API users);
 * every answer's status and code checked (exit 1 when one was not as expected). Speed is a guard, not a goal: each
 * guard is printed met or missed, and a miss smaller than the rounds' spread is noise.
 *
 *   npm run bench                 the full run (about 10 minutes on 2 quiet cores)
 *   npm run bench -- --smoke      every part once, a few seconds each: checks every answer, judges no guard
 *   options: --rounds 7 --seconds 8 --starts 11 --requests 1000000 (the soak) --flood 30 (seconds)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { signedHeaders } from '../src/index.js';
import { API_USERS, CHALLENGE, cpuMs, median, memoryOf, MiB, mib, ROOT, startServer, TIME, wrk } from './lib.js';
import { writeRequests, type Load, type Server } from './lib.js';
import { HEAP_PER_REQUEST, soak, summary, type SoakResult } from './soak.js';
import { startHaproxy, startRedis, stopAll } from '../test/real-parts.js';

const FULL = { rounds: 7, seconds: 8, starts: 11, requests: 1_000_000, flood: 30 };
const SMOKE: typeof FULL = { rounds: 1, seconds: 1, starts: 1, requests: 11_000, flood: 2 };
const names = Object.keys(FULL) as (keyof typeof FULL)[];
const options = Object.fromEntries(names.map((k) => [k, { type: 'string' as const }]));
const { values } = parseArgs({ options: { ...options, smoke: { type: 'boolean' } } });
const smoke = values.smoke === true;
const [ROUNDS, SECONDS, STARTS, REQUESTS, FLOOD] = names.map((k) =>
  Number((values as Record<string, unknown>)[k] ?? (smoke ? SMOKE : FULL)[k]),
);
if (![ROUNDS, SECONDS, STARTS, REQUESTS, FLOOD].every((x) => Number.isInteger(x) && x > 0) || REQUESTS <= 10_000) {
  console.error('bench: --rounds, --seconds, --starts and --flood are whole numbers above 0, --requests above 10000');
  process.exit(2);
}
const WARMUP = smoke ? 1 : 2;
/** Requests written per second of a load: more than any server here answers, so none is sent twice. */
const RATE = 50_000;
/** How far RSS may rise under the forged flood after its first seconds and still count as flat. */
const FLAT = 32 * MiB;

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-bench-'));
// Redis's and HAProxy's folders (test/real-parts.ts) go with it.
process.env.MFA_SIM_TEST_TMPDIR = dir;
const log = (line: string) => console.error(line);
let failures = 0;
function check(what: string, r: { bad: number; sample?: string }): void {
  failures += r.bad;
  if (r.bad) log(`  ${what}: ${r.bad} answers not as expected, e.g. ${r.sample}`);
}

const LABEL = {
  sim: 'mfa-sim, time',
  express: 'bare Express 5',
  floor: 'the floor',
  challenge: 'mfa-sim, challenge',
  store: 'one replica, Redis',
  replicas: '3 replicas, HAProxy',
};
type Side = keyof typeof LABEL;
type Rounds = Record<Side, { rps: number[]; cpuUs: number[] }>;

/**
 * Throughput and CPU per request (user + system of the server process per answer): each round starts fresh servers
 * (mfa-sim as users run it: the built command line, its request log on, read from a pipe as it comes), warms each up,
 * then measures each in turn; the order turns by one each round, so that a drift of the host's speed falls on all.
 */
async function throughput(): Promise<{ rounds: Rounds; dropped: number }> {
  const rounds = Object.fromEntries(Object.keys(LABEL).map((s) => [s, { rps: [], cpuUs: [] }])) as unknown as Rounds;
  const scenario = join(dir, 'bench.json');
  writeFileSync(scenario, JSON.stringify({ name: 'bench', apiUsers: API_USERS }));
  const file = join(dir, 'requests.txt');
  /** The first time not signed yet: no request is sent twice. */
  let free = 0;
  let dropped = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const servers: Server[] = [];
    /** A side: where wrk sends its load, and the processes whose CPU it costs (Redis and HAProxy not counted). */
    type Target = { url: string; pids: number[] };
    const turn = async ([side, target, load]: [Side, Target, Load], seconds: number) => {
      // Bare Express checks no replay: it may be sent the same requests again.
      const repeat = side === 'express';
      free = writeRequests(file, repeat ? 10_000 : RATE * seconds, free);
      // The harness's garbage collected now, not while wrk runs on the same cores as the server.
      globalThis.gc?.();
      const cpuOf = () => target.pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
      const cpu = cpuOf();
      const r = await wrk(target.url, seconds, file, load, repeat);
      check(`${LABEL[side]}, round ${round + 1}`, r);
      return { rps: r.requests / r.seconds, cpuUs: ((cpuOf() - cpu) * 1000) / r.requests };
    };
    const one = (server: Server): Target => ({ url: server.url, pids: [server.proc.pid!] });
    try {
      servers.push(await startServer(['dist/cli.cjs', '--port', '0', '--scenario', scenario]));
      servers.push(await startServer(['bench/express-baseline.mjs']));
      servers.push(await startServer(['bench/floor.mjs', JSON.stringify(API_USERS)]));
      // On a store (docs/containers.md): one replica on database 0, three behind HAProxy on database 1.
      const redis = await startRedis();
      const onStore = (db: number) =>
        ['dist/cli.cjs', '--port', '0', '--scenario', scenario, '--secret', 'bench'].concat([
          '--store',
          redis.url.replace(/\/0$/, `/${db}`),
        ]);
      servers.push(await startServer(onStore(0)));
      const trio = [await startServer(onStore(1)), await startServer(onStore(1)), await startServer(onStore(1))];
      servers.push(...trio);
      const lb = await startHaproxy(trio.map((s) => s.url));
      const [sim, express, floor, store] = servers;
      const sides: [Side, Target, Load][] = [
        ['sim', one(sim), TIME],
        ['express', one(express), TIME],
        ['floor', one(floor), TIME],
        ['challenge', one(sim), CHALLENGE],
        ['store', one(store), TIME],
        ['replicas', { url: lb.url, pids: trio.map((s) => s.proc.pid!) }, TIME],
      ];
      for (const side of sides) await turn(side, WARMUP);
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + round) % sides.length];
        const { rps, cpuUs } = await turn(side, SECONDS);
        rounds[side[0]].rps.push(rps);
        rounds[side[0]].cpuUs.push(cpuUs);
        log(
          `  round ${round + 1} ${LABEL[side[0]].padEnd(18)} ${rps.toFixed(0).padStart(6)} a second, ${cpuUs.toFixed(0)} µs CPU`,
        );
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await stopAll();
    }
    // mfa-sim drops its log past a backlog when its reader falls behind, and says so on standard error.
    for (const m of servers[0].stderr().matchAll(/(\d+) request log lines? dropped/g)) dropped += Number(m[1]);
  }
  return { rounds, dropped };
}

/** Start-up, ms, each a fresh process, interleaved: the command line's first answer, and import plus start. */
async function startUp(): Promise<{ cli: number[]; sim: number[]; express: number[] }> {
  const { id, secret } = API_USERS[0];
  const firstAnswer = async () => {
    const t0 = performance.now();
    const cli = await startServer(['dist/cli.cjs', '--port', '0', '--api-user', id, '--secret', secret]);
    try {
      const headers = signedHeaders({ apiUser: id, secret });
      const res = await fetch(`${cli.url}/v1/svc/time`, { method: 'POST', headers });
      const body = await res.text();
      const ms = performance.now() - t0;
      check('first answer', { bad: res.status === 200 && body.includes('"code":15000,') ? 0 : 1, sample: body });
      return ms;
    } finally {
      await cli.stop();
    }
  };
  const index = pathToFileURL(join(ROOT, 'dist/index.js')).href;
  const SIM = `const t0 = performance.now(); const { startSimulator } = await import('${index}');
    const sim = await startSimulator({ port: 0 }); console.log(performance.now() - t0); await sim.close();`;
  const EXPRESS = `const t0 = performance.now(); const { default: express } = await import('express');
    const server = express().listen(0, '127.0.0.1'); await new Promise((r) => server.once('listening', r));
    console.log(performance.now() - t0); server.close();`;
  const inProcess = (code: string) => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return Number(r.stdout);
  };
  const runs: number[][] = [];
  // Each once untimed first: their files are then in the system's cache, as on any machine where they ran before.
  for (let i = -1; i < STARTS; i++) {
    const run = [await firstAnswer(), inProcess(SIM), inProcess(EXPRESS)];
    if (i >= 0) runs.push(run);
  }
  const [cli, sim, express] = [0, 1, 2].map((k) => runs.map((run) => run[k]));
  log(`  start-up: CLI ${n(median(cli))} ms, import + start ${n(median(sim))} ms, Express ${n(median(express))} ms`);
  return { cli, sim, express };
}

type Flood = { requests: number; readings: { rss: number; heap: number }[] };
/** A flood of forged new challenges (ids of 7.9 KB) naming 1,000 unknown API users: memory every few seconds. */
async function flood(): Promise<Flood> {
  const server = await startServer(['--expose-gc', 'bench/sim-server.mjs', JSON.stringify(API_USERS)], true);
  const unknown = Array.from({ length: 1000 }, (_, i) => ({ id: String(800_000_000 + i), secret: '' }));
  const file = join(dir, 'forged.txt');
  writeRequests(file, 20_000, 0, unknown, true);
  const forged: Load = { ...CHALLENGE, body: 'forged', status: 400, code: -1001 };
  const step = smoke ? 1 : 5;
  let requests = 0;
  try {
    // The first seconds fill what is bounded (the journal, the doctor's memories): the level the rest is held to.
    check('forged flood', await wrk(server.url, step, file, forged, true));
    const readings = [await memoryOf(server)];
    for (let s = 0; s < FLOOD; s += step) {
      const r = await wrk(server.url, step, file, forged, true);
      check('forged flood', r);
      requests += r.requests;
      readings.push(await memoryOf(server));
      log(`  forged flood: ${requests} requests, RSS ${mib(readings.at(-1)!.rss)} MiB`);
    }
    return { requests, readings };
  } finally {
    await server.stop();
  }
}

const n = (x: number, digits = 0) =>
  x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** A figure of several rounds: its median and range. */
const fig = (xs: number[], unit = '', digits = 0) =>
  `${n(median(xs), digits)}${unit} (${n(Math.min(...xs), digits)}–${n(Math.max(...xs), digits)})`;
const judged = (ok: boolean) => (smoke ? 'not judged (smoke)' : ok ? 'met' : 'MISSED');

/** A guard on the rounds' ratios a/b: met, missed by less than the rounds' spread (noise), or MISSED. */
function guard(a: number[], b: number[], bound: number, against: string, atMost = false): string {
  const rs = a.map((x, i) => x / b[i]);
  const miss = atMost ? median(rs) - bound : bound - median(rs);
  const noise = miss > 0 && miss < Math.max(...rs) - Math.min(...rs);
  return `${atMost ? '≤' : '≥'} ${bound}× ${against}: ${fig(rs, '×', 2)}, ${noise && !smoke ? 'noise (missed by less than the spread)' : judged(miss <= 0)}`;
}

/**
 * Replicas on a store (docs/containers.md), side by side with the memory default in the same rounds: one replica on a
 * local Redis (at least 0.4× the memory default is expected), and three behind HAProxy (every replica applies every
 * request, so three answer about as many as one).
 */
function replicaRows(t: Rounds): string[] {
  return [
    `| one replica on a local Redis store: signed time requests a second | ${fig(t.store.rps)} | | | ${guard(t.store.rps, t.sim.rps, 0.4, 'the memory default')} |`,
    `| three replicas on one Redis behind HAProxy (round-robin): signed time requests a second | ${fig(t.replicas.rps)} | | | ${ratio(t.replicas.rps, t.sim.rps)} the memory default; ${ratio(t.replicas.rps, t.store.rps)} one replica |`,
    `| CPU per signed time request on a store (the replicas' own; Redis and HAProxy not counted) | one: ${fig(t.store.cpuUs, ' µs')}; three: ${fig(t.replicas.cpuUs, ' µs')} | | | |`,
  ];
}

/** The rounds' ratios a/b, as a figure. */
const ratio = (a: number[], b: number[]) =>
  fig(
    a.map((x, i) => x / b[i]),
    '×',
    2,
  );

/** The table for docs/performance.md, and the notes under it. */
function table(t: Rounds, dropped: number, s: Awaited<ReturnType<typeof startUp>>, m: SoakResult, f: Flood): string[] {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const when = `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model.trim() ?? 'CPU'} (${cpus().length} cores), Node ${process.version}, mfa-sim ${version}`;
  const soaked = summary(m);
  const [start, end] = [f.readings[0], f.readings.at(-1)!];
  const rise = Math.max(...f.readings.map((r) => r.rss)) - start.rss;
  return [
    `| ${when}; median (range) | mfa-sim | bare Express 5 | the floor | guard |`,
    '|---|---:|---:|---:|---|',
    `| signed time requests a second | ${fig(t.sim.rps)} | ${fig(t.express.rps)} | ${fig(t.floor.rps)} | ${guard(t.sim.rps, t.express.rps, 1.3, 'Express')}; ${guard(t.sim.rps, t.floor.rps, 0.7, 'the floor')} |`,
    `| new challenges a second (no QR image) | ${fig(t.challenge.rps)} | | | |`,
    `| CPU per signed time request (user + system) | ${fig(t.sim.cpuUs, ' µs')} | ${fig(t.express.cpuUs, ' µs')} | ${fig(t.floor.cpuUs, ' µs')} | |`,
    `| CPU per new challenge | ${fig(t.challenge.cpuUs, ' µs')} | | | |`,
    `| first answer after spawn (\`node dist/cli.cjs\`) | ${fig(s.cli, ' ms')} | | | |`,
    `| \`import\` + start in a fresh process (\`startSimulator()\`; Express: \`listen\`) | ${fig(s.sim, ' ms')} | ${fig(s.express, ' ms')} | | ${guard(s.sim, s.express, 1, 'Express', true)} |`,
    `| memory after ${n(m.readings.at(-1)!.answered)} signed requests (9 time, 1 new challenge in 10) | ${soaked.memory} | | | heap ≤ ${HEAP_PER_REQUEST} bytes a request: ${judged(soaked.pass)} |`,
    `| memory under a flood of ${n(f.requests)} forged new challenges (7.9 KB ids) naming 1,000 unknown API users | RSS ${mib(start.rss)} → ${mib(end.rss)} MiB, heap ${mib(start.heap)} → ${mib(end.heap)} MiB | | | RSS flat (at most +${mib(FLAT)} MiB): ${judged(rise <= FLAT)} |`,
    ...replicaRows(t),
    `\nMemory: ${soaked.holds}.`,
    `Throughput: ${ROUNDS} rounds of ${SECONDS} s a side, wrk -t2 -c32 on 127.0.0.1, the sides' order turning each round; ratios are the median (range) of the rounds' ratios.`,
    dropped ? `mfa-sim DROPPED ${dropped} log lines: its reader fell behind.` : 'mfa-sim wrote every log line.',
    failures ? `${failures} answers were NOT as expected (above).` : 'Every answer had the expected status and code.',
  ];
}

log(
  `bench${smoke ? ' --smoke' : ''}: ${ROUNDS} rounds, ${SECONDS} s a side, ${STARTS} starts, a soak of ${REQUESTS}, ${FLOOD} s flood`,
);
try {
  const { rounds, dropped } = await throughput();
  const starts = await startUp();
  log(`  soak: ${n(REQUESTS)} requests...`);
  const memory = await soak(REQUESTS, log);
  check('soak', memory);
  const forged = await flood();
  console.log(table(rounds, dropped, starts, memory, forged).join('\n'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
