import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { signedHeaders, type RunningSimulator } from '../../src/index.js';
import { MAX_OTHER_CODES } from '../../src/run/coverage.js';
import type { JournalEntry } from '../../src/run/journal.js';
import { MAX_CHALLENGE_ID_CHARS } from '../../src/proxy/shadow.js';
import { challengeEnvelope, clientTime, raw, send, simulator } from '../helpers.js';
import { finding, findingsOver, server } from '../proxy-support.js';
import { flood, keepAlive } from './support.js';

/**
 * Class: what an upstream answers is kept within the bounds a client's values are kept in (docs/robustness.md,
 * "Memory" and "Journal"). An upstream that names challenges with ids of 900,000 characters, answers envelopes with
 * extra keys of a million, a Content-Type of 15,000 characters or a new code each time, behind a client that sends
 * 300 headers: every journal entry stays under 64 KiB, every finding's detail under a few hundred characters past the
 * 512 of a message, the heap does not grow with the answers, and the journal and the reports still answer whole.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 2 ** 20;

/** Bytes the process holds on its heap and in array buffers, after full collections. */
function held(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const SECRET = 'upstream-values-secret';
const ME = { apiUser: '123456789', secret: SECRET };
const agent = keepAlive();

/** A text of `n` characters, different for each `i`. */
const filler = (i: number, n: number) => `${i}-`.padEnd(n, 'x');
const envelope = (code: number, status: number, message: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'up-1',
    utctime: new Date().toISOString(),
    status,
    code,
    message,
    moreInfo: `https://upstream.example/codes?code=${code}`,
    ...more,
  });

/**
 * The hostile upstream: what it answers is chosen by the request's `x-answer` header (which the proxy forwards as it
 * forwards every header), `x-n` numbering the answers so that no two hostile values are the same.
 */
const up = await server((req, res) => {
  const n = Number(req.headers['x-n'] ?? 0);
  const kind = String(req.headers['x-answer'] ?? '');
  let type = 'application/json; charset=utf-8';
  let status = 200;
  let body: string;
  if (kind.startsWith('id:')) {
    status = 202;
    const id = filler(n, Number(kind.slice(3)));
    body = envelope(2025, 202, JSON.stringify({ challengeId: id, challengeQRcodeUrl: 'https://upstream.example/p' }));
  } else if (kind === 'huge-key') {
    body = envelope(15000, 200, '{"utctime":"2026-01-01T00:00:00.000Z"}', { [filler(n, 1_000_000)]: 1 });
  } else if (kind === 'many-keys') {
    const keys = Array.from({ length: 20_000 }, (_, i) => `,"k${n}-${i}":0`).join('');
    body = `${envelope(15000, 200, '{"utctime":"2026-01-01T00:00:00.000Z"}').slice(0, -1)}${keys}}`;
  } else if (kind === 'secret-key') {
    // The API user's secret in a long key, across where a detail is cut: hidden before anything of it is cut.
    const key = `${'s'.repeat(500)}${SECRET}${'t'.repeat(5000)}`;
    body = envelope(15000, 200, '{"utctime":"2026-01-01T00:00:00.000Z"}', { [key]: 1 });
  } else if (kind === 'huge-type') {
    type = `text/plain; x=${filler(n, 15_000)}`;
    body = envelope(15000, 200, '{"utctime":"2026-01-01T00:00:00.000Z"}');
  } else if (kind === 'new-code') {
    body = envelope(900_000 + n, 200, 'a code of its own');
  } else body = envelope(15000, 200, '{"utctime":"2026-01-01T00:00:00.000Z"}');
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
});

const proxyTo = (withSecret: boolean) =>
  simulator({ upstream: up.url, upstreamTimeout: 5000, ...(withSecret ? { secret: SECRET } : {}) });

/** A signed request that asks the upstream for `answer`, numbered `n`. */
const asking = (px: RunningSimulator, answer: string, n: number, kind: 'challenge' | 'time' = 'time') => {
  const headers: [string, string][] = [
    ...Object.entries(
      signedHeaders({ apiUser: ME.apiUser, secret: SECRET, time: clientTime(px), nonce: randomUUID() }),
    ),
    ['x-answer', answer],
    ['x-n', String(n)],
    ['content-type', 'application/json'],
  ];
  return kind === 'time'
    ? (['GET', '/v1/svc/time', headers] as const)
    : (['POST', '/v1/svc/challenge', headers, JSON.stringify(challengeEnvelope(ME.apiUser))] as const);
};

/** The journal as `GET /__sim/journal` answers it, with how long it took. */
async function journalOver(px: RunningSimulator): Promise<{ entries: JournalEntry[]; ms: number; status: number }> {
  const t = performance.now();
  const r = await fetch(`${px.url}/__sim/journal`);
  const entries = r.ok ? ((await r.json()) as JournalEntry[]) : [];
  return { entries, ms: performance.now() - t, status: r.status };
}

/** The largest entry of a journal, as JSON characters. */
const largest = (entries: JournalEntry[]) => Math.max(...entries.map((e) => JSON.stringify(e).length));

