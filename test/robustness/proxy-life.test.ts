import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/index.js';
import { remote, start } from '../cli-helpers.js';
import { expectEnvelope, send, simulator, type Sent } from '../helpers.js';
import { finding, findingsOver, server } from '../proxy-support.js';

/**
 * Class: proxy mode's life cycle. What the service answered is recorded when it answered, whatever a rule of the
 * scenario delays in mfa-sim's own answer; stopping lets a proxied request still waiting for the upstream finish within
 * the grace, and a request mfa-sim cuts past it is no finding against the service; an upstream's answer with a status
 * HTTP has no final answer for is a broken answer like any other.
 */

const SECRET = 'proxy-life-secret';
const ME = { apiUser: '123456789', secret: SECRET };
const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-proxy-life-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let folders = 0;
const folder = () => join(dir, `recording-${++folders}`);

/** The lines of a recording's `exchanges.jsonl`, parsed. */
const exchanges = (recording: string) =>
  readFileSync(join(recording, 'exchanges.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { seq: number; response?: { status: number } });

/**
 * An upstream that is a real simulator whose answers are held back: each is asked for at once, and given at
 * `answerAt()` (a time from Date.now()) for the request it answers.
 */
function heldUpstream(real: RunningSimulator, answerAt: () => number) {
  return server((req, res, body) => {
    const at = answerAt();
    const out = request(`${real.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const timer = setTimeout(
          () => {
            res.writeHead(answer.statusCode ?? 500, answer.rawHeaders);
            res.end(Buffer.concat(chunks));
          },
          Math.max(0, at - Date.now()),
        );
        res.on('close', () => clearTimeout(timer));
      });
    });
    out.on('error', () => res.destroy());
    out.end(body);
  });
}

describe('proxy mode under a rule that delays what mfa-sim would have answered', () => {
  it('records each exchange when the service answered: journal, coverage, comparison and recording; a stop loses none (delay: 10m)', async () => {
    const upstream = await simulator({ secret: SECRET });
    const recording = folder();
    const px = await simulator({
      secret: SECRET,
      upstream: upstream.url,
      record: recording,
      rules: [{ name: 'slow', delay: '10m' }],
    });
    for (let i = 0; i < 5; i++) expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 200, 15000);
    // At once: nothing waits for the ten minutes.
    const entries = px.journal();
    expect(entries.map((e) => [e.code, e.upstream?.mfaSim?.code, e.upstream?.deviations])).toEqual(
      Array(5).fill([15000, 15000, []]),
    );
    expect(px.coverage().counts).toEqual({ 15000: 5 });
    expect(exchanges(recording).map((x) => x.response?.status)).toEqual([200, 200, 200, 200, 200]);
    await px.close();
    expect(readFileSync(join(recording, 'scenario.yaml'), 'utf8')).toMatch(/recorded by mfa-sim \(5 requests\)/);
  });

  it('the shipped server-errors scenario: every answer recorded at once, the delayed ones compared as the others', async () => {
    const upstream = await simulator({ secret: SECRET });
    const px = await simulator({ secret: SECRET, upstream: upstream.url, scenario: 'server-errors' });
    // Its 7th and 14th requests are delayed 1 to 3 s in mfa-sim's answer; its 5th, 10th and 15th answered -5000.
    for (let i = 0; i < 15; i++) expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 200, 15000);
    const entries = px.journal().sort((a, b) => a.seq - b.seq);
    expect(entries.map((e) => e.upstream?.mfaSim?.code)).toEqual(
      Array.from({ length: 15 }, (_, i) => ((i + 1) % 5 === 0 ? -5000 : 15000)),
    );
    expect(finding(await findingsOver(px), 'service-differs-status').count).toBe(3);
  });

  it('200 requests of 60 KB under delay: 10m: each told to the journal at once, none held for the delay', async () => {
    const upstream = await simulator({ secret: SECRET });
    const px = await simulator({
      secret: SECRET,
      upstream: upstream.url,
      journalSize: 10,
      rules: [{ name: 'slow', delay: '10m' }],
    });
    const body = JSON.stringify({ id: 'x'.repeat(60 * 1024) });
    for (let i = 0; i < 200; i++) await send(px, '/v1/svc/time', { method: 'POST', as: ME, body });
    // Every exchange told to the journal at once, and let go of: the ring keeps its last ten.
    expect(px.journal().length).toBe(10);
    expect(px.simulator.path.answeredCount).toBe(200);
  });
});

describe('stopping proxy mode with requests still waiting for the upstream', () => {
  it('SIGTERM: 60 in flight to an upstream answering in 1.5 s finish within the grace, recorded as answered; exit 0 under --fail-on-findings error', async () => {
    const real = await simulator({ secret: SECRET });
    let first: number | undefined;
    const slow = await heldUpstream(real, () => (first ??= Date.now()) + 1500);
    const report = join(dir, 'in-flight.md');
    const recording = folder();
    const run = await start([
      '--port',
      '0',
      '--upstream',
      slow.url,
      '--secret',
      SECRET,
      '--record',
      recording,
      '--report',
      report,
      '--fail-on-findings',
      'error',
      '--quiet',
    ]);
    const px = remote(run.url, ME.apiUser, SECRET);
    // As many as the connections mfa-sim opens to the upstream (64), so that each is at the upstream when it stops.
    const sent = Array.from({ length: 60 }, () => send(px, '/v1/svc/time', { method: 'GET' }));
    await expect.poll(() => slow.hits(), { timeout: 5000 }).toBe(60);
    const stoppedAt = Date.now();
    run.child.kill('SIGTERM');
    const answers = await Promise.all(sent);
    for (const r of answers) expectEnvelope(r, 200, 15000);
    expect({ exit: await run.exit, err: run.err() }).toEqual({ exit: 0, err: '' });
    expect(Date.now() - stoppedAt).toBeLessThan(2000 + 1500);
    const md = readFileSync(report, 'utf8');
    expect(md).toMatch(/\| 15000 \| Current UTC time returned \| 60 \|/);
    expect(md).not.toMatch(/service-no-answer/);
    expect(exchanges(recording)).toHaveLength(60);
  }, 20_000);

  it('SIGTERM past the grace: the requests are cut, no service-no-answer, exit 0 under --fail-on-findings error', async () => {
    const real = await simulator({ secret: SECRET });
    const never = await heldUpstream(real, () => Date.now() + 60_000);
    const report = join(dir, 'past-grace.md');
    const recording = folder();
    const run = await start([
      '--port',
      '0',
      '--upstream',
      never.url,
      '--upstream-timeout',
      '60000',
      '--secret',
      SECRET,
      '--record',
      recording,
      '--report',
      report,
      '--fail-on-findings',
      'error',
      '--quiet',
    ]);
    const px = remote(run.url, ME.apiUser, SECRET);
    const sent = Array.from({ length: 10 }, () =>
      send(px, '/v1/svc/time', { method: 'GET' }).then(
        (r: Sent) => `answered ${r.status}`,
        (e: NodeJS.ErrnoException) => e.code ?? e.message,
      ),
    );
    await expect.poll(() => never.hits(), { timeout: 5000 }).toBe(10);
    const stoppedAt = Date.now();
    run.child.kill('SIGTERM');
    const outcomes = await Promise.all(sent);
    // Not answered -5000 at once: waited for through the grace, then cut as mfa-sim's own requests are.
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1900);
    for (const o of outcomes) expect(o).toMatch(/ECONNRESET|socket hang up/);
    expect({ exit: await run.exit, err: run.err() }).toEqual({ exit: 0, err: '' });
    expect(Date.now() - stoppedAt).toBeLessThan(5000);
    expect(readFileSync(report, 'utf8')).not.toMatch(/service-no-answer/);
    expect(exchanges(recording)).toEqual([]);
  }, 20_000);

  it('close(grace) in-process: a request answered within the grace is recorded, one cut past it is no finding', async () => {
    const real = await simulator({ secret: SECRET });
    const soon = Date.now() + 400;
    const mixed = await heldUpstream(real, () => soon);
    const px = await simulator({ secret: SECRET, upstream: mixed.url });
    const within = send(px, '/v1/svc/time', { method: 'GET', as: ME });
    await expect.poll(() => mixed.hits()).toBe(1);
    await px.close(1000);
    expectEnvelope(await within, 200, 15000);
    expect(px.journal().map((e) => e.code)).toEqual([15000]);

    const late = Date.now() + 60_000;
    const stuck = await heldUpstream(real, () => late);
    const cut = await simulator({ secret: SECRET, upstream: stuck.url, upstreamTimeout: 60_000 });
    const cutRequest = send(cut, '/v1/svc/time', { method: 'GET', as: ME }).catch(
      (e: NodeJS.ErrnoException) => e.code ?? e.message,
    );
    await expect.poll(() => stuck.hits()).toBe(1);
    await cut.close(300);
    expect(await cutRequest).toMatch(/ECONNRESET|socket hang up/);
    expect(cut.findings().map((f) => f.id)).toEqual([]);
  });
});

describe('an upstream status line HTTP has no final answer for', () => {
  it('000, 099, 101, 600, 999: -5000 with the reason, and a service-no-answer finding, like any broken answer', async () => {
    const statuses = ['000', '099', '101', '600', '999'];
    const odd = createTcpServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', (head: Buffer) => {
        const status = /s=(\d+)/.exec(head.toString('latin1'))?.[1] ?? '200';
        const body =
          '{"id":"x","utctime":"2026-01-01T00:00:00.000Z","status":200,"code":15000,"message":"{}","moreInfo":""}';
        socket.end(
          `HTTP/1.1 ${status} Odd\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      });
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    afterAll(() => odd.close());
    const px = await simulator({
      secret: SECRET,
      upstream: `http://127.0.0.1:${(odd.address() as AddressInfo).port}`,
      upstreamTimeout: 2000,
    });
    for (const status of statuses) {
      const e = expectEnvelope(await send(px, `/v1/svc/time?s=${status}`, { method: 'GET', as: ME }), 500, -5000);
      expect(e.message, status).toBe(`Internal error: the upstream's answer is not valid HTTP (status ${status})`);
    }
    expect(finding(await findingsOver(px), 'service-no-answer')).toMatchObject({
      count: statuses.length,
      detail: expect.stringMatching(
        /^the upstream's answer is not valid HTTP \(status 999\)\. The service answered nothing/,
      ),
    });
    expect(px.journal().map((e) => e.upstream?.failure)).toEqual(
      statuses.map((s) => `the upstream's answer is not valid HTTP (status ${s})`).reverse(),
    );
  });
});
