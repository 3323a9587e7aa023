import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectEnvelope, send, simulator } from '../helpers.js';
import { finding, findingsOver } from '../proxy-support.js';

/**
 * Class: proxy mode's life cycle. What the service answered is recorded when it answered, whatever a rule of the
 * scenario delays in mfa-sim's own answer.
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
