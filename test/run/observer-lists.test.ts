import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/index.js';
import { AnsweredEvents } from '../../src/run/answered-events.js';
import { ObserverFailures } from '../../src/run/failures.js';
import { Journal, type JournalEntry } from '../../src/run/journal.js';
import { answeredOf, expectEnvelope, send } from '../helpers.js';

/**
 * Who is told of an answered request: the observers of "answered" and the journal's feed keep their subscribers in a
 * list that a change replaces. Each is called once per request, in the order they subscribed; one that leaves, or
 * makes another leave, while being told, changes who is told from the next request on, never the rest of this one.
 */

describe('the observers of "answered"', () => {
  it('are told in the order they subscribed, once each; leaving while told takes effect from the next event', () => {
    const failures = new ObserverFailures();
    const events = new AnsweredEvents(failures);
    const told: string[] = [];
    const leave: Record<string, () => void> = {};
    leave.a = events.subscribe('a', (e) => {
      told.push(`a${e.record.seq}`);
      // The first one makes the second and itself leave while the first event is being told.
      leave.b();
      leave.a();
    });
    leave.b = events.subscribe('b', (e) => told.push(`b${e.record.seq}`));
    events.subscribe('c', (e) => told.push(`c${e.record.seq}`));
    events.emit(1, () => answeredOf(1));
    events.emit(2, () => answeredOf(2));
    expect(told).toEqual(['a1', 'b1', 'c1', 'c2']);
    // Leaving twice is leaving once: the others stay.
    leave.a();
    events.emit(3, () => answeredOf(3));
    expect(told.slice(4)).toEqual(['c3']);
    expect(failures.list()).toEqual([]);
  });

  it('one that throws is recorded under its name, and the ones after it are still told', () => {
    const failures = new ObserverFailures();
    const events = new AnsweredEvents(failures);
    const told: number[] = [];
    events.subscribe('breaks', () => {
      throw new Error('broke');
    });
    events.subscribe('after', (e) => told.push(e.record.seq));
    events.emit(7, () => answeredOf(7));
    expect(told).toEqual([7]);
    expect(failures.list()).toEqual([{ observer: 'breaks', count: 1, message: 'broke', firstSeq: 7, lastSeq: 7 }]);
  });
});

describe("the journal's feed, over HTTP", async () => {
  const sim = await startSimulator({ secret: 'feed-list-secret' });
  afterAll(() => sim.close());
  const journal = sim.simulator.requestJournal;

  it('tells each listener once per request, in order; a listener leaving while told is not told again', async () => {
    const told: string[] = [];
    const stops: Record<string, () => void> = {};
    stops.first = journal.subscribe(
      (e) => {
        told.push(`first ${e.seq}`);
        stops.second();
      },
      { name: 'first' },
    );
    stops.second = journal.subscribe((e) => told.push(`second ${e.seq}`), { name: 'second' });
    stops.third = journal.subscribe((e) => told.push(`third ${e.seq}`), { name: 'third' });
    const before = journal.listenerCount;
    try {
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    } finally {
      stops.first();
      stops.third();
    }
    const [one, two] = journal
      .entries()
      .map((e) => e.seq)
      .reverse()
      .slice(-2);
    expect(told).toEqual([`first ${one}`, `second ${one}`, `third ${one}`, `first ${two}`, `third ${two}`]);
    expect(before).toBe(journal.listenerCount + 3);
  });

  it('hands every listener an entry whose secrets are hidden, headers and bodies included', async () => {
    const seen: JournalEntry[] = [];
    const stop = journal.subscribe((e) => seen.push(e), { name: 'listener' });
    try {
      await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-note': 'feed-list-secret' } });
    } finally {
      stop();
    }
    expect(seen.at(-1)?.request.headers['x-note']).toBe('[secret]');
    expect(journal.entries()[0].request.headers['x-note']).toBe('[secret]');
  });

  it('a listener that throws, named or not, is recorded under its name and the request is answered', async () => {
    sim.newRun();
    const stops = [
      journal.subscribe(() => {
        throw new Error('unnamed broke');
      }),
      journal.subscribe(
        () => {
          throw new Error('named broke');
        },
        { name: 'my feed' },
      ),
    ];
    try {
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    } finally {
      for (const stop of stops) stop();
    }
    expect(sim.observerFailures().map((f) => [f.observer, f.message])).toEqual([
      ['journal feed', 'unnamed broke'],
      ['my feed', 'named broke'],
    ]);
    sim.newRun();
  });
});

describe('a journal kept without a record of failures (as a library keeps one)', () => {
  it('goes on past a listener that throws', () => {
    const journal = new Journal(4);
    const told: number[] = [];
    journal.subscribe(() => {
      throw new Error('broke');
    });
    journal.subscribe((e) => told.push(e.seq));
    expect(() => journal.add(answeredOf(1).record)).not.toThrow();
    expect(told).toEqual([1]);
  });
});
