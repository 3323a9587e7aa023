import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start, type Started } from './cli-helpers.js';

/**
 * The real parts the tests of a shared store run against (issue 59): Debian's redis-server, Debian's HAProxy, and
 * replicas of the command line, each on 127.0.0.1 at a port of its own that it keeps across a restart. Every process
 * started here is ended by `stopAll` (the test file's `afterAll(stopAll)`), by its PID and no other, and killed when
 * the worker exits if a file forgot to.
 */

const REDIS = '/usr/bin/redis-server';
const HAPROXY = '/usr/sbin/haproxy';
const WAIT_MS = 10_000;

/** What each `stop` ends: every process started here that has not exited yet. */
const running = new Map<ChildProcess, () => Promise<void>>();
process.once('exit', () => {
  for (const child of running.keys()) child.kill('SIGKILL');
});

/** Ends every process started here and still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running.values()].map((stop) => stop()));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port nothing listens on now, as .ci/run finds one: listen on port 0 and close. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Another process may take a free port before ours binds it: a few tries at new ports. */
async function atFreePort<T>(launch: (port: number) => Promise<T>, inUse: (e: unknown) => boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(await freePort());
    } catch (e) {
      if (attempt === 5 || !inUse(e)) throw e;
    }
  }
}

/** The folder for one part's files, in the run's temporary folder (test/temp-folder.ts). */
const folder = (name: string) => mkdtempSync(join(process.env.MFA_SIM_TEST_TMPDIR ?? tmpdir(), `${name}-`));

function installed(binary: string, pkg: string): void {
  if (!existsSync(binary))
    throw new Error(`${binary} is missing: install Debian's ${pkg} (apt-get install ${pkg}; .ci/run installs it)`);
}

/**
 * Follows `child` until it exits: `end(signal)` sends it `signal` (by its PID, unless it has exited) and waits for
 * its exit; SIGTERM is followed by SIGKILL if it is still running 5 s later. `stopAll` ends it with SIGTERM.
 */
function follow(child: ChildProcess, exit: Promise<unknown>) {
  let exited = false;
  const gone = exit.then(() => {
    exited = true;
    running.delete(child);
  });
  const end = async (signal: NodeJS.Signals) => {
    if (!exited) child.kill(signal);
    const late = signal === 'SIGTERM' ? setTimeout(() => child.kill('SIGKILL'), 5_000) : undefined;
    await gone;
    clearTimeout(late);
  };
  running.set(child, () => end('SIGTERM'));
  return { exited: () => exited, end };
}

interface Spawned {
  child: ChildProcess;
  output: () => string;
  exited: () => boolean;
  /** Sends `signal` to this process (by its PID) and waits until it has exited. */
  end: (signal: NodeJS.Signals) => Promise<void>;
}

/** Starts a program, followed until it exits. */
function spawnTracked(binary: string, args: string[], cwd: string): Spawned {
  const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.on('error', (e) => {
      output += `${e.message}\n`;
      resolve();
    });
  });
  return { child, output: () => output, ...follow(child, exit) };
}

/** Polls `ready` until it holds, failing if the process exits first or after WAIT_MS. */
async function until(p: Spawned, what: string, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (p.exited()) throw new Error(`${what} exited before it was ready:\n${p.output()}`);
    if (await ready()) return;
    if (Date.now() > deadline) {
      await p.end('SIGKILL');
      throw new Error(`${what} was not ready after ${WAIT_MS} ms:\n${p.output()}`);
    }
    await sleep(50);
  }
}

type Reply = string | number | null | Reply[];

