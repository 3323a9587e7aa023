import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp, signedHeaders, type JournalEntry, type RunningSimulator } from '../../src/index.js';
import {
  cancelEnvelope,
  challengeEnvelope,
  clientTime,
  expectEnvelope,
  lookupEnvelope,
  raw,
  send,
  simulator,
} from '../helpers.js';
import { changedUpstream, finding, findingsOver } from '../proxy-support.js';

/**
 * Proxy mode through the front door: a second simulator is the upstream; requests go to it unchanged and its answers
 * come back unchanged; each answer is judged against the contract and, with the API user's secret, compared with what
 * mfa-sim would have answered. With the same scenario on both sides nothing is found; an upstream that deviates is
 * reported, with both answers, in GET /__sim/findings and the journal.
 */

const SECRET = 'proxy-suite-secret';
const WORLD = { accounts: { 'locked@example.com': 'locked' } };
const ME = { apiUser: '123456789', secret: SECRET };

/** An upstream simulator with `world`, and a proxy to it running the same scenario (unless told otherwise). */
async function pair(
  world: Record<string, unknown> = WORLD,
  proxyWorld: Record<string, unknown> = world,
  proxy: Record<string, unknown> = {},
) {
  const upstream = await simulator({ secret: SECRET, ...world });
  const px = await simulator({ secret: SECRET, ...proxyWorld, upstream: upstream.url, ...proxy });
  return { upstream, px };
}

const serviceFindings = (list: { id: string }[]) => list.filter((f) => f.id.startsWith('service-'));
const last = (sim: RunningSimulator): JournalEntry => sim.journal({ limit: 1 })[0];

describe('proxy mode: forwarded and returned unchanged', async () => {
  const { upstream, px } = await pair();

  it("sends the client's method, path and query, headers and body to the upstream; the upstream's Host, never the client's", async () => {
    const time = clientTime(px);
    const body = JSON.stringify({ id: 'fwd-1', utctime: String(time), apiUser: ME.apiUser, type: 990, body: {} });
    const headers = Object.entries(signedHeaders({ ...ME, time })) as [string, string | string[]][];
    headers.push(
      ['Content-Type', 'application/json; charset=utf-8'],
      ['X-Trace', ['first', 'second']],
      ['Host', 'attacker.example:1234'],
    );
    const r = await raw(px.url, 'POST', '/v1/svc/time?trace=1', headers, body);
    const seen = last(upstream);
    expect(seen.path).toBe('/v1/svc/time?trace=1');
    expect(seen.request.body).toBe(body);
    expect(seen.request.headers['x-trace']).toBe('first, second');
    expect(seen.request.headers['x-svc-cnonce']).toBe(headers.find(([n]) => n === 'x-svc-cnonce')![1]);
    expect(seen.request.headers.authorization).toBe(headers.find(([n]) => n === 'Authorization')![1]);
    expect(seen.request.headers.host).toBe(new URL(upstream.url).host);
    // The answer is the upstream's, byte for byte, with its status and type.
    expect(r.status).toBe(200);
    expect(r.text).toBe(seen.response!.body);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expectEnvelope(r, 200, 15000);
    expect(JSON.parse(r.text).moreInfo).toBe(`${upstream.url}/status?code=15000`);
  });

  it("keeps a journal entry of the upstream answer, numbered as the simulator numbers its own, with mfa-sim's answer beside it", async () => {
    px.clearJournal();
    const r = await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    const entry = last(px);
    expect(entry).toMatchObject({
      method: 'GET',
      path: '/v1/svc/time',
      endpoint: 'time',
      apiUser: ME.apiUser,
      http: 200,
      code: 15000,
    });
    // What the request shows of itself, as a simulator's own journal shows it.
    const theirs = last(upstream);
    expect([entry.operation, entry.type, entry.user]).toEqual([theirs.operation, theirs.type, theirs.user]);
    expect(entry.response!.body).toBe(r.text);
    expect(entry.upstream).toMatchObject({ url: upstream.url, deviations: [], mfaSim: { http: 200, code: 15000 } });
    expect(entry.at).toBe(JSON.parse(r.text).utctime);
    const before = entry.seq;
    await send(px, '/v1/svc/nowhere', { as: ME });
    // A path that names no endpoint is the simulator's own -404: it never reaches the upstream.
    expect(last(px)).toMatchObject({ seq: before + 1, code: -404 });
    expect(last(upstream).path).toBe('/v1/svc/time');
  });

  it('runs with startSimulator and the command line: createApp, which answers the API itself, refuses upstream', () => {
    expect(() => createApp({ upstream: upstream.url } as Parameters<typeof createApp>[0])).toThrow(
      'options: upstream: proxy mode runs with startSimulator or the command line: createApp answers the API itself',
    );
  });

  it('answers a body over the limit -413 itself, and forwards nothing', async () => {
    const small = await simulator({ secret: SECRET, upstream: upstream.url, bodyLimit: 64 });
    const count = upstream.journal().length;
    const r = await send(small, '/v1/svc/challenge', { as: ME, body: challengeEnvelope(ME.apiUser) });
    expectEnvelope(r, 413, -413);
    expect(upstream.journal().length).toBe(count);
  });
});

