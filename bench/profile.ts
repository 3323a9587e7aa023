/**
 * Where a request's time goes: mfa-sim started as users start it (the command line, request log on, into a pipe)
 * under `node --cpu-prof`, loaded like the benchmark's cases, then the profile's functions by their own time.
 *
 *   npm run bench:profile                       signed time, bad signature and new challenge without QR
 *   npm run bench:profile -- --only time --top 25 --duration 8
 *   npm run bench:profile -- --cli ../other/dist/cli.cjs    another build of the command line (e.g. an older one)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeScenario } from './lib.js';
import { LOAD_CASES, measure, type LoadCase } from './measure.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const TOP = Number(option('top') ?? 15);
const DURATION = Number(option('duration') ?? 5);
const CLI = resolve(option('cli') ?? 'dist/cli.cjs');

const CASES: LoadCase[] = [LOAD_CASES.time, LOAD_CASES.badsig, LOAD_CASES.noqr];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (name, file and line), in µs, and the total of the samples that were not idle. */
function selfTimes(profile: Profile): { busy: number; rows: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') return;
    const file = f.url
      ? `${f.url
          .replace(/^.*node_modules\//, '')
          .replace(/^file:\/\/.*\/dist\//, 'dist/')
          .replace(/^node:/, 'node:')}:${f.lineNumber + 1}`
      : '';
    const key = `${f.functionName || '(anonymous)'}${file ? ` ${file}` : ''}`;
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    busy += dt;
  });
  return { busy, rows: [...self].sort((a, b) => b[1] - a[1]) };
}

async function main(): Promise<void> {
  const only = option('only')?.split(',');
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-profile-'));
  try {
    const scenarioFile = join(dir, 'bench.yaml');
    writeScenario(scenarioFile);
    for (const c of CASES.filter((x) => !only || only.includes(x.key))) {
      const profiles = join(dir, `prof-${c.key}`);
      const load = await measure(
        c,
        ['--cpu-prof', '--cpu-prof-dir', profiles, CLI, '--port', '0', '--scenario', scenarioFile],
        false,
        { dir, warmup: 2, duration: DURATION, maxRate: 30_000 },
      );
      const [file] = readdirSync(profiles);
      const { busy, rows } = selfTimes(JSON.parse(readFileSync(join(profiles, file), 'utf8')) as Profile);
      process.stdout.write(
        `\n${c.name}: ${load.requests} requests, ${load.rps.toFixed(0)} req/s under the profiler, ${load.bad} unexpected answers; functions by own time (share of the busy time)\n`,
      );
      for (const [key, us] of rows.slice(0, TOP))
        process.stdout.write(`  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench:profile: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
