/**
 * The forged-request flood: what a caller without any secret can make the simulator hold. The built command line
 * runs on a 512 MiB heap (`node --max-old-space-size=512 dist/cli.cjs`), listening on 127.0.0.1 with its request
 * log on (written to nowhere); wrk (bench/forged-flood.lua) sends it forged new-challenge requests naming 1,000 API
 * user ids it does not know, each envelope with an id of about 7.9 KB. The simulator's RSS is read before, after the
 * flood, and after `POST /__sim/reset`; it must be alive at the end and answer a normal request.
 *
 *   npx tsup && npx tsx bench/forged-flood.ts [--requests 512000] [--connections 64] [--threads 2] [--seconds 600]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { signedHeaders } from '../src/auth/signature.js';
import { ROOT } from './lib.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '512000' },
    connections: { type: 'string', default: '64' },
    threads: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '600' },
  },
});
const MiB = 2 ** 20;

/** Resident and peak memory of a process, from /proc (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

const sim = spawn(
  process.execPath,
  ['--max-old-space-size=512', join(ROOT, 'dist/cli.cjs'), '--port', '0', '--secret', 'flood-secret'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let banner = '';
const url = await new Promise<string>((resolve, reject) => {
  sim.stdout.on('data', (chunk: Buffer) => {
    banner += chunk.toString();
    const m = /^mfa-sim listening on (\S+)$/m.exec(banner);
    if (m) resolve(m[1]);
  });
  sim.once('exit', (code, signal) => reject(new Error(`the simulator exited (${code ?? signal}) before it listened`)));
});
// The request log is read and dropped, as a CI job's log file would take it.
sim.stdout.resume();
let died: string | undefined;
sim.once('exit', (code, signal) => (died = `exited with ${code ?? signal}`));

const settle = () => new Promise((r) => setTimeout(r, 3000));
const line = (label: string) => {
  const m = memoryOf(sim.pid!);
  console.log(`${label.padEnd(28)} RSS ${(m.rss / MiB).toFixed(1)} MiB (peak so far ${(m.peak / MiB).toFixed(1)} MiB)`);
};
line('started');
const started = Date.now();
const total = Number(values.requests);
// wrk runs for its duration whatever its script does: it is stopped (SIGINT, after which it prints its summary) once
// the simulator has answered `total` requests, as its journal's numbering says.
const wrk = spawn(
  'wrk',
  [
    '-t',
    values.threads,
    '-c',
    values.connections,
    '-d',
    `${values.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    join(ROOT, 'bench/forged-flood.lua'),
    url,
    '--',
    values.threads,
    String(total),
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let report = '';
wrk.stdout.on('data', (c: Buffer) => (report += c.toString()));
const finished = new Promise((resolve) => wrk.once('exit', resolve));
let answered = 0;
while (answered < total && wrk.exitCode === null && !died) {
  await new Promise((r) => setTimeout(r, 500));
  try {
    const [last] = (await (await fetch(`${url}/__sim/journal?limit=1`)).json()) as { seq: number }[];
    answered = last?.seq ?? 0;
  } catch {
    // The simulator is gone: `died` says how.
  }
}
wrk.kill('SIGINT');
await finished;
process.stdout.write(
  report
    .split('\n')
    .filter((l) => /requests in|Requests\/sec|Socket errors|Non-2xx/.test(l))
    .join('\n') + '\n',
);
console.log(`flood: ${answered} requests answered in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (died) throw new Error(`the simulator ${died} during the flood`);
line('after the flood');
await settle();
line('3 s later');
const reset = await fetch(`${url}/__sim/reset`, { method: 'POST' });
if (!reset.ok) throw new Error(`reset answered ${reset.status}`);
await settle();
line('3 s after reset');
const time = await fetch(`${url}/v1/svc/time`, {
  headers: signedHeaders({
    apiUser: '123456789',
    secret: 'flood-secret',
    time: Date.now(),
    nonce: crypto.randomUUID(),
  }),
});
const answer = (await time.json()) as { code: number };
console.log(`a signed time request afterwards: ${time.status} ${answer.code}${died ? `; the simulator ${died}` : ''}`);
sim.kill('SIGTERM');