describe("an upstream's values are kept within a client's bounds", () => {
  it.each([true, false])(
    'new challenges named with ids of 900,000 characters (secret given: %s): not kept by the journal, the shadow or the doctor',
    async (withSecret) => {
      const px = await proxyTo(withSecret);
      // A short id and one of 256 characters are followed as before.
      for (const length of [36, MAX_CHALLENGE_ID_CHARS]) {
        const [method, path, headers, body] = asking(px, `id:${length}`, length, 'challenge');
        expect((await raw(px.url, method, path, headers, body)).status).toBe(202);
        expect(px.journal({ limit: 1 })[0].challengeId).toBe(filler(length, length));
      }
      const before = held();
      const codes = await flood(px.url, agent, 300, (i) => {
        const [method, path, headers, body] = asking(
          px,
          `id:${[MAX_CHALLENGE_ID_CHARS + 1, 10_000, 900_000][i % 3]}`,
          i,
          'challenge',
        );
        return [method, path, headers, body];
      });
      expect(codes).toEqual(new Map([[2025, 300]]));
      // 300 ids of up to 900,000 characters each came through: none is held (a whole one is 100 of them).
      expect(held() - before).toBeLessThan(40 * MiB);
      const { entries, status } = await journalOver(px);
      expect(status).toBe(200);
      expect(entries.slice(0, 300).every((e) => e.code === 2025 && e.challengeId === undefined)).toBe(true);
      expect(largest(entries)).toBeLessThan(64 * 1024);
      // The client's next request is answered as before.
      expect((await send(px, '/v1/svc/time', { method: 'GET', as: ME })).status).toBe(200);
    },
    60_000,
  );

  it.each([
    ['huge-key', 'service-envelope-keys', 'one extra key of 1,000,000 characters'],
    ['many-keys', 'service-envelope-keys', '20,000 extra keys'],
    ['huge-type', 'service-not-json', 'a Content-Type of 15,000 characters'],
  ])(
    '%s: the findings name it in a few hundred characters, with both answers, and the journal and reports answer whole',
    async (answer, kind) => {
      const px = await proxyTo(true);
      const before = held();
      const n = answer === 'many-keys' ? 100 : 200;
      const codes = await flood(px.url, agent, n, (i) => [...asking(px, answer, i)]);
      // flood counts an answer of another Content-Type by its HTTP status.
      expect(codes).toEqual(new Map([[answer === 'huge-type' ? 200 : 15000, n]]));
      expect(held() - before).toBeLessThan(40 * MiB);
      const found = await findingsOver(px);
      const kinds = [kind, ...(answer === 'huge-type' ? [] : ['service-differs-envelope'])];
      for (const k of kinds) {
        const f = finding(found, k);
        expect(f.count).toBe(n);
        expect(f.detail!.length).toBeLessThanOrEqual(1024);
        expect(f.detail).toMatch(/The service answered HTTP 200 15000 .*; mfa-sim would have answered HTTP 200 15000/);
      }
      const { entries, ms, status } = await journalOver(px);
      expect(status).toBe(200);
      expect(ms).toBeLessThan(5000);
      expect(largest(entries)).toBeLessThan(64 * 1024);
      const markdown = await (await fetch(`${px.url}/__sim/report`)).text();
      for (const k of kinds) expect(markdown).toContain(k);
      expect(markdown).not.toMatch(/left out/i);
    },
    60_000,
  );

  it('an extra key holding the secret across the cut: hidden in the findings and the journal, then cut', async () => {
    const px = await proxyTo(true);
    const [method, path, headers] = asking(px, 'secret-key', 1);
    expect((await raw(px.url, method, path, headers)).status).toBe(200);
    const found = await findingsOver(px);
    const detail = finding(found, 'service-envelope-keys').detail!;
    expect(detail.length).toBeLessThanOrEqual(1024);
    expect(detail).toMatch(/^extra "s{500}\[secr/);
    expect(detail).not.toContain(SECRET.slice(0, 12));
    expect(JSON.stringify((await journalOver(px)).entries)).not.toContain(SECRET.slice(0, 12));
  });

  it("a forwarded request's journal entry keeps its first 100 headers and counts the rest, as a client's does", async () => {
    const leftOut: (number | undefined)[] = [];
    for (const sim of [await proxyTo(true), await simulator({ secret: SECRET })]) {
      const many: [string, string][] = Array.from({ length: 300 }, (_, i) => [`x-extra-${i}`, 'v'.repeat(40)]);
      const [method, path, headers] = asking(sim, 'plain', 1);
      expect((await raw(sim.url, method, path, [...headers, ...many])).status).toBe(200);
      const e = sim.journal({ limit: 1 })[0];
      expect(Object.keys(e.request.headers)).toHaveLength(100);
      leftOut.push(e.request.headersLeftOut);
    }
    // The same request, forwarded and answered by a simulator: the same headers left out.
    expect(leftOut[0]).toBeGreaterThanOrEqual(200);
    expect(leftOut[0]).toBe(leftOut[1]);
  });

  it('answers a new code outside the code table each time: the coverage counts the first hundred of them', async () => {
    const px = await proxyTo(false);
    const codes = await flood(px.url, agent, 400, (i) => [...asking(px, 'new-code', i)]);
    expect([...codes.values()].reduce((a, b) => a + b)).toBe(400);
    const counts = px.coverage().counts;
    expect(Object.keys(counts)).toHaveLength(MAX_OTHER_CODES);
    expect(counts['900000']).toBe(1);
    expect(finding(await findingsOver(px), 'service-code-unknown').count).toBe(400);
  });
});
