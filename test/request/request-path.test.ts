import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { codeInfo } from '../../src/contract/codes.js';
import { signedHeaders, startSimulator, type RunningSimulator } from '../../src/index.js';
import { RandomSource } from '../../src/world/random.js';
import {
  challengeEnvelope,
  clientTime,
  expectEnvelope,
  raw,
  send,
  simulator,
  withSimulator,
  type SendOptions,
} from '../helpers.js';

/**
 * The request path (src/request/path.ts) through the real HTTP server: what a rule's faults put on the wire, the
 * `Connection: close` of a -413, the bare titles of a scenario without hints, a rule's delay and its jitter, the -5000
 * answers outside the checks (a scenario header naming none, a bug of the path), proxy mode's numbering and what
 * mfa-sim would have answered under a fault, and the delayed requests a closing simulator drops.
 */

const ME = { apiUser: '123456789', secret: 'request-path-secret' };
const USERS = [{ id: ME.apiUser, secret: ME.secret }];

const time = (sim: RunningSimulator, opts: SendOptions = {}) =>
  send(sim, '/v1/svc/time', { method: 'GET', as: ME, ...opts });
const challenge = (sim: RunningSimulator, body: Record<string, unknown> = {}, opts: SendOptions = {}) =>
  send(sim, '/v1/svc/challenge', { as: ME, ...opts, body: challengeEnvelope(ME.apiUser, body) });

/** Resolves with `value` after `ms`. */
const after = <T>(ms: number, value: T) => new Promise<T>((done) => setTimeout(() => done(value), ms));

describe('faults a rule puts on the wire', async () => {
  const sim = await simulator({
    name: 'faults',
    apiUsers: USERS,
    rules: [
      { name: 'hang', when: { headers: { 'x-fault': 'hang' } }, fault: 'hang', hangFor: '300ms' },
      { name: 'p502', when: { headers: { 'x-fault': 'proxy-502' } }, fault: 'proxy-502' },
      { name: 'p503', when: { headers: { 'x-fault': 'proxy-503' } }, fault: 'proxy-503' },
      { name: 'p504', when: { headers: { 'x-fault': 'proxy-504' } }, fault: 'proxy-504' },
      { name: 'garbage', when: { headers: { 'x-fault': 'garbage' } }, fault: 'garbage' },
      { name: 'too large', when: { headers: { 'x-fault': '413' } }, respond: { code: -413 } },
    ],
  });
  const fault = (name: string) => ({ headers: { 'x-fault': name } });

  it('hang: the connection is held for hangFor, then closed without an answer', async () => {
    const started = performance.now();
    const outcome = await Promise.race([
      time(sim, fault('hang')).then(
        (r) => `answered HTTP ${r.status}`,
        (e: NodeJS.ErrnoException) => `closed (${e.code})`,
      ),
      after(5000, 'still held after 5 s'),
    ]);
    expect(outcome).toMatch(/^closed/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(299);
    expect(sim.journal({ limit: 1 })[0]).toMatchObject({ rule: 'hang', fault: 'hang', code: undefined });
  });

  it('proxy-502, -503, -504: the HTML page a proxy sends, with its status and title', async () => {
    const titles = { 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable', 504: 'Gateway Time-out' };
    for (const [status, title] of Object.entries(titles)) {
      const r = await time(sim, fault(`proxy-${status}`));
      expect(r.status).toBe(Number(status));
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.text).toContain(`<title>${status} ${title}</title>`);
      expect(r.text).toContain(`<h1>${status} ${title}</h1>`);
    }
  });

  it('garbage: the real status with a body that starts like an answer and is not JSON', async () => {
    const r = await time(sim, fault('garbage'));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.text.startsWith('\u0000<<garbled ')).toBe(true);
    expect(r.text.slice(1)).toMatch(/^<<garbled [A-Za-z0-9_-]{24}>>\u00ff\{"id":$/);
    expect(sim.journal({ limit: 1 })[0]).toMatchObject({ code: 15000, fault: 'garbage' });
  });

  it('-413 closes the connection after the answer (Connection: close); any other answer keeps it open', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // send() opens a connection of its own and asks to close it; a client's keep-alive agent does not.
      const viaAgent = (headers: Record<string, string>) => {
        const h = {
          ...signedHeaders({ ...ME, token: sim.token, time: clientTime(sim), nonce: randomUUID() }),
          ...headers,
        };
        return raw(sim.url, 'GET', '/v1/svc/time', Object.entries(h), undefined, agent);
      };
      const kept = await viaAgent({});
      expectEnvelope(kept, 200, 15000);
      expect(kept.headers.connection).toBe('keep-alive');
      const closed = await viaAgent({ 'x-fault': '413' });
      expectEnvelope(closed, 413, -413);
      expect(closed.headers.connection).toBe('close');
    } finally {
      agent.destroy();
    }
  });
});