/** Reads one RESP reply from `text` at `at`: the reply and where the next starts, or undefined if incomplete. */
function parseReply(text: string, at = 0): [Reply, number] | undefined {
  const eol = text.indexOf('\r\n', at);
  if (eol < 0) return undefined;
  const head = text.slice(at + 1, eol);
  const next = eol + 2;
  switch (text[at]) {
    case '+':
      return [head, next];
    case '-':
      throw new Error(`redis: ${head}`);
    case ':':
      return [Number(head), next];
    case '$': {
      const n = Number(head);
      if (n < 0) return [null, next];
      return text.length < next + n + 2 ? undefined : [text.slice(next, next + n), next + n + 2];
    }
    case '*': {
      const items: Reply[] = [];
      let pos = next;
      for (let i = 0; i < Number(head); i++) {
        const item = parseReply(text, pos);
        if (!item) return undefined;
        [items[i], pos] = item;
      }
      return [items, pos];
    }
    default:
      throw new Error(`redis: not a RESP reply: ${JSON.stringify(text)}`);
  }
}

/** Sends one command to Redis on a connection of its own, in RESP, and reads the reply (ASCII replies). */
function redisCommand(port: number, args: string[]): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setTimeout(2_000, () => socket.destroy(new Error('redis: no reply in 2 s')));
    socket.on('error', reject);
    socket.on('data', (d: Buffer) => {
      text += d.toString('utf8');
      try {
        const reply = parseReply(text);
        if (!reply) return;
        socket.end();
        resolve(reply[0]);
      } catch (e) {
        socket.destroy();
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  });
}

export interface RunningRedis {
  /** `redis://127.0.0.1:<port>/0`, what `--store` takes. */
  url: string;
  port: number;
  /** One command, its reply parsed (`PING` answers `'PONG'`); a Redis error reply rejects. */
  command: (...args: string[]) => Promise<Reply>;
  /** SIGTERM to its PID, then waits until it has exited. */
  stop: () => Promise<void>;
  /** SIGKILL to its PID (Redis gone without a goodbye), then waits until it has exited. */
  kill: () => Promise<void>;
  /** Starts it again on the same port, empty (nothing is persisted); stops it first if it runs. */
  restart: () => Promise<void>;
}

/**
 * Debian's redis-server on 127.0.0.1 at a free port, in the foreground, with no persistence (no RDB, no AOF), its
 * folder in the run's temporary folder; ready when PING answers.
 */
export async function startRedis(): Promise<RunningRedis> {
  installed(REDIS, 'redis-server');
  const dir = folder('redis');
  const launch = async (port: number) => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const p = spawnTracked(REDIS, [...args, '--daemonize', 'no', '--dir', dir], dir);
    const pong = () =>
      redisCommand(port, ['PING']).then(
        (r) => r === 'PONG',
        () => false,
      );
    await until(p, `redis-server on port ${port}`, pong);
    return p;
  };
  const inUse = (e: unknown) => String(e).includes('Address already in use');
  let p = await atFreePort(async (port) => ({ port, p: await launch(port) }), inUse);
  const { port } = p;
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    command: (...args) => redisCommand(port, args),
    stop: () => p.p.end('SIGTERM'),
    kill: () => p.p.end('SIGKILL'),
    restart: async () => {
      await p.p.end('SIGTERM');
      p = { port, p: await sameport(() => launch(port), inUse) };
    },
  };
}

/**
 * Starts again on the port it had: a client's connection may hold that port for a moment after the process ended
 * (its local end, picked from the same range as free ports), so a few tries a short time apart.
 */
async function sameport<T>(launch: () => Promise<T>, inUse: (e: unknown) => boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch();
    } catch (e) {
      if (attempt === 10 || !inUse(e)) throw e;
      await sleep(200);
    }
  }
}

export interface Balancer {
  /** `http://127.0.0.1:<port>`, HAProxy's front end. */
  url: string;
  /** Each backend's state as HAProxy sees it now ('UP', 'DOWN', 'UP 1/2', ...), by the backend's URL. */
  states: () => Promise<Record<string, string>>;
  stop: () => Promise<void>;
}

