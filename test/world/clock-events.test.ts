/**
 * The event stream's `clock` events: every move of the simulator's clock, by the control API, by an in-process call
 * or by a scenario load, reaches an open dashboard as the clock now is, once per move, however often streams open and
 * close.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { followEvents, simulator } from '../helpers.js';

interface ClockEvent {
  now: number;
  iso: string;
  frozen: boolean;
  offsetMs: number;
}

const clockEvents = (base: string) => followEvents<ClockEvent>(base, 'clock');

const AT = Date.parse('2031-05-06T07:08:09.000Z');

describe('the clock on the event stream', async () => {
  const sim = await simulator({ secret: 'clock-events-secret' });
  const control = (path: string, body?: object) =>
    fetch(`${sim.url}/__sim/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    }).then((r) => {
      expect(r.status).toBe(200);
    });

  it('each move by the control API is an event with the clock as it now is', async () => {
    const stream = clockEvents(sim.url);
    try {
      await expect.poll(stream.opened).toBe(true);
      await control('clock/freeze', { at: AT });
      await control('clock/advance', { by: '90s' });
      await control('clock/unfreeze');
      await expect.poll(() => stream.events.length).toBe(3);
      expect(stream.events.map((e) => [e.now, e.iso, e.frozen])).toEqual([
        [AT, '2031-05-06T07:08:09.000Z', true],
        [AT + 90_000, '2031-05-06T07:09:39.000Z', true],
        [expect.any(Number), expect.any(String), false],
      ]);
      // Let run again from where it stood: about AT + 90 s, not the machine's time.
      expect(Math.abs(stream.events[2].now - (AT + 90_000))).toBeLessThan(5_000);
    } finally {
      stream.stop();
    }
  });

  it('a scenario load puts the clock back under its offset, and an in-process move is an event too', async () => {
    const stream = clockEvents(sim.url);
    try {
      await expect.poll(stream.opened).toBe(true);
      await control('scenario', { name: 'clock-ahead' });
      await expect.poll(() => stream.events.length).toBe(1);
      expect(stream.events[0]).toMatchObject({ frozen: false, offsetMs: 600_000 });
      expect(Math.abs(stream.events[0].now - (Date.now() + 600_000))).toBeLessThan(5_000);
      sim.freeze(AT);
      await expect.poll(() => stream.events.length).toBe(2);
      expect(stream.events[1]).toMatchObject({ now: AT, frozen: true, offsetMs: 600_000 });
    } finally {
      stream.stop();
      sim.loadScenario('default');
    }
  });

  it('a stream that closes leaves the others following: the feeds stop only with the last one', async () => {
    const first = clockEvents(sim.url);
    const second = clockEvents(sim.url);
    try {
      await expect.poll(first.opened).toBe(true);
      await expect.poll(second.opened).toBe(true);
      first.stop();
      // The server learns of the close a moment after the client let go.
      await new Promise((r) => setTimeout(r, 100));
      await control('clock/freeze', { at: AT });
      await expect.poll(() => second.events.map((e) => e.now)).toEqual([AT]);
      expect(first.events).toEqual([]);
    } finally {
      second.stop();
      sim.loadScenario('default');
    }
  });

  it('is a server-sent event stream, never cached, kept open with no time limit said', async () => {
    const headers = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
      const req = request(`${sim.url}/__sim/events`, { agent: false }, (res) => {
        resolve({ status: String(res.statusCode), ...res.headers });
        req.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    expect(headers).toMatchObject({
      status: '200',
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    expect(headers['keep-alive']).toBeUndefined();
  });

  it('once per move after streams closed and opened again (the closed ones stopped watching the clock)', async () => {
    for (let i = 0; i < 3; i++) {
      const s = clockEvents(sim.url);
      await expect.poll(s.opened).toBe(true);
      s.stop();
    }
    // The last stream's close reaches the server after the client let go of it: wait until a move is no one's.
    const stream = clockEvents(sim.url);
    try {
      await expect.poll(stream.opened).toBe(true);
      await control('clock/freeze', { at: AT });
      await control('clock/advance', { by: '1m' });
      await expect.poll(() => stream.events.length).toBe(2);
      // Nothing more arrives: a subscription left behind would have sent each move twice.
      await new Promise((r) => setTimeout(r, 200));
      expect(stream.events.map((e) => e.now)).toEqual([AT, AT + 60_000]);
    } finally {
      stream.stop();
      sim.loadScenario('default');
    }
  });
});
