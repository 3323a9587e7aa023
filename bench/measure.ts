/**
 * One measurement of the benchmark: a fresh server process, a warm-up, then a measured load under wrk, with the
 * server's CPU time and peak memory read from /proc. Every answer's status and code are checked. The server's
 * standard output (mfa-sim's request log) is read as it comes while wrk runs, as a terminal or a CI runner reads it:
 * a server whose log no one read would keep it waiting in memory, or (mfa-sim) drop lines past its backlog.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { API_USERS, cpuMs, median, peakRssMiB, ROOT, startServer, writeRequests, type Server } from './lib.js';

/**
 * The servers a case runs on: the two baselines, the floor (a signed request's every check, journal entry and log line
 * in one function on node:http: bench/checks-baseline.ts), a new challenge's floor (the same and what a new challenge
 * adds: bench/challenge-floor.ts), and mfa-sim as users run it (request log on) and with --quiet.
 */
export type ServerKind = 'node' | 'express' | 'floor' | 'challengeFloor' | 'sim' | 'quiet';
export const SERVER_LABEL: Record<ServerKind, string> = {
  node: 'node:http',
  express: 'express',
  floor: 'floor',
  challengeFloor: 'challenge floor',
  sim: 'mfa-sim',
  quiet: 'mfa-sim --quiet',
};

/** How to start a server of a kind; mfa-sim with the benchmark's scenario and any more flags. */
export function serverArgs(kind: ServerKind, scenarioFile: string, extra: string[] = []): string[] {
  switch (kind) {
    case 'node':
      return ['bench/node-baseline.mjs', '0'];
    case 'express':
      return ['bench/express-baseline.mjs', '0'];
    case 'floor':
      return ['--import', 'tsx', 'bench/checks-baseline.ts', '0'];
    case 'challengeFloor':
      return ['--import', 'tsx', 'bench/challenge-floor.ts', '0'];
    case 'sim':
      return ['dist/cli.cjs', '--port', '0', '--scenario', scenarioFile, ...extra];
    case 'quiet':
      return ['dist/cli.cjs', '--port', '0', '--quiet', '--scenario', scenarioFile, ...extra];
  }
}

/** What a load sends and what every answer must be. */
export interface LoadCase {
  key: string;
  name: string;
  path: string;
  kind: 'none' | 'qr' | 'noqr' | 'padded';
  status: number;
  code: number;
  badSignature?: boolean;
}

/** The loads the benchmark knows, by key: the main table's cases, the profile's, and the growth table's. */
export const LOAD_CASES = {
  time: { key: 'time', name: 'signed time', path: '/v1/svc/time', kind: 'none', status: 200, code: 15000 },
  badsig: {
    key: 'badsig',
    name: 'bad signature (-4037)',
    path: '/v1/svc/time',
    kind: 'none',
    status: 400,
    code: -4037,
    badSignature: true,
  },
  noqr: { key: 'noqr', name: 'new challenge, no QR', path: '/v1/svc/challenge', kind: 'noqr', status: 202, code: 2025 },
  qr: { key: 'qr', name: 'new challenge, QR image', path: '/v1/svc/challenge', kind: 'qr', status: 202, code: 2025 },
  padded: {
    key: 'padded',
    name: 'new challenge, 8 KiB body',
    path: '/v1/svc/challenge',
    kind: 'padded',
    status: 202,
    code: 2025,
  },
} satisfies Record<string, LoadCase>;

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  peakRss: number;
  cpuUs: number;
  requests: number;
  bad: number;
  sample?: string;
  /** Request-log lines the server dropped because its reader fell behind (mfa-sim says so on standard error). */
  droppedLines: number;
  /** The harness's own CPU time during the measured load (reading the server's output, its threads), ms. */
  harnessCpuMs: number;
}

export interface LoadPlan {
  /** A scratch folder for the request files. */
  dir: string;
  warmup: number;
  duration: number;
  /** Requests written per second of load: more than the fastest server takes, so none is sent twice. */
  maxRate: number;
  /** The API users the load signs as (default: the 64 of the benchmark). */
  users?: readonly { id: string; secret: string }[];
  /** Runs beside the measured load (event streams held open); returns how to stop. */
  beside?: (url: string) => Promise<() => void>;
}

setFlagsFromString('--expose-gc');
/**
 * The harness's own full garbage collection. Writing a load's signed requests leaves some hundred MiB of garbage in
 * the harness; collected while wrk runs (the harness's event loop is free then), it would take CPU from the server
 * measured, on the same cores. Collected before the warm-up instead.
 */
const collectGarbage = runInNewContext('gc') as () => void;

/** One server of a measurement: the load it is sent, the command that starts it, and whether it is a baseline. */
export interface Measured {
  c: LoadCase;
  args: string[];
  /** A baseline answers every request 200 / 15000. */
  baseline: boolean;
}

/** One measurement on a fresh server. */
export async function measure(c: LoadCase, args: string[], baseline: boolean, plan: LoadPlan): Promise<Load> {
  const [load] = await measureSideBySide([{ c, args, baseline }], plan, 1);
  return load;
}

