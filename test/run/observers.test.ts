import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { signedHeaders, type RunningSimulator } from '../../src/index.js';
import type { JournalEntry } from '../../src/run/journal.js';
import type { ApiResult } from '../../src/request/path.js';
import { bodyOf, clientTime, rawSocket, send, simulator } from '../helpers.js';

/**
 * The observers of "answered" (the journal, coverage, the client doctor's findings, and through the journal the log
 * lines and the event stream) are told as each request is answered: whatever reads what they hold, in the same turn
 * or over another connection, sees every answer given before it, in the order answered.
 */

const WHO = { apiUser: '123456789', secret: 'observers-later-secret' };

/** A signed time request as a client writes it on the wire, with the nonce given. */
function signedTimeRequest(sim: RunningSimulator, nonce = randomUUID()): string {
  const headers = signedHeaders({ ...WHO, token: sim.token, time: clientTime(sim), nonce });
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `GET /v1/svc/time HTTP/1.1\r\nHost: ${new URL(sim.url).host}\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** The same request as the request path takes it in process, signed `offMs` away from the simulator's clock. */
function timeRequest(sim: RunningSimulator, offMs = 0) {
  const time = clientTime(sim) + offMs;
  const headers = signedHeaders({ ...WHO, token: sim.token, time, nonce: randomUUID() });
  const lower = Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v]));
  return { method: 'POST', url: '/v1/svc/time', headers: { ...lower, host: new URL(sim.url).host }, body: '' };
}

/** The code of an answer the request path gave at once (no rule delays it here). */
function codeOf(result: ApiResult | Promise<ApiResult>): number {
  if (result instanceof Promise) throw new Error('answered later');
  return (JSON.parse(result.body) as { code: number }).code;
}

describe('observers told as each request is answered', async () => {
  const sim = await simulator({ name: 'observers later', apiUsers: [{ id: WHO.apiUser, secret: WHO.secret }] });
  afterAll(() => sim.close());

  /** Each reader of what the observers hold, alone: what it shows of two requests signed with one clock 400 s off. */
  const readers: [string, () => unknown, unknown][] = [
    [
      'the journal',
      () => sim.journal().map((e) => [e.seq, e.code]),
      [
        [2, -4036],
        [1, -4036],
      ],
    ],
    ['the run coverage', () => sim.coverage('run').counts, { '-4036': 2 }],
    ["the scenario's coverage", () => sim.coverage('scenario').counts, { '-4036': 2 }],
    ['the findings', () => sim.findings().map((f) => [f.id, f.count]), [['drift-not-corrected', 1]]],
    ['the run summary', () => sim.simulator.runSummary().coverage.counts, { '-4036': 2 }],
    ['the report', () => /\| -4036 \| [^|]+ \| 2 \|/.test(sim.report('markdown')), true],
    ['the verdict', () => sim.simulator.verdict({ failOn: 'error' }).status, 4],
    ['the hints', () => sim.hints().map((h) => h.count), [2]],
  ];

  it.each(readers)('a read of %s in the same turn as the answers sees them', (_, read, expected) => {
    sim.newRun();
    expect(codeOf(sim.simulator.path.handle(timeRequest(sim, -400_000)))).toBe(-4036);
    expect(codeOf(sim.simulator.path.handle(timeRequest(sim, -400_000)))).toBe(-4036);
    // Read at once, before the turn ends: nothing has been told yet unless the reader takes the answers in.
    expect(read()).toEqual(expected);
  });

  it('a failing listener of the journal is among the observer failures read in the same turn', () => {
    sim.newRun();
    const stop = sim.simulator.requestJournal.subscribe(
      () => {
        throw new Error('listener broke');
      },
      { name: 'breaks' },
    );
    try {
      expect(codeOf(sim.simulator.path.handle(timeRequest(sim)))).toBe(15000);
      expect(sim.simulator.observerFailures().map((f) => [f.observer, f.count])).toEqual([['breaks', 1]]);
    } finally {
      stop();
      sim.newRun();
    }
  });

  it('a new run started in the same turn as an answer: the answer belongs to the run before', () => {
    expect(codeOf(sim.simulator.path.handle(timeRequest(sim)))).toBe(15000);
    sim.newRun();
    expect(sim.coverage('run').counts).toEqual({});
    expect(sim.simulator.runSummary().requests).toBe(0);
  });

  it('the clock moved in the same turn as an answer: the answer is measured against the clock before the move', () => {
    sim.newRun();
    // The client's clock stays where it was; the simulator's moves 2 minutes on (within the drift allowed).
    const before = timeRequest(sim);
    expect(codeOf(sim.simulator.path.handle(before))).toBe(15000);
    sim.advance('2m');
    expect(codeOf(sim.simulator.path.handle(timeRequest(sim, -119_000)))).toBe(15000);
    // Measured from the move on, the client's distance to the clock did not spread: it was moved, not drifting.
    expect(sim.findings().map((f) => f.id)).toEqual([]);
    // Without the move between them, the same two distances are a clock drifting.
    expect(codeOf(sim.simulator.path.handle(timeRequest(sim)))).toBe(15000);
    expect(sim.findings().map((f) => f.id)).toEqual(['clock-drifting']);
  });

  it('a scenario loaded in the same turn as an answer: the answer counts in the scenario it was answered under', () => {
    sim.newRun();
    expect(codeOf(sim.simulator.path.handle(timeRequest(sim)))).toBe(15000);
    expect(codeOf(sim.simulator.path.handle(timeRequest(sim)))).toBe(15000);
    sim.reset();
    // The two answers belong to the run, not to the scenario that starts afresh after them.
    expect(sim.coverage('run').counts).toEqual({ 15000: 2 });
    expect(sim.coverage('scenario').counts).toEqual({});
    expect(sim.journal()).toEqual([]);
  });

  it('a secret let go in the same turn as an answer is still hidden in its journal entry', () => {
    sim.newRun();
    const claimed = sim.claimApiUser();
    const headers = signedHeaders({
      apiUser: claimed.apiUser,
      secret: claimed.secret,
      token: sim.token,
      time: clientTime(sim),
      nonce: randomUUID(),
    });
    const lower = Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v]));
    // A body that carries the API user's own secret, as a client logging its configuration might send it.
    const body = JSON.stringify({ note: `my secret is ${claimed.secret}` });
    expect(codeOf(sim.simulator.path.handle({ method: 'POST', url: '/v1/svc/time', headers: lower, body }))).toBe(
      15000,
    );
    // Let go at once: the simulator no longer holds that secret, so it could no longer find it in the entry.
    expect(sim.releaseApiUser(claimed.apiUser)).toBe(true);
    const [entry] = sim.journal({ limit: 1 });
    expect(entry.request.body).toBe(JSON.stringify({ note: 'my secret is [secret]' }));
  });

  it('a control read pipelined after an API request on one connection sees the request', async () => {
    sim.newRun();
    const host = new URL(sim.url).host;
    const nonce = randomUUID();
    const text = await rawSocket(
      sim.url,
      `${signedTimeRequest(sim, nonce)}GET /__sim/journal HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    const second = text.slice(text.indexOf('HTTP/1.1', 1));
    const entries = bodyOf(second) as unknown as JournalEntry[];
    expect(entries.map((e) => [e.code, e.request.headers['x-svc-cnonce']])).toEqual([[15000, nonce]]);
  });

  it('many requests at once are told in the order they were answered, each once', async () => {
    sim.newRun();
    const told: number[] = [];
    const stop = sim.simulator.requestJournal.subscribe((e) => told.push(e.seq), { name: 'order' });
    try {
      const answers = await Promise.all(Array.from({ length: 60 }, () => send(sim, '/v1/svc/time', { as: WHO })));
      expect(answers.map((a) => a.status)).toEqual(Array(60).fill(200));
      expect(told).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect(sim.journal().map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => 60 - i));
      expect(sim.coverage().counts).toEqual({ 15000: 60 });
    } finally {
      stop();
    }
  });
});
