import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/index.js';
import { expectEnvelope, send, type Sent } from '../helpers.js';

/**
 * Graceful shutdown: `close(graceMs)` stops accepting connections, lets in-flight requests finish, cuts a
 * connection a `hang` fault holds at once, and resolves by `graceMs` whatever is still running.
 */
const rules = [
  { name: 'slow', when: { headers: { 'x-test': 'slow' } }, delay: '400ms' },
  { name: 'very slow', when: { headers: { 'x-test': 'very-slow' } }, delay: '10m' },
  { name: 'hang', when: { headers: { 'x-test': 'hang' } }, fault: 'hang' as const, hangFor: '10m' },
];

/** Gives a request time to reach the simulator (it is journaled only once answered, so there is nothing to wait on). */
async function inFlight(p: Promise<unknown>): Promise<void> {
  void p.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 150));
}

describe('graceful shutdown', () => {
  it('an in-flight request (slowed by a delay rule) is answered when close() is called', async () => {
    const sim = await startSimulator({ rules });
    const pending = send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-test': 'slow' } });
    await inFlight(pending);
    const closed = sim.close(5000);
    expectEnvelope(await pending, 200, 15000);
    await closed;
    // Closed: no new connection is accepted.
    await expect(send(sim, '/v1/svc/time', { method: 'GET' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('a connection held by a hang fault is cut at once; close() does not wait for it', async () => {
    const sim = await startSimulator({ rules });
    let cut: Promise<unknown> = send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-test': 'hang' } });
    cut = cut.then(
      () => 'answered',
      (e: NodeJS.ErrnoException) => e.code ?? e.message,
    );
    await inFlight(cut);
    expect(sim.simulator.hanging.size).toBe(1);
    // A grace far longer than any test: close() must not need it, because a hanging connection is not in flight.
    await sim.close(600_000);
    expect(await cut).toMatch(/ECONNRESET|socket hang up/);
  });

  it('close() resolves once the grace has passed, cutting a request that is still running, and idle keep-alive connections go at once', async () => {
    const sim = await startSimulator({ rules });
    // An idle keep-alive connection: one answered request, then nothing.
    const idle = connect(sim.port, '127.0.0.1');
    idle.on('error', () => undefined);
    idle.resume();
    const idleClosed = new Promise<void>((resolve) => idle.on('close', () => resolve()));
    idle.write('GET /favicon.svg HTTP/1.1\r\nHost: x\r\n\r\n');
    const stuck: Promise<Sent | string> = send(sim, '/v1/svc/time', {
      method: 'GET',
      headers: { 'x-test': 'very-slow' },
    }).catch((e: NodeJS.ErrnoException) => e.code ?? e.message);
    await inFlight(stuck);
    await sim.close(300);
    expect(await stuck).toMatch(/ECONNRESET|socket hang up/);
    await idleClosed;
  });

  it('a closed simulator holds no process: a request delayed 10 minutes (its client gone, or cut at the grace), a hang, an event stream', async () => {
    // In a process of its own, which must then end by itself: a timer left behind would hold it for 10 minutes.
    const script = join(mkdtempSync(join(tmpdir(), 'mfa-sim-shutdown-')), 'closes.mts');
    writeFileSync(
      script,
      `import { startSimulator, signedHeaders } from ${JSON.stringify(join(__dirname, '..', '..', 'src', 'index.ts'))};
       const sim = await startSimulator({ secret: 's', rules: ${JSON.stringify(rules)} });
       const headers = (test: string) => ({ ...signedHeaders({ apiUser: sim.apiUser.id, secret: 's' }), 'x-test': test });
       const gone = new AbortController();
       const sent = [
         fetch(sim.url + '/v1/svc/time', { headers: headers('very-slow'), signal: gone.signal }),
         fetch(sim.url + '/v1/svc/time', { headers: headers('very-slow') }),
         fetch(sim.url + '/v1/svc/time', { headers: headers('hang') }),
         fetch(sim.url + '/__sim/events').then((r) => r.body.getReader().read()),
       ].map((p) => p.then(() => 'answered', () => 'cut'));
       await new Promise((r) => setTimeout(r, 300));
       gone.abort();
       await sim.close(300);
       console.log('closed', (await Promise.all(sent)).join(','));`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const ended = await new Promise<number | string | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running 30 s after close()');
      }, 30_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect({ ended, out }).toEqual({ ended: 0, out: 'closed cut,cut,cut,answered\n' });
  }, 40_000);
});
