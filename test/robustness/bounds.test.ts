import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_EVENT_STREAMS } from '../../src/http/event-stream.js';
import type { JournalEntry } from '../../src/run/journal.js';
import { challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator } from '../helpers.js';
import { expectStillServes } from './support.js';

/** Everything that grows with traffic has a bound (README "Robustness"); these tests drive each past it. */
describe('resource bounds', () => {
  it('the journal keeps the last journalSize entries, newest first', async () => {
    const sim = await simulator({ journalSize: 20 });
    for (let i = 0; i < 60; i++) await send(sim, '/v1/svc/time', { method: 'GET' });
    const entries = sim.journal();
    expect(entries).toHaveLength(20);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 60 - i));
  });

  it('a journal entry keeps at most 8 KiB of each body', async () => {
    const sim = await simulator();
    await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id, { profile: 'p'.repeat(60_000) }) });
    const [e] = sim.journal();
    expect(e.request.body.length).toBeLessThan(8192 + 100);
    expect(e.request.body).toMatch(/more characters\)$/);
  });

  it('the challenge store keeps the last maxChallenges; a forgotten challenge answers as unknown', async () => {
    const sim = await simulator({ maxChallenges: 25 });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const r = await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) });
      ids.push((JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId);
    }
    expect(sim.challenges()).toHaveLength(25);
    expectEnvelope(
      await send(sim, '/v1/svc/status', { body: lookupEnvelope(sim.apiUser.id, 171, ids[0]) }),
      400,
      -3087,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/status', { body: lookupEnvelope(sim.apiUser.id, 171, ids[59]) }),
      400,
      -3091,
    );
  });

  it('replay memory never holds more than replayCap entries per API user', async () => {
    const sim = await simulator({ replayCap: 100 });
    for (let i = 0; i < 200; i++) {
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
      expect(sim.simulator.world.replayStats()[sim.apiUser.id].entries).toBeLessThanOrEqual(100);
    }
  });

  it(`at most ${MAX_EVENT_STREAMS} event streams at once; one more gets 503, and a closed one frees its place`, async () => {
    const sim = await simulator();
    const open = await Promise.all(Array.from({ length: MAX_EVENT_STREAMS }, () => stream(sim.url)));
    expect(open.every((s) => s.status === 200)).toBe(true);
    const refused = await fetch(`${sim.url}/__sim/events`);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: `at most ${MAX_EVENT_STREAMS} event streams at once` });
    open[0].close();
    await waitFor(async () => (await stream(sim.url).then((s) => (s.close(), s.status))) === 200);
    for (const s of open) s.close();
    await expectStillServes(sim);
  });

  it('an event stream whose reader stopped reading is closed once 1 MiB waits for it, and its place is freed', async () => {
    const sim = await simulator();
    // A reader that sends the request and then never reads a byte.
    const reader = await exchangeOpen(sim.url);
    await waitFor(() => sim.simulator.requestJournal.listenerCount === 1);
    // Events of 16 KiB each, far more than socket buffers hold.
    const big = {
      seq: 0,
      at: new Date().toISOString(),
      method: 'POST',
      path: '/v1/svc/challenge',
      latencyMs: 0,
      scenario: 'x',
      request: { headers: {}, body: 'x'.repeat(16_000) },
    } as JournalEntry;
    for (let i = 0; i < 2000; i++) sim.simulator.requestJournal.add({ ...big, seq: i });
    await waitFor(() => sim.simulator.requestJournal.listenerCount === 0);
    reader.destroy();
    const again = await stream(sim.url);
    expect(again.status).toBe(200);
    again.close();
  });
});

/** Opens an event stream; resolves once its headers arrived. */
function stream(base: string): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/__sim/events`, { agent: false }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    req.end();
  });
}

/** A raw connection that asks for the event stream and never reads. */
async function exchangeOpen(base: string) {
  const { connect } = await import('node:net');
  const url = new URL(base);
  const s = connect(Number(url.port), url.hostname);
  s.on('error', () => undefined);
  s.pause();
  // The control plane answers only a Host naming this machine (DNS rebinding protection).
  s.write(`GET /__sim/events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  return s;
}

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
