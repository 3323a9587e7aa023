import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { sign, signedHeaders } from '../src/auth/signature.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The benchmark's API users: one per wrk connection (a timestamp may be used once per API user and millisecond). */
export const API_USERS = Array.from({ length: 64 }, (_, i) => ({
  id: `90000${String(i).padStart(4, '0')}`,
  secret: `bench-secret-${i}`,
}));

/** The API users of a benchmark scenario: the 64 of the load first, then as many more as asked. */
export function benchUsers(n: number): { id: string; secret: string }[] {
  return Array.from({ length: n }, (_, i) =>
    i < API_USERS.length ? API_USERS[i] : { id: String(800_000_000 + i), secret: `bench-secret-${i}` },
  );
}

/**
 * A scenario file listing the benchmark's API users (written to a temporary file at run time), and more keys as YAML.
 */
export function writeScenario(
  file: string,
  users: readonly { id: string; secret: string }[] = API_USERS,
  more = '',
): void {
  const list = users.map((u) => `  - id: "${u.id}"\n    secret: ${u.secret}\n`).join('');
  writeFileSync(
    file,
    `name: bench\ndescription: The benchmark's API users, one per connection.\napiUsers:\n${list}${more}`,
  );
}

/**
 * Writes `count` freshly signed requests, one a line: `<apiuser> <utctime> <nonce> <signature>`. Every nonce is
 * new; each API user's timestamps start at the current time (or `notBefore`, if later) and go up by one millisecond,
 * so none repeats and all stay well inside the drift window. Returns the first time the file left unused.
 * `badSignature` signs with a wrong secret (the answer must be -4037).
 */
export function writeRequests(
  file: string,
  count: number,
  badSignature = false,
  notBefore = 0,
  users: readonly { id: string; secret: string }[] = API_USERS,
): number {
  const start = Math.max(Date.now(), notBefore);
  const lines = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const u = users[i % users.length];
    const t = String(start + Math.floor(i / users.length));
    const nonce = randomUUID();
    lines[i] = `${u.id} ${t} ${nonce} ${sign(badSignature ? `${u.secret}-wrong` : u.secret, t, nonce)}`;
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  // The first time free for the next file to the same server (a warm-up and its measured load must not share one).
  return start + Math.ceil(count / users.length);
}

/** A server process started for one measurement. */
export interface Server {
  proc: ChildProcess;
  url: string;
  pid: number;
  /** From spawn to the "listening on" line, ms. */
  listeningMs: number;
  /** What the server wrote on standard error so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns a server that prints `... listening on http://...` and waits for that line. */
export function startServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const fail = (why: string) => {
      proc.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: ${why}\n${err}`));
    };
    const timer = setTimeout(() => fail('did not start within 20 s'), 20_000);
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.on('exit', (code) => fail(`exited with ${code}`));
    proc.stdout.on('data', function onData(c: Buffer) {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.stdout.off('data', onData);
      proc.stdout.resume();
      proc.removeAllListeners('exit');
      resolve({
        proc,
        url: m[1],
        pid: proc.pid!,
        listeningMs: performance.now() - t0,
        stderr: () => err,
        stop: () =>
          new Promise<void>((done) => {
            if (proc.exitCode !== null) return done();
            proc.once('exit', () => done());
            proc.kill('SIGTERM');
            setTimeout(() => proc.kill('SIGKILL'), 3000).unref();
          }),
      });
    });
  });
}

/** CPU time (user + system) of a process so far, ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime), counted after the command name: indexes 11 and 12 here.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Peak resident memory (VmHWM) of a process, MiB. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export interface Answer {
  status: number;
  body: string;
}

/** One POST, freshly signed as `user` unless `user` is undefined; resolves with the status and body. */
export function post(
  url: string,
  path: string,
  user?: { id: string; secret: string },
  body?: string,
  agent?: import('node:http').Agent,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (user) Object.assign(headers, signedHeaders({ apiUser: user.id, secret: user.secret }));
    const req = request(`${url}${path}`, { method: 'POST', headers, agent: agent ?? false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const median = (xs: number[]): number => {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
