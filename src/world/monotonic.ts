/** This machine's monotonic time in milliseconds, for latencies and for telling requests apart in time. */
export function monotonicMs(): number {
  return performance.now();
}
