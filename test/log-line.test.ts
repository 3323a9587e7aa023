import { describe, expect, it } from 'vitest';
import { formatLine, loggable, MAX_LOGGED_VALUE } from '../src/observers/log.js';
import { expectEnvelope, send, simulator } from './helpers.js';

describe('a value in a log line is one line, short', () => {
  it('leaves a short value of one line as it is', () => {
    for (const v of ['', '/v1/svc/time', '{"utc-time":"1795000000"}', 'x'.repeat(MAX_LOGGED_VALUE), 'data', 'data :x']) expect(loggable(v)).toBe(v);
  });

  it('puts each run of line breaks as one space, wherever it is', () => {
    expect(loggable('a\nb')).toBe('a b');
    expect(loggable('a\r\n\r\nb')).toBe('a b');
    expect(loggable('\rabc')).toBe(' abc');
    expect(loggable('abc\n')).toBe('abc ');
  });

  it('shows a data URL as its kind and size', () => {
    const url = `data:image/png;base64,${'A'.repeat(400)}==`;
    expect(loggable(`{"challengeQRcode":"${url}"}`)).toBe(`{"challengeQRcode":"data:image/png;base64,… (${url.length} characters)"}`);
    // Short enough to fit, it is still shown by kind and size.
    expect(loggable('data:text/plain;base64,QUJD')).toBe('data:text/plain;base64,… (27 characters)');
  });

  it('cuts a value longer than the limit, with its size; exactly the limit is kept', () => {
    expect(loggable('y'.repeat(MAX_LOGGED_VALUE + 1))).toBe(`${'y'.repeat(MAX_LOGGED_VALUE)}… (${MAX_LOGGED_VALUE + 1} characters)`);
    expect(loggable('z'.repeat(MAX_LOGGED_VALUE + 1), 10)).toBe(`${'z'.repeat(10)}… (${MAX_LOGGED_VALUE + 1} characters)`);
    expect(loggable('ab\ncd', 3)).toBe('ab … (5 characters)');
  });
});

describe('the request log line of a real request', async () => {
  const sim = await simulator({ secret: 'log-line-secret' });
  const who = { apiUser: sim.apiUser.id, secret: 'log-line-secret' };

  it('a new challenge with its QR image: one line, the image by its size', async () => {
    const body = { id: 'l1', utctime: '1', apiUser: who.apiUser, type: 150, body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: true } };
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: who, body }), 202, 2025);
    const line = formatLine(sim.journal({ limit: 1 })[0]);
    expect(line).not.toMatch(/[\r\n]/);
    // The image became its kind and size, and the message, still longer than a value may be, was cut after that.
    expect(line).toMatch(/ POST \/v1\/svc\/challenge \d{9} -> 202 2025 \{"challengeId":"[^"]+","challengeQRcodeUrl":"[^"]+","challengeQRcode"… \((\d+) characters\) \(\d+(\.\d+)? ms\)$/);
    expect(Number(/… \((\d+) characters\)/.exec(line)![1])).toBeLessThan(300);
  });

  it('a path with a line break in it stays on its line', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time%0Aforged', { as: who }), 404, -404);
    const line = formatLine(sim.journal({ limit: 1 })[0]);
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toContain('/v1/svc/time%0Aforged');
  });
});
