import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failureReason, Upstream, UPSTREAM_ANSWER_LIMIT } from '../../src/proxy/upstream.js';
import { expectEnvelope, send, simulator } from '../helpers.js';
import { server } from '../proxy-support.js';

/**
 * The operator's upstream (src/proxy/upstream.ts): what it takes as a base URL and a CA file, the words for each way
 * it can fail, its bounds at their edges, its pool of connections, and closing it with a request in flight.
 */

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-upstream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 'upstream-suite-secret';
const ME = { apiUser: '123456789', secret: SECRET };

describe('the base URL and the CA file', () => {
  it('takes an http or https base URL, with a base path; names it without its trailing slash', () => {
    expect(new Upstream({ upstream: 'https://sandbox.example.com/' }).url).toBe('https://sandbox.example.com');
    expect(new Upstream({ upstream: 'http://127.0.0.1:8080/api/mfa/' }).url).toBe('http://127.0.0.1:8080/api/mfa');
    expect(new Upstream({ upstream: 'http://[::1]:9/' }).url).toBe('http://[::1]:9');
  });

  it('refuses anything else, naming the option and the reason', () => {
    const refused: [string, string][] = [
      ['sandbox.example.com', 'must be an http:// or https:// base URL'],
      ['ftp://sandbox.example.com', 'must be an http:// or https:// base URL'],
      ['https://user@sandbox.example.com', 'must not hold a user name or password'],
      ['https://:pw@sandbox.example.com', 'must not hold a user name or password'],
      ['https://sandbox.example.com/?env=1', 'must not have a query or fragment'],
      ['https://sandbox.example.com/#top', 'must not have a query or fragment'],
    ];
    for (const [url, why] of refused)
      expect(() => new Upstream({ upstream: url }), url).toThrow(`options: upstream: ${why}`);
  });

  it('a CA file: refused when missing, a folder, too large, or without a certificate', () => {
    const big = join(dir, 'big.pem');
    writeFileSync(big, Buffer.alloc(1024 * 1024 + 1, 0x41));
    const key = join(dir, 'key.pem');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    const at = (file: string) => () => new Upstream({ upstream: 'https://sandbox.example.com', upstreamCa: file });
    expect(at(join(dir, 'none.pem'))).toThrow(`options: upstreamCa: ${join(dir, 'none.pem')} cannot be read (ENOENT)`);
    expect(at(dir)).toThrow(
      `options: upstreamCa: ${dir} is not a regular file (a CA's certificates are a PEM text file)`,
    );
    expect(at(big)).toThrow(`options: upstreamCa: ${big} is larger than 1048576 bytes: not a CA certificate file`);
    expect(at(key)).toThrow(`options: upstreamCa: ${key} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  });
});

describe('the words for each failure', () => {
  const reason = (code: string, message = 'm') => failureReason(Object.assign(new Error(message), { code }));
  it('a certificate nobody vouches for, and the other failures of TLS, DNS, TCP and HTTP', () => {
    for (const code of [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'UNABLE_TO_GET_ISSUER_CERT',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'CERT_UNTRUSTED',
    ]) {
      expect(reason(code)).toBe(
        `the upstream's TLS certificate is not trusted (${code}): give its CA with --upstream-ca`,
      );
    }
    expect(reason('ERR_TLS_CERT_ALTNAME_INVALID')).toBe(
      "the upstream's TLS certificate is for another host name (ERR_TLS_CERT_ALTNAME_INVALID)",
    );
    expect(reason('CERT_HAS_EXPIRED')).toBe("the upstream's TLS certificate has expired (CERT_HAS_EXPIRED)");
    expect(reason('ECONNREFUSED')).toBe('the upstream refused the connection (ECONNREFUSED)');
    expect(reason('ENOTFOUND')).toBe("the upstream's host name does not resolve (ENOTFOUND)");
    expect(reason('EAI_AGAIN')).toBe("the upstream's host name does not resolve (EAI_AGAIN)");
    expect(reason('ECONNRESET')).toBe('the upstream closed the connection without an answer (ECONNRESET)');
    expect(reason('EPIPE')).toBe('the upstream closed the connection without an answer (EPIPE)');
    expect(reason('HPE_INVALID_CONSTANT')).toBe("the upstream's answer is not valid HTTP (HPE_INVALID_CONSTANT)");
    expect(reason('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.1:443')).toBe(
      'the upstream could not be reached: connect EHOSTUNREACH 10.0.0.1:443',
    );
    expect(failureReason(new Error('no code'))).toBe('the upstream could not be reached: no code');
  });
});

