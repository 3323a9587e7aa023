import { afterAll, describe, expect, it } from 'vitest';
import { remote } from '../cli-helpers.js';
import { expectEnvelope, send } from '../helpers.js';
import { startHaproxy, startRedis, startReplicas, stopAll, type Balancer } from '../real-parts.js';

/**
 * The real parts the store's tests will run on (issue 59), proven with what exists before the store: three replicas
 * of the command line behind HAProxy, and Redis stopped and started on its port.
 */
afterAll(stopAll);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The signed time requests a replica answered, from its own journal. */
async function timeRequests(url: string): Promise<number> {
  const journal = (await (await fetch(`${url}/__sim/journal`)).json()) as { path: string }[];
  return journal.filter((e) => e.path === '/v1/svc/time').length;
}

/** Waits until HAProxy sees `backend` in `state`: how long it took, at most 5 s. */
async function until(lb: Balancer, backend: string, state: string, meanwhile = async () => {}): Promise<number> {
  const from = Date.now();
  while ((await lb.states())[backend] !== state) {
    if (Date.now() - from > 5_000)
      throw new Error(`${backend} not ${state} after 5 s: ${JSON.stringify(await lb.states())}`);
    await meanwhile();
    await sleep(20);
  }
  return Date.now() - from;
}

describe('the real parts', () => {
  it('HAProxy sends signed requests round-robin to three replicas, and a killed one leaves and rejoins', async () => {
    const replicas = await startReplicas(3, ['--secret', 's', '--quiet']);
    const urls = replicas.map((r) => r.url);
    const lb = await startHaproxy(urls);
    expect(Object.values(await lb.states())).toEqual(['UP', 'UP', 'UP']);
    const sim = remote(lb.url, '123456789', 's');
    const time = async () => expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    for (let i = 0; i < 6; i++) await time();
    expect(await Promise.all(urls.map(timeRequests))).toEqual([2, 2, 2]);

    // Killed: every request through HAProxy is still answered (a refused connection is sent to another replica)
    // while the health checks notice, and after.
    const [, killed] = replicas;
    await killed.kill();
    let [during, slowest] = [0, 0];
    const leftMs = await until(lb, killed.url, 'DOWN', async () => {
      const sent = Date.now();
      await time();
      slowest = Math.max(slowest, Date.now() - sent);
      during++;
    });
    for (let i = 0; i < 4; i++) await time();
    const [first, third] = await Promise.all([timeRequests(urls[0]), timeRequests(urls[2])]);
    expect(first + third).toBe(2 + 2 + during + 4);

    // Started again on its port: back in the rotation, and answering its share.
    await killed.restart();
    expect(killed.url).toBe(urls[1]);
    const backMs = await until(lb, killed.url, 'UP');
    for (let i = 0; i < 6; i++) await time();
    expect(await timeRequests(killed.url)).toBe(2);
    console.info(
      `a killed replica left the rotation in ${leftMs} ms (${during} requests meanwhile, the slowest ${slowest} ms), ` +
        `rejoined in ${backMs} ms`,
    );
  });

  it('Redis answers PING, and starts again on its port, empty, after a stop or a kill', async () => {
    const redis = await startRedis();
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}/0`);
    expect(await redis.command('PING')).toBe('PONG');
    expect(await redis.command('SET', 'k', 'v')).toBe('OK');
    expect(await redis.command('GET', 'k')).toBe('v');
    await redis.stop();
    await expect(redis.command('PING')).rejects.toThrow(/ECONNREFUSED/);
    await redis.restart();
    expect(await redis.command('PING')).toBe('PONG');
    expect(await redis.command('GET', 'k')).toBe(null);
    await redis.command('SET', 'k', 'v');
    await redis.kill();
    await expect(redis.command('PING')).rejects.toThrow(/ECONNREFUSED/);
    await redis.restart();
    expect(await redis.command('GET', 'k')).toBe(null);
  });
});