describe('proxy mode with the same scenario on both sides: nothing found', async () => {
  const { upstream, px } = await pair();
  const post = (path: string, body: unknown, extra: Parameters<typeof send>[2] = {}) =>
    send(px, path, { as: ME, body, ...extra });

  it('a run of every kind of request: the same answers, no deviation, and the coverage of the codes the upstream answered', async () => {
    const codes: number[] = [];
    const sent = async (p: Promise<{ json: { code: number } }>) => codes.push((await p).json.code);
    await sent(send(px, '/v1/svc/time', { method: 'GET', as: ME }));
    await sent(
      post('/v1/svc/time', { id: 't-1', utctime: String(Date.now()), apiUser: ME.apiUser, type: 990, body: {} }),
    );
    const created = await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser, {}, { id: 'c-1' }));
    const id = JSON.parse(expectEnvelope(created, 202, 2025).message).challengeId as string;
    codes.push(2025);
    await sent(post('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id)));
    await sent(post('/v1/svc/verify', lookupEnvelope(ME.apiUser, 170, id, { authCode: '123456' })));
    await sent(post('/v1/svc/challenge', cancelEnvelope(ME.apiUser, id)));
    await sent(post('/v1/svc/challenge', cancelEnvelope(ME.apiUser, id)));
    await sent(post('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id)));
    await sent(
      post('/v1/svc/blocked', {
        id: 'b-1',
        utctime: String(Date.now()),
        apiUser: ME.apiUser,
        type: 950,
        body: { svcUser: 'user@example.com', ipAddress: '198.51.100.7' },
      }),
    );
    await sent(post('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'locked@example.com' })));
    await sent(post('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'not-an-address' })));
    await sent(send(px, '/v1/svc/time', { method: 'GET', as: { ...ME, secret: 'wrong' } }));
    const nonce = randomUUID();
    await sent(send(px, '/v1/svc/time', { method: 'GET', as: ME, nonce }));
    await sent(send(px, '/v1/svc/time', { method: 'GET', as: ME, nonce }));
    await sent(send(px, '/v1/svc/time', { method: 'GET', as: ME, time: Date.now() - 600_000 }));
    await sent(send(px, '/v1/svc/time', { method: 'GET', as: ME, mutate: (h) => (h['x-svc-utctime'] = 'yesterday') }));
    await sent(send(px, '/v1/svc/time', { method: 'GET', as: { apiUser: '987654321', secret: 'x' } }));
    expect(codes).toEqual([
      15000, 15000, 2025, -3091, -3091, 2028, -2035, -3092, 6020, -2006, -5079, -4037, 15000, -4034, -4036, -4005,
      -1001,
    ]);

    const entries = px.journal();
    expect(entries).toHaveLength(codes.length);
    for (const e of entries) {
      expect(e.upstream!.deviations, `${e.seq} ${e.code}`).toEqual([]);
      expect(e.upstream!.mfaSim!.code, `${e.seq}`).toBe(e.code);
    }
    expect(serviceFindings(await findingsOver(px))).toEqual([]);
    // The coverage is of the codes the upstream answered: the same counts it keeps itself.
    expect(px.coverage()).toEqual(upstream.coverage());
  });

  it("gives the client doctor's hints and findings for what the client did, never in the answer", async () => {
    px.reset();
    const r = await send(px, '/v1/svc/time', {
      method: 'GET',
      as: ME,
      mutate: (h) => (h['x-svc-utctime'] = '2026-11-25T10:00:00Z'),
    });
    expect(last(px).hint).toMatchObject({ id: expect.any(String), text: expect.stringMatching(/ISO 8601/) });
    // The answer is the upstream's own, whatever the proxy found.
    expect(r.text).toBe(last(upstream).response!.body);
    await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { enableQRcode: 'false' }, { id: 'same-id' }));
    await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser, {}, { id: 'same-id' }));
    const ids = (await findingsOver(px, 'scenario')).map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining(['string-booleans', 'envelope-id-reused']));
    expect(serviceFindings(await findingsOver(px))).toEqual([]);
  });

  it('parallel clients on one proxy: each answer judged against its own request', async () => {
    px.reset();
    const users = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post(
          '/v1/svc/challenge',
          challengeEnvelope(
            ME.apiUser,
            { svcUser: i % 3 ? `u${i}@example.com` : 'locked@example.com' },
            { id: `p-${i}` },
          ),
        ),
      ),
    );
    expect(users.map((r) => r.json.code).sort()).toEqual([...Array(10).fill(-2006), ...Array(20).fill(2025)].sort());
    const entries = px.journal();
    expect(new Set(entries.map((e) => e.seq)).size).toBe(30);
    for (const e of entries) expect(e.upstream!.mfaSim!.code).toBe(e.code);
    expect(serviceFindings(await findingsOver(px))).toEqual([]);
  });

  it("follows the scenario loaded on the proxy: mfa-sim's answers are those of the scenario in force", async () => {
    await fetch(`${px.url}/__sim/scenario`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'all-locked', accounts: { '*@example.com': 'locked' } }),
    });
    const r = await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser));
    expectEnvelope(r, 202, 2025);
    const f = finding(await findingsOver(px), 'service-differs-status');
    expect(f.detail).toMatch(
      /^HTTP 202 2025 where mfa-sim answers HTTP 400 -2006\. The service answered HTTP 202 2025 "\{\\"challengeId.*; mfa-sim would have answered HTTP 400 -2006 "Account locked/,
    );
    upstream.loadScenario({ name: 'all-locked', accounts: { '*@example.com': 'locked' } });
    px.reset();
    expectEnvelope(await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser)), 400, -2006);
    expect(serviceFindings(await findingsOver(px, 'scenario'))).toEqual([]);
    // The run keeps what it found before the reset.
    expect(serviceFindings(await findingsOver(px)).map((f) => f.id)).toEqual(['service-differs-status']);
    px.loadScenario({ name: 'again', ...WORLD });
    upstream.loadScenario({ name: 'again', ...WORLD });
  });

  it('the control API and the dashboard work as always', async () => {
    const page = await fetch(`${px.url}/__sim/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await fetch(`${px.url}/__sim/journal`)).status).toBe(200);
    expect((await fetch(`${px.url}/status?code=-4037`)).status).toBe(200);
    const report = await (await fetch(`${px.url}/__sim/report`)).text();
    expect(report).toMatch(/^## mfa-sim report/);
  });
});

describe("proxy mode: a person answers on the service's own phone app", async () => {
  const { upstream, px } = await pair();
  const post = (path: string, body: unknown) => send(px, path, { as: ME, body });

  for (const [press, code, status] of [
    ['approve', 3080, 200],
    ['deny', -3092, 400],
  ] as const) {
    it(`${press}: the status is the service's, the shadow follows it, and a later cancel agrees (no finding)`, async () => {
      const user = `${press}-person@example.com`;
      const created = await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: user }));
      const id = JSON.parse(expectEnvelope(created, 202, 2025).message).challengeId as string;
      // The person on the real phone: the upstream's own control API.
      if (press === 'approve') upstream.simulator.approve(id);
      else upstream.simulator.deny(id);
      expectEnvelope(await post('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id, {}, user)), status, code);
      expect(last(px).upstream!.deviations).toEqual([]);
      expectEnvelope(await post('/v1/svc/challenge', cancelEnvelope(ME.apiUser, id, user)), 400, -2035);
      expect(last(px).upstream!.deviations).toEqual([]);
      expect(serviceFindings(await findingsOver(px))).toEqual([]);
    });
  }

  it('a scripted person of the scenario answers nothing in the shadow: the service decides', async () => {
    // The service's own person never answers; the proxy's scenario has the magic addresses (the default).
    const two = await pair({ ...WORLD, magicAddresses: false }, WORLD);
    const post = (path: string, body: unknown) => send(two.px, path, { as: ME, body });
    const user = 'approve@example.com';
    const created = await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: user }));
    const id = JSON.parse(expectEnvelope(created, 202, 2025).message).challengeId as string;
    two.px.simulator.advance(5_000);
    expectEnvelope(await post('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id, {}, user)), 400, -3091);
    expect(last(two.px).upstream!.deviations).toEqual([]);
  });
});

