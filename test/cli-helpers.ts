import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunningSimulator } from '../src/index.js';

/** The CLI as users run it: the built `dist/cli.cjs` (npm test builds first). */
export const CLI = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));

export interface Started {
  child: ChildProcess;
  url: string;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

export function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: the caller never gets the child to end it.
      child.kill('SIGKILL');
      reject(new Error(`no ready line; stdout: ${out} stderr: ${err}`));
    }, 10_000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      // The banner ends with the scenario line; with --log json it is one JSON line.
      const m =
        /^mfa-sim listening on (http:\/\/\S+)$/m.exec(out) ??
        /^\{.*"url":"(http:\/\/[^"]+)".*"msg":"mfa-sim listening"\}$/m.exec(out);
      if (m && (m[0].startsWith('{') || /^ {2}scenario .*\n/m.test(out))) {
        clearTimeout(timer);
        resolve({ child, url: m[1], out: () => out, err: () => err, exit });
      }
    });
    child.on('exit', () => reject(new Error(`exited early; stdout: ${out} stderr: ${err}`)));
  });
}

/** Just enough of a RunningSimulator for the send helper. */
export function remote(url: string, apiUser: string, secret: string): RunningSimulator {
  return {
    url,
    token: 'svc',
    apiUser: { id: apiUser, secret },
    simulator: { now: () => Date.now() },
  } as unknown as RunningSimulator;
}

export const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 10_000 });