describe('the bounds at their edges, the pool, and closing', () => {
  it('an answer of exactly the limit is read; one byte more is not, declared or as it arrives', async () => {
    const sized = await server((req, res) => {
      const size = Number(new URL(req.url!, 'http://x').searchParams.get('size'));
      const body = Buffer.alloc(size, 0x20);
      if (req.url!.includes('chunked')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write(body.subarray(0, 1000));
        res.end(body.subarray(1000));
      } else {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': size });
        res.end(body);
      }
    });
    const upstream = new Upstream({ upstream: sized.url });
    afterAll(() => upstream.close());
    for (const how of ['declared', 'chunked']) {
      const at = await upstream.send({
        method: 'GET',
        target: `/x?${how}&size=${UPSTREAM_ANSWER_LIMIT}`,
        headers: [],
        body: Buffer.alloc(0),
      });
      expect(at.kind === 'answer' && at.body.length, how).toBe(UPSTREAM_ANSWER_LIMIT);
      const past = await upstream.send({
        method: 'GET',
        target: `/x?${how}&size=${UPSTREAM_ANSWER_LIMIT + 1}`,
        headers: [],
        body: Buffer.alloc(0),
      });
      expect(past, how).toEqual({
        kind: 'failure',
        reason: `the upstream's answer is larger than ${UPSTREAM_ANSWER_LIMIT} bytes`,
      });
    }
  });

  it("a body of exactly the simulator's limit is forwarded; one byte more is answered -413 here", async () => {
    const bodies: number[] = [];
    const echo = await server((_req, res, body) => {
      bodies.push(body.length);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const px = await simulator({ secret: SECRET, upstream: echo.url, bodyLimit: 100 });
    expect((await send(px, '/v1/svc/time', { as: ME, body: 'x'.repeat(100) })).status).toBe(200);
    expectEnvelope(await send(px, '/v1/svc/time', { as: ME, body: 'x'.repeat(101) }), 413, -413);
    // Sent in chunks, without a length to read first.
    expectEnvelope(
      await send(px, '/v1/svc/time', { as: ME, body: 'x'.repeat(101), headers: { 'Transfer-Encoding': 'chunked' } }),
      413,
      -413,
    );
    expect(bodies).toEqual([100]);
  });

  it('keeps a connection to the upstream open for the next request', async () => {
    let connections = 0;
    const counting = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    counting.on('connection', () => connections++);
    await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise<void>((resolve) => (counting.closeAllConnections(), counting.close(() => resolve()))));
    const px = await simulator({
      secret: SECRET,
      upstream: `http://127.0.0.1:${(counting.address() as AddressInfo).port}`,
    });
    for (let i = 0; i < 3; i++) await send(px, '/v1/svc/time', { method: 'GET', as: ME });
    expect(connections).toBe(1);
  });

  it('closing the simulator cuts a request still waiting for the upstream once the grace is over, and finds nothing', async () => {
    const silent = await server(() => undefined);
    const px = await simulator({ secret: SECRET, upstream: silent.url, upstreamTimeout: 60_000 });
    const waiting = send(px, '/v1/svc/time', { method: 'GET', as: ME }).catch(
      (e: NodeJS.ErrnoException) => e.code ?? e.message,
    );
    await expect.poll(() => silent.hits()).toBe(1);
    await px.close(300);
    expect(await waiting).toMatch(/ECONNRESET|socket hang up/);
    expect(px.findings()).toEqual([]);
  });
});
