import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '../src/index.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The load's API users: a timestamp may be used once per API user and millisecond, so 64 of them share the load. */
export const API_USERS = Array.from({ length: 64 }, (_, i) => ({
  id: `${900_000_000 + i}`,
  secret: `bench-secret-${i}`,
}));

/** What a load sends and the answer every request must get. */
export type Load = { path: string; body: 'none' | 'challenge' | 'forged'; status: number; code: number };

export const TIME: Load = { path: '/v1/svc/time', body: 'none', status: 200, code: 15000 };
export const CHALLENGE: Load = { path: '/v1/svc/challenge', body: 'challenge', status: 202, code: 2025 };

/** A new challenge's envelope (no QR image), as bench/wrk.lua sends it too. */
export const challengeBody = (id: string, time: number, apiUser: string, user = 'user@example.com') =>
  `{"id":"${id}","utctime":"${time}","apiUser":"${apiUser}","type":150,"body":{"svcUser":"${user}","challengeType":"UserKeyAndPattern","challengeExpiry":"FiveMins","enableQRcode":false,"status":"NEW"}}`;

/**
 * Writes `count` requests, one a line (`<apiuser> <utctime> <nonce> <signature>`), each with a new nonce and a time
 * its API user has not used since `from`; returns the next time free. `forged`: signed with zeros, not a secret.
 */
export function writeRequests(file: string, count: number, from = 0, users = API_USERS, forged = false): number {
  const start = Math.max(Date.now(), from);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const u = users[i % users.length];
    const t = String(start + Math.floor(i / users.length));
    const nonce = randomUUID();
    lines.push(`${u.id} ${t} ${nonce} ${forged ? '0'.repeat(128) : sign(u.secret, t, nonce)}`);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return start + Math.ceil(count / users.length);
}

/** A server process of the benchmark: its URL, process, what it wrote on standard error, and how to stop it. */
export type Server = { url: string; proc: ChildProcess; stderr: () => string; stop: () => Promise<void> };

/** Spawns `node <args>` (with an IPC channel when `ipc`) and waits for its `listening on <url>` line. */
export function startServer(args: string[], ipc = false): Promise<Server> {
  const stdio: StdioOptions = ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc' as const] : [])];
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-100_000)));
  const stop = () =>
    new Promise<void>((done) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return done();
      proc.once('exit', () => done());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 3000).unref();
    });
  return new Promise((resolve, reject) => {
    const fail = (why: string) => (proc.kill('SIGKILL'), reject(new Error(`node ${args[0]}: ${why}\n${err}`)));
    const timer = setTimeout(() => fail('did not listen within 30 s'), 30_000);
    proc.once('exit', (code) => fail(`exited with ${code}`));
    proc.stdout!.on('data', function listening(c: Buffer) {
      out += c.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      proc.removeAllListeners('exit');
      // The rest (mfa-sim's request log) is read as it comes, as a terminal or a CI runner reads it.
      proc.stdout!.off('data', listening).resume();
      resolve({ url, proc, stderr: () => err, stop });
    });
  });
}

/** A process's RSS and heap after a full collection (bench/sim-server.mjs answers on its IPC channel). */
export const memoryOf = (server: Server) =>
  new Promise<{ rss: number; heap: number }>((resolve) => server.proc.once('message', resolve).send('memory'));

/** CPU time (user + system) of a process so far, ms, from /proc (Linux, 100 ticks a second). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Runs wrk (2 threads, 32 keep-alive connections) for `seconds` with the requests of `file`: how many were answered,
 * and how many not as `load` wants (or failed). `repeat`: the server checks no replay, so it may be sent the file
 * again; otherwise a request sent twice counts as bad.
 */
export async function wrk(url: string, seconds: number, file: string, load: Load, repeat = false) {
  const args = ['-t2', '-c32', `-d${seconds}s`, '-s', join(ROOT, 'bench/wrk.lua'), url, '--', file, '2'];
  const child = spawn('wrk', [...args, load.path, load.body, String(load.status), String(load.code)]);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise((resolve, reject) => child.on('close', resolve).on('error', reject));
  const line = /^WRK (.*)$/m.exec(out);
  if (!line) throw new Error(`wrk failed: ${out}`);
  const j = JSON.parse(line[1]) as Record<string, number>;
  const ranOut = j.wrapped > 0 && !repeat;
  return {
    requests: j.requests,
    seconds: j.us / 1e6,
    bad: j.bad + j.errors + (ranOut ? 1 : 0),
    sample: ranOut ? 'ran out of pre-signed requests' : /^WRKSAMPLE (.*)$/m.exec(out)?.[1],
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
}

export const MiB = 2 ** 20;
export const mib = (bytes: number) => (bytes / MiB).toFixed(1);
