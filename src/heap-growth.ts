import { setFlagsFromString } from 'node:v8';

/**
 * How far the command line's process lets V8's old generation grow. A simulator beside a test suite should take
 * little memory: under load, V8 lets the old generation grow to up to four times what is live before collecting it;
 * here it grows by half at most, about 40 MiB less at peak while challenges are being created, for a few more
 * milliseconds of collection a second. Only the command line's own process is tuned (in-process, mfa-sim never
 * touches the V8 flags of a test runner), and a value given on node's command line wins (node refuses the flag in
 * NODE_OPTIONS).
 */

const givenToNode = () => process.execArgv.some((a) => /heap[-_]growing[-_]percent/.test(a));

/**
 * Tunes it, once the program's modules are loaded: tuned before, their start-up collects more often, some 8 ms more
 * from spawn to the first answer.
 */
export function tuneHeapGrowth(): void {
  if (!givenToNode()) setFlagsFromString('--heap-growing-percent=50');
}

/**
 * V8's default back (0: not set), where tuneHeapGrowth set it: a code cache made as the process exits must be made
 * under the flags the next start compiles with, or V8 refuses it (bin.ts).
 */
export function untuneHeapGrowth(): void {
  if (!givenToNode()) setFlagsFromString('--heap-growing-percent=0');
}
