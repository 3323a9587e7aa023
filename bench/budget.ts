/**
 * The budget table: what the cost targets (≥ 0.5× node:http's throughput, ≤ 2× its CPU per request) leave for a
 * server's own work on this machine. Bare node:http is made to spin a fixed time before each answer, and measured
 * beside itself without it, in the same rounds. The work is not all a request costs: with 2 cores shared with the
 * load generator, a slower server's answers each wake a client that went to sleep, and the kernel charges that
 * wake-up (inside `writev`) to the server; so the CPU per request grows by more than the work added. A last row keeps
 * part of the contract: it checks each request's HMAC-SHA512 signature and does nothing else (how much of the budget
 * the one unavoidable check takes by itself). The whole of a faithful server's least work, the floor
 * (bench/checks-baseline.ts), is measured in the main table, beside mfa-sim in the same rounds.
 */
import { median } from './lib.js';
import { LOAD_CASES, measure, type Load, type LoadPlan } from './measure.js';

/** The work per request, µs, of each row after the first (bare node:http). */
export const WORK_US = [10, 20, 40];

export interface BudgetResult {
  /** Microseconds of spin; 'hmac': the request's signature checked, and nothing else. */
  work: number | 'hmac';
  loads: Load[];
}

const LABELS: Record<string, string> = {
  0: 'no work',
  hmac: 'the signature check alone',
};
const label = (work: BudgetResult['work']) => LABELS[work] ?? `${work} µs of work`;

/** The command of a row's server. */
const serverOf = (work: BudgetResult['work']) => ['bench/node-baseline.mjs', '0', String(work)];

export async function budgetTable(
  plan: Omit<LoadPlan, 'users' | 'beside'>,
  rounds: number,
  progress: (line: string) => void,
): Promise<BudgetResult[]> {
  const rows: BudgetResult[] = [0, ...WORK_US, 'hmac' as const].map((work) => ({ work, loads: [] }));
  for (let round = 0; round < rounds; round++) {
    // Interleaved: the order turns by one from round to round.
    for (let k = 0; k < rows.length; k++) {
      const row = rows[(k + round) % rows.length];
      const load = await measure(LOAD_CASES.time, serverOf(row.work), true, plan);
      row.loads.push(load);
      progress(
        `  budget round ${round + 1}/${rounds} node:http, ${label(row.work).padEnd(26)} ${load.rps.toFixed(0).padStart(6)} req/s  ${load.cpuUs.toFixed(0)} µs CPU/req${load.bad ? `  ${load.bad} BAD (${load.sample})` : ''}`,
      );
    }
  }
  return rows;
}

/** The table: each amount of work as ratios to bare node:http measured in the same round. */
export function budgetMarkdown(rows: BudgetResult[]): string[] {
  const [bare] = rows;
  const ratio = (row: BudgetResult, f: (l: Load) => number) => median(row.loads.map((l, i) => f(l) / f(bare.loads[i])));
  const lines = [
    '| bare node:http answering after | req/s | CPU per request | throughput vs none | CPU vs none |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const rps = median(row.loads.map((l) => l.rps));
    const cpu = median(row.loads.map((l) => l.cpuUs));
    lines.push(
      `| ${label(row.work)} | ${rps.toFixed(0)} | ${cpu.toFixed(0)} µs | ${ratio(row, (l) => l.rps).toFixed(2)}× | ${ratio(row, (l) => l.cpuUs).toFixed(2)}× |`,
    );
  }
  return lines;
}