describe('proxy mode: an upstream that deviates, each deviation reported with both answers', async () => {
  it('another message for the same code', async () => {
    const { px } = await pair(
      {
        ...WORLD,
        rules: [{ when: { svcUser: 'locked@example.com' }, respond: { code: -2006, message: 'Computer says no' } }],
      },
      WORLD,
    );
    const r = await send(px, '/v1/svc/challenge', {
      as: ME,
      body: challengeEnvelope(ME.apiUser, { svcUser: 'locked@example.com' }),
    });
    expect(r.json.message).toBe('Computer says no');
    const f = finding(await findingsOver(px), 'service-differs-message');
    expect(f).toMatchObject({ severity: 'warning', apiUser: ME.apiUser, count: 1 });
    expect(f.detail).toBe(
      `the message differs from mfa-sim's. The service answered HTTP 400 -2006 "Computer says no"; mfa-sim would have answered HTTP 400 -2006 "Account locked: the account locked@example.com is not usable"`,
    );
    expect(serviceFindings(await findingsOver(px)).map((x) => x.id)).toEqual(['service-differs-message']);
  });

  it('an extra envelope key, and a missing one', async () => {
    const real = await simulator({ secret: SECRET });
    const extra = await changedUpstream(real, (e) => ({ ...e, debug: 'trace-7' }));
    const px = await simulator({ secret: SECRET, upstream: extra.url });
    const r = await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    expect(JSON.parse(r.text).debug).toBe('trace-7');
    const found = await findingsOver(px);
    expect(finding(found, 'service-envelope-keys').detail).toMatch(
      /^extra "debug"\. The service answered HTTP 200 15000 "\{\\"utc-time\\":\\"\d+\\"\}"; mfa-sim would have answered HTTP 200 15000 "\{\\"utc-time\\":\\"\d+\\"\}"$/,
    );
    expect(finding(found, 'service-differs-envelope').detail).toMatch(/^extra "debug"\. The service answered/);

    const missing = await changedUpstream(real, ({ moreInfo: _gone, ...e }) => e);
    const px2 = await simulator({ secret: SECRET, upstream: missing.url });
    await send(px2, '/v1/svc/time', { method: 'GET', as: ME });
    const found2 = await findingsOver(px2);
    expect(finding(found2, 'service-envelope-keys').detail).toMatch(
      /^missing moreInfo\. The service answered HTTP 200 15000 .*; mfa-sim would have answered HTTP 200 15000/,
    );
    expect(finding(found2, 'service-differs-envelope').detail).toMatch(/^missing moreInfo\./);
  });

  it('a code outside the code table', async () => {
    const real = await simulator({ secret: SECRET });
    const odd = await changedUpstream(real, (e) => ({ ...e, code: 15001 }));
    const px = await simulator({ secret: SECRET, upstream: odd.url });
    expect((await send(px, '/v1/svc/time', { method: 'GET', as: ME })).json.code).toBe(15001);
    const found = await findingsOver(px);
    expect(finding(found, 'service-code-unknown').detail).toMatch(
      /^code 15001 is not in the code table\. The service answered HTTP 200 15001 .*; mfa-sim would have answered HTTP 200 15000 /,
    );
    expect(finding(found, 'service-differs-status').detail).toMatch(
      /^HTTP 200 15001 where mfa-sim answers HTTP 200 15000\./,
    );
    // Not a code of the service: the coverage has it counted, and no code of the table met.
    expect(px.coverage()).toMatchObject({ counts: { 15001: 1 }, met: [] });
  });

  it('an HTML 502 page: returned as it came, and reported', async () => {
    const { px } = await pair({ rules: [{ when: { endpoint: 'time' }, times: 1, fault: 'proxy-502' }] }, {});
    const r = await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    expect(r.status).toBe(502);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.text).toMatch(/^<html>/);
    const found = await findingsOver(px);
    expect(finding(found, 'service-not-json').detail).toMatch(
      /^the body is not a JSON object\. The service answered HTTP 502 text\/html; charset=utf-8 "<html>.*; mfa-sim would have answered HTTP 200 15000 /,
    );
    expect(finding(found, 'service-differs-status').detail).toMatch(
      /^HTTP 502 \(no code\) where mfa-sim answers HTTP 200 15000\./,
    );
    const entry = last(px);
    expect(entry).toMatchObject({ http: 502, code: undefined });
    expect(entry.upstream!.deviations.map((d) => d.kind)).toEqual(['service-not-json', 'service-differs-status']);
    // A 502 is a failure on the way: a client that retries it unsigned again is told so.
    expect(px.coverage().met).toEqual([]);
  });

  it('a slow answer: the client gets -5000 with the reason at the time-out, and it is reported', async () => {
    const { px } = await pair({ rules: [{ when: { endpoint: 'time' }, delay: '3s' }] }, {}, { upstreamTimeout: 300 });
    const started = Date.now();
    const r = await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    expect(Date.now() - started).toBeLessThan(2500);
    const e = expectEnvelope(r, 500, -5000);
    expect(e.message).toBe('Internal error: the upstream did not answer within 300 ms');
    const f = finding(await findingsOver(px), 'service-no-answer');
    expect(f.detail).toMatch(
      /^the upstream did not answer within 300 ms\. The service answered nothing; mfa-sim would have answered HTTP 200 15000 /,
    );
    expect(last(px)).toMatchObject({
      http: 500,
      code: undefined,
      fault: 'upstream',
      message: 'the upstream did not answer within 300 ms',
    });
    expect(px.coverage().met).toEqual([]);
  });

  it("a rule that delays mfa-sim's own decision never delays the client, nor the record: judged at once", async () => {
    const { px } = await pair({}, { rules: [{ when: { endpoint: 'time' }, delay: '10m' }] });
    expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 200, 15000);
    // The delay says when mfa-sim would answer; what it answers is decided at once and compared.
    expect(px.journal().map((e) => [e.code, e.upstream?.mfaSim?.code])).toEqual([[15000, 15000]]);
  });

  it('a code the service answered and mfa-sim would not: counted in the coverage as the service answered it', async () => {
    const { px } = await pair({ rules: [{ when: { svcUser: 'lockdown@example.com' }, respond: { code: -2038 } }] }, {});
    expectEnvelope(
      await send(px, '/v1/svc/challenge', {
        as: ME,
        body: challengeEnvelope(ME.apiUser, { svcUser: 'lockdown@example.com' }),
      }),
      400,
      -2038,
    );
    expect(px.coverage().counts).toEqual({ '-2038': 1 });
    expect(finding(await findingsOver(px), 'service-differs-status').detail).toMatch(
      /^HTTP 400 -2038 where mfa-sim answers HTTP 202 2025\./,
    );
  });
});

