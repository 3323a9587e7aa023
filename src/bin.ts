import { join } from 'node:path';
import { runProgram } from './run-program.js';

/**
 * The command line's entry (`npx mfa-sim`, dist/cli.cjs): runs the command line's one file (dist/mfa-sim.cjs, built
 * from cli.ts) with V8's code cache (run-program.ts).
 */

runProgram(join(__dirname, 'mfa-sim.cjs'), 'before it runs');