/** The HAProxy configuration: round-robin over `backends`, health-checked, a request that cannot connect retried. */
function haproxyConfig(port: number, backends: string[], socket: string): string {
  const servers = backends.map((b, i) => `  server r${i} ${new URL(b).host}`);
  return [
    'global',
    '  maxconn 2000',
    `  stats socket ${socket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout check 1s',
    // A request whose connection to a replica fails (refused: the replica was killed and the health check has not
    // seen it yet) is sent to another replica: only connection failures, as the request never reached a replica and
    // resending it cannot apply it twice. Redispatch on every retry, not only on the last.
    '  retries 2',
    '  retry-on conn-failure',
    '  option redispatch 1',
    'frontend replicas',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /__sim/health',
    '  http-check expect status 200',
    // Out of the rotation after two failed checks half a second apart, back in after one good one.
    '  default-server check inter 500ms fall 2 rise 1',
    ...servers,
    '',
  ].join('\n');
}

/** One command to HAProxy's stats socket, its answer. */
function haproxyCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let text = '';
    s.on('error', reject);
    s.on('data', (d: Buffer) => (text += d.toString('utf8')));
    s.on('end', () => resolve(text));
    s.end(`${command}\n`);
  });
}

/**
 * Debian's HAProxy in the foreground (-db) on 127.0.0.1 at a free port, round-robin over `backends` (URLs of
 * replicas on 127.0.0.1), with its configuration and stats socket in the run's temporary folder; ready when its
 * front end accepts connections and every backend has passed a health check. A restarted backend must come back on
 * the same port (`startReplicas` does).
 */
export async function startHaproxy(backends: string[]): Promise<Balancer> {
  installed(HAPROXY, 'haproxy');
  const dir = folder('haproxy');
  const socket = join(dir, 'admin.sock');
  const config = join(dir, 'haproxy.cfg');
  const accepts = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
  const states = async () => {
    const [header, ...rows] = (await haproxyCommand(socket, 'show stat')).trim().split('\n');
    const columns = header.replace(/^# /, '').split(',');
    const [sv, status] = [columns.indexOf('svname'), columns.indexOf('status')];
    const states: Record<string, string> = {};
    for (const row of rows.map((r) => r.split(','))) {
      const i = /^r(\d+)$/.exec(row[sv])?.[1];
      if (i !== undefined) states[backends[Number(i)]] = row[status];
    }
    return states;
  };
  // HAProxy counts a backend UP before its first check ('UP 1/2': one failed check takes it out); ready once every
  // backend has passed one.
  const checked = () =>
    states().then(
      (s) => backends.every((b) => s[b] === 'UP'),
      () => false,
    );
  const { port, p } = await atFreePort(
    async (port) => {
      writeFileSync(config, haproxyConfig(port, backends, socket));
      const p = spawnTracked(HAPROXY, ['-db', '-f', config], dir);
      await until(p, `haproxy on port ${port}`, async () => (await accepts(port)) && (await checked()));
      return { port, p };
    },
    (e) => String(e).includes('Address already in use'),
  );
  return { url: `http://127.0.0.1:${port}`, states, stop: () => p.end('SIGTERM') };
}

export interface Replica {
  /** Its own URL (not the balancer's); the same after a restart. */
  url: string;
  /** The process as started last (its output, its exit). */
  started: () => Started;
  /** SIGKILL to its PID, then waits until it has exited. */
  kill: () => Promise<void>;
  /** Starts it again with the same arguments, environment and port (ending it first if it runs). */
  restart: () => Promise<void>;
}

/**
 * `n` replicas of the command line as users run it (dist/cli.cjs, which `npx tsup` builds), each started with
 * `args` and `--port` at a free port of its own.
 */
export async function startReplicas(n: number, args: string[], env: Record<string, string> = {}): Promise<Replica[]> {
  const launch = async (port: number) => {
    const s = await start([...args, '--port', String(port)], env);
    return { s, end: follow(s.child, s.exit).end };
  };
  const inUse = (e: unknown) => /port \d+ on \S+ is in use/.test(String(e));
  const one = async (): Promise<Replica> => {
    let r = await atFreePort(async (port) => ({ port, ...(await launch(port)) }), inUse);
    const { port } = r;
    return {
      url: r.s.url,
      started: () => r.s,
      kill: () => r.end('SIGKILL'),
      restart: async () => {
        await r.end('SIGTERM');
        r = { port, ...(await sameport(() => launch(port), inUse)) };
      },
    };
  };
  return Promise.all(Array.from({ length: n }, one));
}