describe('hints: false answers a refusal with the bare title; successes and forced messages are kept', async () => {
  const sim = await simulator({
    name: 'bare',
    hints: false,
    apiUsers: USERS,
    rules: [
      { when: { headers: { 'x-force': 'yes' } }, respond: { code: -5000, message: 'the test says so' } },
      { when: { headers: { 'x-force': 'signature' } }, respond: { code: -4037, message: 'forced at the signature' } },
    ],
  });

  it('a success keeps its message', async () => {
    const before = Math.floor(sim.simulator.now() / 1000);
    const e = expectEnvelope(await time(sim), 200, 15000);
    const utc = Number((JSON.parse(e.message) as { 'utc-time': string })['utc-time']);
    expect(utc).toBeGreaterThanOrEqual(before);
    expect(utc).toBeLessThanOrEqual(Math.floor(sim.simulator.now() / 1000));
  });

  it("a refusal is the code's title only", async () => {
    const e = expectEnvelope(await time(sim, { as: { apiUser: ME.apiUser, secret: 'not-the-secret' } }), 400, -4037);
    expect(e.message).toBe(codeInfo(-4037)!.title);
  });

  it("a message a rule forces is the test author's, kept", async () => {
    expect(expectEnvelope(await time(sim, { headers: { 'x-force': 'yes' } }), 500, -5000).message).toBe(
      'the test says so',
    );
  });

  it('a refusal at an earlier check than the forced code is the refusal, as bare as any', async () => {
    const sent = await time(sim, { headers: { 'x-force': 'signature' }, mutate: (h) => (h['x-svc-utctime'] = 'soon') });
    expect(expectEnvelope(sent, 400, -4005).message).toBe(codeInfo(-4005)!.title);
  });
});

describe('a delay, with jitter', () => {
  // Seeded, the jitter is the seed's first draw: the first request of a fresh simulator draws nothing before it.
  const SEED = 3;
  const r = new RandomSource(SEED).uint32() / 2 ** 32;

  it('{min, max}: min plus the drawn share of max - min, never more than max', () =>
    withSimulator(
      { seed: SEED, apiUsers: USERS, rules: [{ when: { endpoint: 'time' }, delay: { min: '600ms', max: '1s' } }] },
      async (sim) => {
        expect(r).toBeGreaterThan(0.5);
        const expected = 600 + r * 400;
        const started = performance.now();
        expectEnvelope(await time(sim), 200, 15000);
        const took = performance.now() - started;
        // Node's timers may fire up to 1 ms early; the upper bound leaves room for a loaded machine.
        expect(took).toBeGreaterThanOrEqual(expected - 1);
        expect(took).toBeLessThan(1500);
        expect(sim.journal({ limit: 1 })[0].latencyMs).toBeGreaterThanOrEqual(expected - 1);
      },
    ));

  it('a fixed delay draws nothing from the seeded random source: the world after it is the same', async () => {
    const rules = [{ when: { headers: { 'x-slow': 'yes' } }, delay: '20ms' }];
    const ids: string[] = [];
    for (const headers of [{ 'x-slow': 'yes' }, {}] as Record<string, string>[]) {
      await withSimulator({ seed: 11, apiUsers: USERS, rules }, async (sim) => {
        expectEnvelope(await time(sim, { headers }), 200, 15000);
        const made = expectEnvelope(await challenge(sim), 202, 2025);
        ids.push((JSON.parse(made.message) as { challengeId: string }).challengeId);
      });
    }
    expect(ids[0]).toBe(ids[1]);
  });

  it('closing the simulator drops a delayed request: it is never answered, nor journaled', async () => {
    const sim = await startSimulator({ apiUsers: USERS, rules: [{ when: { endpoint: 'time' }, delay: '800ms' }] });
    const sent = time(sim).then(
      () => 'answered',
      () => 'closed',
    );
    await after(200, undefined);
    await sim.close(20);
    expect(await sent).toBe('closed');
    await after(1000, undefined);
    expect(sim.journal()).toEqual([]);
    expect(sim.simulator.path.answeredCount).toBe(0);
  });
});