/**
 * Servers measured side by side, each on a fresh process: each is started and warmed up, then the measured load of
 * each is cut into `turns` turns of `plan.duration / turns` seconds, taken in turn (A B, B A, A B, ...), so that a
 * change of the host's speed in the meantime falls on each of them alike. The host's speed drifts over tens of seconds
 * by more than the targets' margins: measured one after the other, two servers' ratio carries that drift. Each turn
 * sends requests signed afresh (a request sent again is a replay); a server not measured in a turn is idle.
 */
export async function measureSideBySide(servers: Measured[], plan: LoadPlan, turns: number): Promise<Load[]> {
  const users = plan.users ?? API_USERS;
  const seconds = plan.duration / turns;
  if (!Number.isInteger(seconds)) throw new Error(`${plan.duration} s do not divide into ${turns} whole turns`);
  const started: Server[] = [];
  const stops: (() => void)[] = [];
  try {
    for (const s of servers) started.push(await startServer(s.args));
    const totals = servers.map(() => ({
      requests: 0,
      seconds: 0,
      bad: 0,
      sample: undefined as string | undefined,
      cpuMs: 0,
      ownMs: 0,
      p50s: [] as number[],
      p99s: [] as number[],
    }));
    /** Each server's first time not signed yet: no two of its requests share one. */
    const notBefore = servers.map(() => 0);
    for (const [i, s] of servers.entries()) {
      const warm = join(plan.dir, 'warm.txt');
      notBefore[i] = writeRequests(warm, Math.ceil(plan.maxRate * plan.warmup), s.c.badSignature, 0, users);
      collectGarbage();
      const w = await wrk(started[i].url, plan.warmup, warm, s.c, s.baseline);
      totals[i].bad += w.bad;
      totals[i].sample ??= w.sample;
    }
    for (const server of started) {
      const stop = await plan.beside?.(server.url);
      if (stop) stops.push(stop);
    }
    for (let turn = 0; turn < turns; turn++) {
      const order = servers.map((_, i) => i);
      if (turn % 2 === 1) order.reverse();
      for (const i of order) {
        const s = servers[i];
        const file = join(plan.dir, 'load.txt');
        notBefore[i] = writeRequests(file, Math.ceil(plan.maxRate * seconds), s.c.badSignature, notBefore[i], users);
        collectGarbage();
        const cpu0 = cpuMs(started[i].pid);
        const own0 = process.cpuUsage();
        const m = await wrk(started[i].url, seconds, file, s.c, s.baseline);
        const own = process.cpuUsage(own0);
        const t = totals[i];
        t.cpuMs += cpuMs(started[i].pid) - cpu0;
        t.ownMs += (own.user + own.system) / 1000;
        t.requests += m.requests;
        t.seconds += m.seconds;
        t.bad += m.bad;
        t.sample ??= m.sample;
        t.p50s.push(m.p50);
        t.p99s.push(m.p99);
      }
    }
    return totals.map((t, i) => ({
      rps: t.requests / t.seconds,
      // Each turn's percentiles: the median of the turns' (the turns are as long as each other).
      p50: median(t.p50s),
      p99: median(t.p99s),
      peakRss: peakRssMiB(started[i].pid),
      cpuUs: (t.cpuMs * 1000) / t.requests,
      requests: t.requests,
      bad: t.bad,
      sample: t.sample,
      droppedLines: [...started[i].stderr().matchAll(/(\d+) request log lines? dropped/g)].reduce(
        (n, d) => n + Number(d[1]),
        0,
      ),
      harnessCpuMs: t.ownMs,
    }));
  } finally {
    for (const stop of stops) stop();
    for (const server of started) await server.stop();
  }
}

/** Runs wrk, the event loop free meanwhile (the server's output is read as it comes). */
async function wrk(
  url: string,
  seconds: number,
  file: string,
  c: LoadCase,
  baseline: boolean,
): Promise<{ requests: number; seconds: number; p50: number; p99: number; bad: number; sample?: string }> {
  const status = baseline ? 200 : c.status;
  const code = baseline ? 15000 : c.code;
  const child = spawn(
    'wrk',
    [
      '-t2',
      '-c32',
      `-d${seconds}s`,
      '-s',
      join(ROOT, 'bench/wrk.lua'),
      url,
      '--',
      file,
      '2',
      c.path,
      c.kind,
      String(status),
      String(code),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  await new Promise((resolve, reject) => child.on('close', resolve).on('error', reject));
  const line = /^WRK (.*)$/m.exec(stdout);
  if (!line) throw new Error(`wrk failed: ${stderr || stdout}`);
  const j = JSON.parse(line[1]) as Record<string, number>;
  const sample = /^WRKSAMPLE (.*)$/m.exec(stdout)?.[1];
  // Past the pre-signed requests, wrk starts the file again: a replay, which mfa-sim must refuse. A baseline answers
  // every request alike, so on a fast machine it may go round the file without harm.
  const wrapped = j.wrapped > 0 && !baseline;
  const bad = j.bad + j.connect + j.read + j.write + j.timeout + (wrapped ? 1 : 0);
  return {
    requests: j.requests,
    seconds: j.duration_us / 1e6,
    p50: j.p50_us / 1000,
    p99: j.p99_us / 1000,
    bad,
    sample: wrapped ? 'ran out of pre-signed requests' : sample,
  };
}
