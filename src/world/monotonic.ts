/**
 * This machine's monotonic time in milliseconds, for latencies and for telling requests apart in time. Read from
 * process.hrtime rather than the global `performance`, whose first use loads a module: a millisecond of a
 * simulator's start-up, on its first request.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
