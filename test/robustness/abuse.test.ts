import { describe, expect, it } from 'vitest';
import { bodyOf, challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';
import { exchange, expectStillServes, idleConnection, signedPairs } from './support.js';
import { MAX_MESSAGE_CHARS } from '../../src/contract/response.js';

/**
 * Raw-socket abuse: what a broken client, a scanner or a slow network does to the server. Each case gets a
 * bounded, documented answer (README "Robustness"), and the server answers a normal request after it.
 * Timeouts are set short here (1 s for headers, 2 s in all) so that slow clients are cut off quickly.
 */
describe('raw-socket abuse', async () => {
  const sim = await simulator({ headersTimeout: 1000, requestTimeout: 2000 });
  const signed = () =>
    signedPairs(sim)
      .map(([n, v]) => `${n}: ${v}\r\n`)
      .join('');

  /** The status line and envelope of a raw answer. */
  const answered = (text: string) => ({ status: Number(text.split(' ')[1]), body: bodyOf(text) });

  it.each([
    ['bytes that are not HTTP', '\u0000\u0001\u0002garbage\r\n\r\n'],
    ['an unknown HTTP version', 'GET /v1/svc/time HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['a NUL byte in a header value', 'GET /v1/svc/time HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n'],
    ['a header line without a colon', 'GET /v1/svc/time HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n'],
    [
      'two different Content-Length values',
      'POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    ],
    [
      'Content-Length with Transfer-Encoding (request smuggling)',
      'POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'a chunk size that is not hexadecimal',
      'POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n',
    ],
    ['a negative Content-Length', 'POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n'],
  ])('malformed HTTP (%s): -400, and the connection is closed', async (_what, bytes) => {
    const r = await exchange(sim.url, bytes);
    expect(r.closed).toBe(true);
    expect(answered(r.text)).toMatchObject({ status: 400, body: { status: 400, code: -400 } });
    await expectStillServes(sim);
  });

  it('a header block over the limit (16 KiB): -431, and the connection is closed', async () => {
    for (const bytes of [
      `GET /v1/svc/time HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]) {
      const r = await exchange(sim.url, bytes);
      expect(r.closed).toBe(true);
      expect(answered(r.text)).toMatchObject({ status: 431, body: { code: -431 } });
    }
    await expectStillServes(sim);
  });

  it('a body over the limit (64 KiB): -413 without reading it, and the connection is closed', async () => {
    // A client that declares 100 MB and starts sending: answered at once from the declared length.
    const declared = await exchange(
      sim.url,
      `POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\n${signed()}Content-Length: 100000000\r\n\r\n${'a'.repeat(200_000)}`,
    );
    expect(declared.closed).toBe(true);
    expect(answered(declared.text)).toMatchObject({ status: 413, body: { code: -413 } });
    // A chunked body gets the same once the bytes received pass the limit.
    const chunk = 'a'.repeat(16_000);
    const chunked = await exchange(
      sim.url,
      `POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\n${signed()}Transfer-Encoding: chunked\r\n\r\n${`3e80\r\n${chunk}\r\n`.repeat(6)}`,
    );
    expect(chunked.closed).toBe(true);
    expect(answered(chunked.text)).toMatchObject({ status: 413, body: { code: -413 } });
    await expectStillServes(sim);
  });

  it('the control API: a body declared past its limit is refused at once (413 JSON), unread, and the connection closed', async () => {
    for (const [path, limit] of [
      ['/__sim/scenario', 1024 * 1024],
      ['/__sim/explore', 16 * 1024],
      ['/__sim/clock/freeze', 16 * 1024],
    ] as const) {
      // Declared, and nothing sent: the parser would have waited for the body until the request timed out.
      const declared = await exchange(
        sim.url,
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${limit + 1}\r\n\r\n`,
        { timeoutMs: 3000 },
      );
      expect(declared.closed, path).toBe(true);
      expect({ status: Number(declared.text.split(' ')[1]), body: bodyOf(declared.text) }, path).toEqual({
        status: 413,
        body: { error: `the body is larger than ${limit} bytes` },
      });
    }
    await expectStillServes(sim);
  });

  it('a client that sends its headers a byte at a time is cut off at the headers timeout: -408, closed', async () => {
    const r = await exchange(sim.url, `GET /v1/svc/time HTTP/1.1\r\nHost: x\r\n${signed()}\r\n`, {
      dripMs: 250,
      timeoutMs: 15_000,
    });
    expect(r.closed).toBe(true);
    expect(answered(r.text)).toMatchObject({ status: 408, body: { code: -408 } });
    await expectStillServes(sim);
  });

  it('a client that sends its body a byte at a time is cut off at the request timeout: -408, closed', async () => {
    const body = JSON.stringify(challengeEnvelope(sim.apiUser.id));
    const head = `POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\n${signed()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // The headers arrive at once; the body drips.
    const dripping = await exchange(sim.url, head + body, { atOnce: head.length, dripMs: 250, timeoutMs: 15_000 });
    expect(dripping.closed).toBe(true);
    expect(answered(dripping.text)).toMatchObject({ status: 408, body: { code: -408 } });
    await expectStillServes(sim);
  });

  it('a connection closed in the middle of the body: no answer, nothing journaled, the server goes on', async () => {
    const before = sim.simulator.requestJournal.length;
    const body = JSON.stringify(challengeEnvelope(sim.apiUser.id));
    const r = await exchange(
      sim.url,
      `POST /v1/svc/challenge HTTP/1.1\r\nHost: x\r\n${signed()}Content-Length: ${body.length}\r\n\r\n${body}`,
      {
        abortAfter: 300,
      },
    );
    expect(r.text).toBe('');
    expect(sim.simulator.requestJournal.length).toBe(before);
    await expectStillServes(sim);
  });

  it('many idle connections: normal requests are still answered, and each idle one is closed at the headers timeout with -408', async () => {
    const idle = await Promise.all(Array.from({ length: 300 }, () => idleConnection(sim.url)));
    const outcomes = idle.map(
      (s) =>
        new Promise<string>((resolve) => {
          let text = '';
          s.on('data', (d: Buffer) => (text += d.toString('utf8')));
          s.on('close', () => resolve(text));
        }),
    );
    await expectStillServes(sim);
    expectEnvelope(await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) }), 202, 2025);
    const texts = await Promise.all(outcomes);
    expect(texts.every((t) => t.startsWith('HTTP/1.1 408 ') && bodyOf(t).code === -408)).toBe(true);
    await expectStillServes(sim);
  });
});

describe('requests Node would answer outside the envelope', async () => {
  const sim = await simulator();

  it('an HTTP/1.1 request without Host is judged like any other (here -4000), not a bare 400', async () => {
    const r = await exchange(sim.url, 'GET /v1/svc/time HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(r.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(r.text)).toMatchObject({ code: -4000, status: 400 });
  });

  it('CONNECT gets -405 and the connection is closed (Node would drop it unanswered)', async () => {
    const r = await exchange(sim.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(r.closed).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 405 /);
    expect(bodyOf(r.text)).toMatchObject({ code: -405, status: 405 });
  });

  it('an Expect other than 100-continue is ignored and the request judged (Node would answer a bare 417)', async () => {
    const r = await exchange(
      sim.url,
      'GET /v1/svc/time HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n',
    );
    expect(bodyOf(r.text)).toMatchObject({ code: -4000 });
  });

  it('a path whose percent-encoding does not decode: -404 on a page, 400 JSON on the control API, never 500', async () => {
    // Addressed to this machine: the phone pages answer no other name.
    const page = await exchange(
      sim.url,
      'GET /phone/%E0%A4%A HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(page.text).toMatch(/^HTTP\/1\.1 404 /);
    expect(bodyOf(page.text)).toMatchObject({ code: -404 });
    const control = await fetch(`${sim.url}/__sim/challenges/%E0%A4%A/approve`, { method: 'POST' });
    expect(control.status).toBe(400);
    expect(await control.json()).toHaveProperty('error');
  });

  it('a control API body in a charset it cannot read: 415 JSON, not 500', async () => {
    const r = await fetch(`${sim.url}/__sim/scenario`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=klingon' },
      body: '{"name":"default"}',
    });
    expect(r.status).toBe(415);
    expect(await r.json()).toHaveProperty('error');
  });

  it('a `type` nested thousands deep is -5072 (its message names its kind), not an internal error', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const r = await send(sim, '/v1/svc/challenge', {
      body: `{"apiUser":"${sim.apiUser.id}","body":{},"type":${deep}}`,
    });
    expect(expectEnvelope(r, 400, -5072).message).toContain('type an array is not');
  });

  it('a field holding an object whose toString is not a function is -5075, not an internal error', async () => {
    const body = `{"apiUser":"${sim.apiUser.id}","type":150,"body":{"svcUser":"user@example.com","challengeType":{"toString":"x","valueOf":{}}}}`;
    expect(expectEnvelope(await send(sim, '/v1/svc/challenge', { body }), 400, -5075).message).toContain(
      '`challengeType` is not a string',
    );
  });

  it(`a message is cut to ${MAX_MESSAGE_CHARS} characters, whatever the caller sent`, async () => {
    const r = await send(sim, '/v1/svc/challenge', {
      body: challengeEnvelope(sim.apiUser.id, { challengeExpiry: 'x'.repeat(50_000) }),
    });
    const e = expectEnvelope(r, 400, -5075);
    expect(e.message.length).toBe(MAX_MESSAGE_CHARS + 1);
    expect(e.message).toMatch(/x…$/);
    const path = `/v1/svc/${'y'.repeat(10_000)}`;
    expect(expectEnvelope(await send(sim, path, { body: {} }), 404, -404).message.length).toBe(MAX_MESSAGE_CHARS + 1);
  });
});
