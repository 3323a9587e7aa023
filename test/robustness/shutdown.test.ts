import { connect } from 'node:net';
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
    const stuck: Promise<Sent | string> = send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-test': 'very-slow' } }).catch((e: NodeJS.ErrnoException) => e.code ?? e.message);
    await inFlight(stuck);
    await sim.close(300);
    expect(await stuck).toMatch(/ECONNRESET|socket hang up/);
    await idleClosed;
  });
});
