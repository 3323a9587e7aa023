import { createClient as redisClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client.js';
import { ControlError, startSimulator } from '../../src/index.js';
import { run, start } from '../cli-helpers.js';
import { startRedis, stopAll, type RunningRedis } from '../real-parts.js';

/** The store is hostile input too: its address, what it holds, and the options replicas are started with. */

let redis: RunningRedis;
beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(stopAll, 30_000);

const SECRET = 'input-secret';
/** A database of its own for each test: what one test writes, the next does not read. */
const storeOf = (db: number) => redis.url.replace(/\/0$/, `/${db}`);

/** Writes to a database of the store as something else than mfa-sim would. */
async function write(db: number, ...commands: string[][]): Promise<void> {
  const c = redisClient({ url: storeOf(db) });
  await c.connect();
  try {
    for (const command of commands) await c.sendCommand(command);
  } finally {
    c.destroy();
  }
}

describe('--store and the options beside it', () => {
  it('refuses what cannot make replicas answer as one, before it listens, saying why', () => {
    const cases: [string[], RegExp][] = [
      [['--store', 'http://127.0.0.1:6379'], /--store must be a redis:\/\/ \(or rediss:\/\/\) URL/],
      [['--store', 'redis://127.0.0.1:1/0'], /needs secret: every replica must sign with the same/],
      [['--store', 'redis://127.0.0.1:1/0', '--secret', 's', '--seed', '7'], /cannot be given with seed/],
      [
        ['--store', 'redis://127.0.0.1:1/0', '--secret', 's', '--upstream', 'http://127.0.0.1:1'],
        /cannot be given with upstream/,
      ],
      [
        ['--store', 'redis://127.0.0.1:1/0', '--secret', 's', '--host', '0.0.0.0'],
        /controlToken: is needed with store beyond loopback/,
      ],
    ];
    for (const [args, why] of cases) {
      const r = run([...args, '--port', '0']);
      expect([args.join(' '), r.status]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a store it cannot reach: exit 1 naming it, its password never shown', () => {
    const r = run(['--store', 'redis://admin:hunter2-password@127.0.0.1:1/0', '--secret', 's', '--port', '0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the store redis://127.0.0.1:1/0 cannot be reached');
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a replica started with other options than the first is refused, naming both', async () => {
    const first = await start(['--secret', SECRET, '--store', storeOf(1), '--port', '0', '--quiet']);
    try {
      const r = run(['--secret', 'another-secret', '--store', storeOf(1), '--port', '0']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/were started with other options .*start every replica with the same scenario, secret/);
      expect(r.stderr).not.toContain('another-secret');
      expect(r.stderr).not.toContain(SECRET);
    } finally {
      first.child.kill('SIGTERM');
      await first.exit;
    }
  });
});

describe('in process', () => {
  it('store: a change goes through the store (simulator.change); a control method called directly says so', async () => {
    const running = await startSimulator({ secret: SECRET, store: storeOf(6) });
    const other = await startSimulator({ secret: SECRET, store: storeOf(6) });
    try {
      expect(() => running.advance('1h')).toThrow(ControlError);
      expect(() => running.loadScenario('locked-account')).toThrow(/await running.simulator.change\('loadScenario'/);
      const at = Date.parse('2030-01-02T03:04:05Z');
      expect(await running.simulator.change('freeze', at)).toBe(at);
      await other.simulator.replicas!.caughtUp();
      expect(other.simulator.now()).toBe(at);
      // Reads are the replica's own, as it applied the changes.
      expect(other.coverage().counts).toEqual({});
    } finally {
      await running.close();
      await other.close();
    }
  });
});

describe('what the store holds', () => {
  it('changes that are not changes are left out with a warning; the replica goes on answering', async () => {
    const store = storeOf(2);
    const sim = await start(['--secret', SECRET, '--store', store, '--port', '0', '--quiet']);
    try {
      const poison = [
        'not json',
        '{"by":1}',
        JSON.stringify({ by: 'x:1', at: { time: 'soon', mono: 0, seed: '' } }),
        JSON.stringify({ by: 'x:2', at: { time: 1, mono: 1, seed: '' }, op: '__proto__', args: [] }),
        JSON.stringify({ by: 'x:3', at: { time: 1, mono: 1, seed: '' }, op: 'constructor', args: [] }),
        JSON.stringify({ by: 'x:4', at: { time: 1, mono: 1, seed: '' }, request: { headers: null } }),
        JSON.stringify({ by: 'x:5', at: { time: 1, mono: 1, seed: '' }, op: 'approve', args: ['no-such-id'] }),
      ];
      await write(2, ...poison.map((c) => ['XADD', 'mfa-sim:log', '*', 'c', c]));
      const client = createClient({ baseUrl: sim.url, apiUser: '123456789', secret: SECRET });
      expect((await client.time()).code).toBe(15000);
      const coverage = (await (await fetch(`${sim.url}/__sim/coverage`)).json()) as { counts: object };
      expect(coverage.counts).toEqual({ 15000: 1 });
      await expect.poll(() => sim.err()).toMatch(/holds a change that is not one/);
      expect(sim.child.exitCode).toBeNull();
    } finally {
      sim.child.kill('SIGTERM');
      await sim.exit;
    }
  });

  it('a snapshot it did not write: a replica refuses to start, saying how to start afresh', async () => {
    const garbage = ['not json', '{"id":"__proto__","state":{}}', '{"id":"1-0","state":{"world":"nope"}}'];
    for (const [i, snapshot] of garbage.entries()) {
      await write(3 + i, ['SET', 'mfa-sim:snapshot', snapshot]);
      const r = run(['--secret', SECRET, '--store', storeOf(3 + i), '--port', '0']);
      expect([snapshot, r.status]).toEqual([snapshot, 1]);
      expect(r.stderr).toMatch(/snapshot.*FLUSHDB\) to start afresh/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
