import { marked } from 'marked';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/index.js';
import { bodyOf, expectEnvelope, raw, rawSocket, send, simulator } from '../helpers.js';
import { changedUpstream, finding, findingsOver, server } from '../proxy-support.js';
import { signedPairs } from './support.js';

/**
 * Class: proxy mode between a hostile upstream and a hostile client. The upstream answers a gigabyte, never answers,
 * answers markup, redirects elsewhere, breaks HTTP or closes mid-answer, holds its TLS certificate from a CA nobody
 * trusts: the client gets the contract's -5000 with the reason, in time, and nothing it answered is rendered or
 * kept past its bounds. The client names another host or path: only the operator's upstream is ever reached.
 */

const SECRET = 'upstream-robustness-secret';
const ME = { apiUser: '123456789', secret: SECRET };

/** A proxy to `upstream`, with a short time-out. */
const proxyTo = (upstream: string, extra: Record<string, unknown> = {}) =>
  simulator({ secret: SECRET, upstream, upstreamTimeout: 1500, ...extra });

describe('a hostile upstream', () => {
  it('answers a gigabyte, declared or streamed: -5000 at the limit, and the connection is dropped', async () => {
    let written = 0;
    let closed = 0;
    const endless = await server((req, res) => {
      res.on('close', () => closed++);
      if (req.url?.includes('declared')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 ** 3) });
      } else res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && written < 1024 ** 3 && res.write(chunk)) written += chunk.length;
        if (!res.destroyed && written < 1024 ** 3) res.once('drain', pump);
      };
      pump();
    });
    const px = await proxyTo(endless.url);
    for (const path of ['/v1/svc/time', '/v1/svc/time?declared']) {
      const e = expectEnvelope(await send(px, path, { method: 'GET', as: ME }), 500, -5000);
      expect(e.message).toBe("Internal error: the upstream's answer is larger than 1048576 bytes");
    }
    await expect.poll(() => closed).toBe(2);
    // Read up to the limit and let go: what was sent past it stayed in the socket buffers.
    expect(written).toBeLessThan(32 * 1024 * 1024);
    expect(finding(await findingsOver(px), 'service-no-answer')).toMatchObject({
      count: 2,
      detail: expect.stringMatching(
        /^the upstream's answer is larger than 1048576 bytes\. The service answered nothing; mfa-sim would have answered HTTP 200 15000/,
      ),
    });
  });

  it('never answers: -5000 at the time-out, and the connection is closed', async () => {
    let closed = false;
    // It reads what comes (a paused socket would never see the other end close), and says nothing.
    const silent = createTcpServer((socket) => socket.resume().on('close', () => (closed = true)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    afterAll(() => silent.close());
    const px = await proxyTo(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, { upstreamTimeout: 400 });
    const e = expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 500, -5000);
    expect(e.message).toBe('Internal error: the upstream did not answer within 400 ms');
    await expect.poll(() => closed).toBe(true);
  });

  it('breaks HTTP, closes mid-answer, refuses the connection: -5000 with each reason', async () => {
    const garbage = createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    const cut = createTcpServer((socket) =>
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"id":"x"'),
    );
    for (const s of [garbage, cut]) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    afterAll(() => [garbage, cut].forEach((s) => s.close()));
    const port = (s: typeof garbage) => (s.address() as AddressInfo).port;
    const refused = createTcpServer();
    await new Promise<void>((resolve) => refused.listen(0, '127.0.0.1', resolve));
    const closedPort = port(refused);
    await new Promise<void>((resolve) => refused.close(() => resolve()));
    const cases: [string, RegExp][] = [
      [
        `http://127.0.0.1:${port(garbage)}`,
        /^Internal error: the upstream's answer is not valid HTTP \(HPE_[A-Z_]+\)$/,
      ],
      [
        `http://127.0.0.1:${port(cut)}`,
        /^Internal error: the upstream closed the connection before its answer was whole$/,
      ],
      [`http://127.0.0.1:${closedPort}`, /^Internal error: the upstream refused the connection \(ECONNREFUSED\)$/],
    ];
    for (const [url, reason] of cases) {
      const px = await proxyTo(url);
      expect(
        expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 500, -5000).message,
        url,
      ).toMatch(reason);
    }
  });

  it('answers markup with script tags: returned to the client as it came, never rendered by mfa-sim', async () => {
    const page = '<html><script>alert(document.cookie)</script><img src=x onerror=alert(1)></html>';
    const hostile = await server((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(page);
    });
    const px = await proxyTo(hostile.url);
    const r = await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    expect([r.status, r.text]).toEqual([502, page]);
    const md = px.report('markdown');
    const xml = px.report('junit');
    expect(md).toContain('service-not-json');
    // The JUnit file holds it as XML text; the Markdown report, as a job summary renders it, holds no element of it.
    expect(xml).not.toMatch(/<script|<img|<html/i);
    expect(xml).toContain('&lt;script&gt;');
    const rendered = marked.parse(md, { gfm: true }) as string;
    expect(rendered).not.toMatch(/<script|<img|<html/i);
    expect(rendered).toContain('&lt;script&gt;');
    // The pages of the dashboard hold nothing of it: what they show comes as JSON and is put in as text.
    for (const path of ['/__sim/ui', '/__sim/ui/challenges', '/status'])
      expect(await (await fetch(`${px.url}${path}`)).text(), path).not.toContain('alert(');
  });

  it('an envelope with keys named after Object.prototype, and values of every kind', async () => {
    const real = await simulator({ secret: SECRET });
    const odd = await changedUpstream(
      real,
      (e) =>
        JSON.parse(
          `{"__proto__":{"polluted":1},"constructor":{"prototype":1},"toString":"x",${JSON.stringify(e).slice(1)}`,
        ) as Record<string, unknown>,
    );
    const px = await proxyTo(odd.url);
    expect((await send(px, '/v1/svc/time', { method: 'GET', as: ME })).status).toBe(200);
    expect(finding(await findingsOver(px), 'service-envelope-keys').detail).toMatch(
      /^extra "__proto__", "constructor", "toString"\./,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers JSON nested a hundred thousand levels deep: judged, kept as text, and the proxy goes on', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const nested = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        `{"id":"x","utctime":"2026-11-25T10:00:00.000Z","status":200,"code":15000,"message":${deep},"moreInfo":"https://s.example/status?code=15000"}`,
      );
    });
    const px = await proxyTo(nested.url);
    expect((await send(px, '/v1/svc/time', { method: 'GET', as: ME })).status).toBe(200);
    expect(finding(await findingsOver(px), 'service-envelope-types').detail).toMatch(
      /^message is an array, not a string\./,
    );
    expect(px.journal({ limit: 1 })[0].response!.body).toMatch(/^\{"id":"x".*\(\d+ more characters\)$/);
  });

  it("echoes the API user's secret: never shown in the journal, the findings or the reports", async () => {
    const real = await simulator({ secret: SECRET });
    const echo = await changedUpstream(real, (e) => ({ ...e, message: `your secret is ${SECRET}`, leak: SECRET }));
    const px = await proxyTo(echo.url);
    await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    const shown =
      JSON.stringify(px.journal()) +
      JSON.stringify(await findingsOver(px)) +
      px.report('markdown') +
      px.report('junit') +
      (await (await fetch(`${px.url}/__sim/journal`)).text());
    expect(shown).toContain('your secret is [secret]');
    expect(shown).not.toContain(SECRET);
  });

  it('redirects elsewhere: the redirect goes back to the client, and mfa-sim never follows it', async () => {
    const elsewhere = await server((_req, res) => res.end('{}'));
    const redirecting = await server((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/v1/svc/time` });
      res.end();
    });
    const px = await proxyTo(redirecting.url);
    const r = await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    expect(r.status).toBe(307);
    expect(r.headers.location).toBe(`${elsewhere.url}/v1/svc/time`);
    expect(elsewhere.hits()).toBe(0);
    expect(finding(await findingsOver(px), 'service-not-json').detail).toMatch(
      /^the body is not a JSON object\. The service answered HTTP 307 \(no Content-Type\) \(empty\)/,
    );
  });

  it("holds a certificate from a CA nobody trusts: refused, unless the operator gives that CA's file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-tls-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=mfa-sim test CA',
    );
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    );
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    ssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    );
    const tls = createHttpsServer(
      { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) },
      createApp({ secret: SECRET }),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    afterAll(() => tls.close());
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const untrusted = await proxyTo(url);
    const e = expectEnvelope(await send(untrusted, '/v1/svc/time', { method: 'GET', as: ME }), 500, -5000);
    expect(e.message).toBe(
      "Internal error: the upstream's TLS certificate is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE): give its CA with --upstream-ca",
    );
    const trusted = await proxyTo(url, { upstreamCa: join(dir, 'ca.pem') });
    expectEnvelope(await send(trusted, '/v1/svc/time', { method: 'GET', as: ME }), 200, 15000);
    await expect(simulator({ upstream: url, upstreamCa: join(dir, 'server.key') })).rejects.toThrow(
      /upstreamCa: .*server\.key holds no PEM certificate/,
    );
  });
});

describe('a client that tries to pick the upstream', async () => {
  const elsewhere = await server((_req, res) => res.end('{}'));
  const real = await simulator({ secret: SECRET });
  const px = await proxyTo(`${real.url}/`);

  it("by an absolute URL, a path that leaves the API, or its Host: answered here, or sent to the operator's upstream", async () => {
    const target = new URL(elsewhere.url).host;
    const before = real.journal().length;
    // Each request target exactly as written on the wire, signed headers and all: an absolute URL, a path that climbs
    // out of the API, or names a host. None is a path of the API: each is the simulator's own -404.
    const targets = [
      `http://${target}/v1/svc/time`,
      `//${target}/v1/svc/time`,
      '/v1/svc/../../admin',
      '/v1/svc/time/../../x',
      `/v1/svc/time@${target}`,
      '/v1/svc/%2e%2e/time',
      '/v1/svc/time\\..\\x',
    ];
    for (const path of targets) {
      const headers = signedPairs(real)
        .map(([n, v]) => `${n}: ${v}\r\n`)
        .join('');
      const answer = await rawSocket(
        px.url,
        `GET ${path} HTTP/1.1\r\nHost: ${target}\r\n${headers}Connection: close\r\n\r\n`,
      );
      expect(answer, path).toMatch(/^HTTP\/1\.1 404 /);
      expect(bodyOf(answer).code, path).toBe(-404);
    }
    expect(real.journal().length).toBe(before);
    // A Host naming elsewhere is not forwarded: the operator's upstream gets the request, under its own name.
    const r = await raw(px.url, 'GET', '/v1/svc/time', [
      ...signedPairs(real),
      ['Host', target],
      ['X-Forwarded-Host', target],
    ]);
    expect(r.json.code).toBe(15000);
    expect(real.journal({ limit: 1 })[0].request.headers.host).toBe(new URL(real.url).host);
    expect(elsewhere.hits()).toBe(0);
  });

  it("goes under the upstream's base path, whatever the query says", async () => {
    const seen: string[] = [];
    const based = await server((req, res) => {
      seen.push(`${req.headers.host} ${req.url}`);
      res.end();
    });
    const under = await proxyTo(`${based.url}/api/mfa`);
    await raw(under.url, 'POST', '/v1/svc/time?next=http://elsewhere.example/../..', signedPairs(real), '{}');
    expect(seen).toEqual([`${new URL(based.url).host} /api/mfa/v1/svc/time?next=http://elsewhere.example/../..`]);
  });
});