describe('-5000 outside the checks', async () => {
  const sim = await simulator({ name: 'outside', apiUsers: USERS });
  const SCENARIO = { 'x-sim-scenario': 'no-such-scenario' };
  const reason = 'x-sim-scenario: no scenario named `no-such-scenario`';
  const lastSeq = () => sim.journal({ limit: 1 })[0]?.seq ?? 0;
  const count = () => sim.coverage().counts['-5000'] ?? 0;

  it("a scenario header naming none: -5000 with the reason, the caller's id echoed, not counted", async () => {
    await time(sim);
    const seq = lastSeq();
    const counted = count();
    const r = await challenge(sim, {}, { headers: SCENARIO });
    const e = expectEnvelope(r, 500, -5000);
    expect(e.message).toBe(`Internal error: ${reason}`);
    expect(e.id).toBe('ref-1');
    const entry = sim.journal({ limit: 1 })[0];
    expect(entry).toMatchObject({ seq: seq + 1, code: -5000, http: 500 });
    expect(entry.internalError).toBeUndefined();
    expect(count()).toBe(counted);
  });

  it('a scenario header naming none, without an envelope id: the id is the journal number', async () => {
    const seq = lastSeq();
    const e = expectEnvelope(await time(sim, { headers: SCENARIO }), 500, -5000);
    expect(e.id).toBe(`sim-${seq + 1}`);
    expect(sim.journal({ limit: 1 })[0]).toMatchObject({ seq: seq + 1, code: -5000 });
    expect(sim.simulator.path.answeredCount).toBe(seq + 1);
  });

  it('a bug of the request path: -5000, moreInfo relative without a base URL, journaled, counted', async () => {
    const links = sim.simulator.links;
    const base = links.base.bind(links);
    links.base = () => {
      throw new Error('no base today');
    };
    const seq = lastSeq();
    const counted = count();
    let r;
    try {
      r = await challenge(sim);
    } finally {
      links.base = base;
    }
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ id: `sim-${seq + 1}`, status: 500, code: -5000, message: 'Internal error' });
    expect(r.json.moreInfo).toBe('/status?code=-5000');
    const entry = sim.journal({ limit: 1 })[0];
    expect(entry).toMatchObject({ seq: seq + 1, code: -5000, internalError: 'no base today' });
    expect(count()).toBe(counted + 1);
  });
});

describe('-5000 for a scenario header naming none, where no secret is long enough to hide', async () => {
  // A secret under 4 characters is never searched for: nothing is hidden, and the id is still the journal number.
  const SHORT = { apiUser: '123456789', secret: 'abc' };
  const sim = await simulator({
    name: 'short-secret',
    secret: SHORT.secret,
    apiUsers: [{ id: SHORT.apiUser, secret: SHORT.secret }],
  });

  it('without an envelope id: the id is the journal number', async () => {
    expect(sim.simulator.secrets.size).toBe(0);
    expectEnvelope(await time(sim, { as: SHORT }), 200, 15000);
    const seq = sim.journal({ limit: 1 })[0].seq;
    const r = await time(sim, { as: SHORT, headers: { 'x-sim-scenario': 'no-such-scenario' } });
    expect(expectEnvelope(r, 500, -5000).id).toBe(`sim-${seq + 1}`);
  });
});

describe('proxy mode', async () => {
  const SECRET = 'proxy-path-secret';
  const WHO = { apiUser: '123456789', secret: SECRET };
  const upstream = await simulator({ secret: SECRET });
  const px = await simulator({
    secret: SECRET,
    upstream: upstream.url,
    rules: [
      { when: { headers: { 'x-fault': 'reset' } }, fault: 'reset' },
      { when: { headers: { 'x-fault': 'hang' } }, fault: 'hang' },
    ],
  });

  it("numbers the upstream's answers among its own, from 1 up", async () => {
    const seq = px.journal({ limit: 1 })[0]?.seq ?? 0;
    for (let i = 0; i < 2; i++) expectEnvelope(await time(px, { as: WHO }), 200, 15000);
    expect(px.journal({ limit: 2 }).map((e) => e.seq)).toEqual([seq + 2, seq + 1]);
  });

  it('under a fault that never answers, mfa-sim would have answered nothing: HTTP 0, empty', async () => {
    for (const name of ['reset', 'hang']) {
      expectEnvelope(await time(px, { as: WHO, headers: { 'x-fault': name } }), 200, 15000);
      const entry = px.journal({ limit: 1 })[0];
      expect(entry.upstream!.mfaSim).toEqual({ http: 0, body: '' });
      expect(entry.upstream!.deviations.map((d) => d.detail).join('\n')).toContain(
        'mfa-sim would have answered HTTP 0  (empty)',
      );
    }
  });
});

describe("the other token's hint is for a body without the user (-5077) only", async () => {
  const sim = await simulator({ name: 'other-token', apiUsers: USERS });

  it('-5077 with `fooUser` in the body names the other token', async () => {
    const r = await send(sim, '/v1/svc/challenge', {
      as: ME,
      body: {
        ...challengeEnvelope(ME.apiUser),
        body: { fooUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
      },
    });
    expect(expectEnvelope(r, 400, -5077).message).toContain('token foo');
  });

  it('another body error of a body with `fooUser` (-5076) has no such hint', async () => {
    const r = await challenge(sim, { fooUser: 'user@example.com', challengeType: 'NoSuchType' });
    const e = expectEnvelope(r, 400, -5076);
    expect(e.message).not.toContain('fooUser');
    expect(sim.journal({ limit: 1 })[0].hint).toBeUndefined();
  });
});