describe('proxy mode: what the journal entry of a forwarded request holds', async () => {
  it("the doctor's hint only for the code the service answered, and without the secret only one that needs none", async () => {
    const real = await simulator({ secret: SECRET });
    // The service calls a malformed nonce "missing": mfa-sim's hint is for another refusal, so it is not given.
    const renamed = await changedUpstream(real, (e) =>
      e.code === -4007 ? { ...e, code: -4006, moreInfo: String(e.moreInfo).replace('-4007', '-4006') } : e,
    );
    const px = await simulator({ secret: SECRET, upstream: renamed.url });
    await send(px, '/v1/svc/time', { method: 'GET', as: ME, mutate: (h) => (h['x-svc-cnonce'] = `{${randomUUID()}}`) });
    expect(last(px)).toMatchObject({ code: -4006, hint: undefined, upstream: { mfaSim: { code: -4007 } } });
    // A clock off: with the secret the doctor says how far; without it, the drift check (the API user known) is not its
    // to judge.
    const withSecret = await simulator({ secret: SECRET, upstream: real.url });
    await send(withSecret, '/v1/svc/time', { method: 'GET', as: ME, time: Date.now() - 900_000 });
    expect(last(withSecret)).toMatchObject({ code: -4036, hint: { text: expect.stringMatching(/900 s behind/) } });
    const without = await simulator({ upstream: real.url });
    await send(without, '/v1/svc/time', { method: 'GET', as: ME, time: Date.now() - 900_000 });
    expect(last(without)).toMatchObject({ code: -4036, hint: undefined });
  });

  it("the service's time when its answer gives one as the document writes it, else the simulator's; the latency", async () => {
    const real = await simulator({ secret: SECRET, rules: [{ when: { endpoint: 'time' }, delay: '60ms' }] });
    const odd = await changedUpstream(real, (e) => ({ ...e, utctime: '1' }));
    const px = await simulator({ secret: SECRET, upstream: odd.url });
    const before = Date.now();
    await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    const entry = last(px);
    expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(entry.at)).toBeLessThanOrEqual(Date.now() + 5);
    expect(entry.latencyMs).toBeGreaterThanOrEqual(60);
    expect(entry.latencyMs).toBeLessThan(60_000);
  });

  it("an error's message cut as the simulator cuts its own; a success's kept whole", async () => {
    const real = await simulator({
      secret: SECRET,
      rules: [
        {
          when: { svcUser: 'long@example.com' },
          respond: { code: 2025, message: JSON.stringify({ challengeId: 'c-1', note: 'x'.repeat(3000) }) },
        },
      ],
    });
    const long = await changedUpstream(real, (e) =>
      e.code === -2006 ? { ...e, message: `Locked. ${'y'.repeat(2000)}` } : e,
    );
    const px = await simulator({ secret: SECRET, upstream: long.url, accounts: { 'locked@example.com': 'locked' } });
    real.loadScenario({
      name: 'long',
      accounts: { 'locked@example.com': 'locked' },
      rules: [
        {
          when: { svcUser: 'long@example.com' },
          respond: { code: 2025, message: JSON.stringify({ challengeId: 'c-1', note: 'x'.repeat(3000) }) },
        },
      ],
    });
    await send(px, '/v1/svc/challenge', {
      as: ME,
      body: challengeEnvelope(ME.apiUser, { svcUser: 'locked@example.com' }),
    });
    expect(last(px).message).toBe(`Locked. ${'y'.repeat(504)}…`);
    await send(px, '/v1/svc/challenge', {
      as: ME,
      body: challengeEnvelope(ME.apiUser, { svcUser: 'long@example.com' }),
    });
    expect(last(px)).toMatchObject({
      code: 2025,
      challengeId: 'c-1',
      message: JSON.stringify({ challengeId: 'c-1', note: 'x'.repeat(3000) }),
    });
  });

  it("the dashboard's explorer sends through the proxy too: its requests are marked, and no client finding of them", async () => {
    const { px } = await pair();
    const r = await fetch(`${px.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'replay' }),
    });
    expect(r.status).toBe(200);
    const entries = px.journal();
    expect(entries.map((e) => [e.code, e.by])).toEqual([
      [-4034, 'explorer'],
      [15000, 'explorer'],
    ]);
    expect(await findingsOver(px)).toEqual([]);
  });

  it("a scenario's API users with their secrets are the operator's secret: the answers are compared", async () => {
    const world = { apiUsers: [{ id: '222222222', secret: 'listed-secret' }] };
    const upstream = await simulator(world);
    const px = await simulator({ ...world, upstream: upstream.url });
    await send(px, '/v1/svc/time', { method: 'GET', as: { apiUser: '222222222', secret: 'listed-secret' } });
    expect(last(px).upstream!.mfaSim).toMatchObject({ http: 200, code: 15000 });
  });

  it("mfa-sim's decision delayed by a rule is judged once it comes", async () => {
    const { px } = await pair({}, { rules: [{ when: { endpoint: 'time' }, delay: '80ms' }] });
    expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 200, 15000);
    await expect.poll(() => px.journal().length).toBe(1);
    expect(last(px).upstream).toMatchObject({ deviations: [], mfaSim: { code: 15000 } });
  });

  it("a cancel naming the service's challenge in a body written as relaxed JSON, misspelt: mfa-sim's copy is cancelled too", async () => {
    const { px } = await pair();
    const created = await send(px, '/v1/svc/challenge', { as: ME, body: challengeEnvelope(ME.apiUser) });
    const id = JSON.parse(expectEnvelope(created, 202, 2025).message).challengeId as string;
    const body = `{ 'challngeId': '${id}', 'svcUser': 'user@example.com', 'status': 'CANCEL', }`;
    expectEnvelope(
      await send(px, '/v1/svc/challenge', {
        as: ME,
        body: { id: 'c-2', utctime: String(Date.now()), apiUser: ME.apiUser, type: 151, body },
      }),
      202,
      2028,
    );
    expect(last(px).upstream).toMatchObject({ deviations: [], mfaSim: { code: 2028 } });
  });

  it('a code the code table gives to other operations: found, whatever the request shows of itself', async () => {
    const real = await simulator({ secret: SECRET });
    const odd = await changedUpstream(real, (e) => ({
      ...e,
      status: 400,
      code: -2035,
      moreInfo: String(e.moreInfo).replace('15000', '-2035'),
    }));
    const px = await simulator({ upstream: odd.url });
    await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    expect(finding(await findingsOver(px), 'service-code-scope').detail).toMatch(
      /^code -2035 is not an answer to time in the code table\./,
    );
  });
});

describe("proxy mode without the API user's secret: judged against the contract, not compared", async () => {
  const upstream = await simulator({ secret: SECRET });
  const px = await simulator({ upstream: upstream.url });

  it('records no mfa-sim answer and no difference, and still judges the answer', async () => {
    expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 200, 15000);
    expect(last(px).upstream).toEqual({ url: upstream.url, deviations: [] });
    expect(serviceFindings(await findingsOver(px))).toEqual([]);
  });

  it('gives the hints that need no secret (the header checks), and none that would', async () => {
    await send(px, '/v1/svc/time', { method: 'GET', as: ME, mutate: (h) => (h['x-svc-cnonce'] = `{${randomUUID()}}`) });
    expect(last(px)).toMatchObject({ code: -4007, hint: { id: expect.any(String) } });
    await send(px, '/v1/svc/time', { method: 'GET', as: { ...ME, secret: 'wrong' } });
    expect(last(px).code).toBe(-4037);
    expect(last(px).hint).toBeUndefined();
    expect(last(px).expectedStringToSign).toBeUndefined();
  });
});
