/**
 * The growth table: what one request costs (CPU) and what the simulator holds (peak RSS) as its world grows: API
 * users, rules that do not match, accounts with globs, open event streams, a journal and a challenge store at
 * their bounds. Each row is a simulator of that size in a process of its own (bench/growth-server.mjs, no request
 * log), under the same load as the main table; the slope of each group is printed beside it.
 */
import { request } from 'node:http';
import { benchUsers } from './lib.js';
import { LOAD_CASES, measure, type Load, type LoadCase, type LoadPlan } from './measure.js';

const { time: TIME, noqr: NOQR, padded: PADDED } = LOAD_CASES;

interface Row {
  group: string;
  label: string;
  /** The size the group's slope is counted in. */
  units: number;
  /** What one unit is, as the slope names it (default: "one more", or "1,000 more" for large groups). */
  unit?: string;
  world: { users: number; rules: number; accounts: number };
  load: LoadCase;
  streams?: number;
}

const BASE = { users: 64, rules: 0, accounts: 0 };
export const ROWS: Row[] = [
  { group: 'API users', label: '1', units: 1, world: { ...BASE, users: 1 }, load: TIME },
  { group: 'API users', label: '1,000', units: 1000, world: { ...BASE, users: 1000 }, load: TIME },
  { group: 'API users', label: '10,000', units: 10_000, world: { ...BASE, users: 10_000 }, load: TIME },
  { group: 'rules that do not match', label: '0', units: 0, world: BASE, load: TIME },
  { group: 'rules that do not match', label: '100', units: 100, world: { ...BASE, rules: 100 }, load: TIME },
  { group: 'rules that do not match', label: '1,000', units: 1000, world: { ...BASE, rules: 1000 }, load: TIME },
  { group: 'accounts (1 in 100 a glob)', label: '10', units: 10, world: { ...BASE, accounts: 10 }, load: NOQR },
  {
    group: 'accounts (1 in 100 a glob)',
    label: '100,000',
    units: 100_000,
    world: { ...BASE, accounts: 100_000 },
    load: NOQR,
  },
  { group: 'open dashboard event streams', label: '0', units: 0, world: BASE, load: TIME },
  {
    group: 'open dashboard event streams',
    label: '10',
    units: 10,
    unit: 'open stream',
    world: BASE,
    load: TIME,
    streams: 10,
  },
  { group: 'journal (1,000 entries, full)', label: 'small bodies', units: 0, world: BASE, load: NOQR },
  {
    group: 'journal (1,000 entries, full)',
    label: '8 KiB bodies',
    units: 8,
    unit: 'KiB more in each body',
    world: BASE,
    load: PADDED,
  },
  {
    group: 'challenge store (10,000, full)',
    label: 'new challenges once full',
    units: 10_000,
    world: BASE,
    load: NOQR,
  },
];

export interface GrowthResult {
  row: Row;
  load: Load;
}

/** Event streams held open by readers that read everything. */
async function openStreams(url: string, n: number): Promise<() => void> {
  const reqs = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof request>>((resolve, reject) => {
          const req = request(`${url}/__sim/events`, { agent: false }, (res) => {
            res.resume();
            resolve(req);
          });
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  return () => reqs.forEach((r) => r.destroy());
}

export async function growthTable(
  plan: Omit<LoadPlan, 'users' | 'beside'>,
  progress: (line: string) => void,
): Promise<GrowthResult[]> {
  const out: GrowthResult[] = [];
  for (const row of ROWS) {
    const users = benchUsers(Math.min(64, row.world.users));
    const args = ['bench/growth-server.mjs', JSON.stringify(row.world)];
    const load = await measure(row.load, args, false, {
      ...plan,
      users,
      beside: row.streams ? (url) => openStreams(url, row.streams!) : undefined,
    });
    out.push({ row, load });
    progress(
      `  growth ${row.group}: ${row.label.padEnd(26)} ${load.rps.toFixed(0)} req/s  ${load.cpuUs.toFixed(0)} µs CPU/req  peak ${load.peakRss.toFixed(0)} MiB${load.bad ? `  ${load.bad} BAD (${load.sample})` : ''}`,
    );
  }
  return out;
}

/** The table, with each group's slope: CPU per request and peak RSS, from its first row to its last. */
export function growthMarkdown(results: GrowthResult[]): string[] {
  const lines = [
    '| what grows | size | CPU per request | peak RSS | slope (first to last row) |',
    '|---|---|---:|---:|---|',
  ];
  const groups = [...new Set(results.map((r) => r.row.group))];
  for (const g of groups) {
    const rows = results.filter((r) => r.row.group === g);
    const first = rows[0];
    const last = rows[rows.length - 1];
    const du = last.row.units - first.row.units;
    const slope =
      rows.length < 2
        ? 'one row: the cost once full'
        : du > 0
          ? `${per(last.load.cpuUs - first.load.cpuUs, du)} µs CPU and ${per(last.load.peakRss - first.load.peakRss, du)} MiB per ${unitName(du, last.row.unit)}`
          : `${(last.load.cpuUs - first.load.cpuUs).toFixed(0)} µs CPU, ${(last.load.peakRss - first.load.peakRss).toFixed(0)} MiB`;
    rows.forEach((r, i) =>
      lines.push(
        `| ${i === 0 ? g : ''} | ${r.row.label} | ${r.load.cpuUs.toFixed(0)} µs | ${r.load.peakRss.toFixed(0)} MiB | ${i === 0 ? slope : ''} |`,
      ),
    );
  }
  return lines;
}

function unitName(du: number, unit = 'one more'): string {
  return du >= 1000 ? '1,000 more' : unit;
}

function per(delta: number, du: number): string {
  const k = du >= 1000 ? (delta * 1000) / du : delta / du;
  return `${k >= 0 ? '+' : ''}${k.toFixed(2)}`;
}
