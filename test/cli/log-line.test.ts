import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizationValue, stringToSign } from '../../src/auth/signature.js';
import { formatLine, loggable, MAX_LOGGED_VALUE } from '../../src/cli/log.js';
import { expectEnvelope, send, simulator } from '../helpers.js';

describe('a value in a log line is one line, short', () => {
  it('leaves a short value of one line as it is', () => {
    for (const v of ['', '/v1/svc/time', '{"utc-time":"1795000000"}', 'x'.repeat(MAX_LOGGED_VALUE), 'data', 'data :x'])
      expect(loggable(v)).toBe(v);
  });

  it('puts each run of line breaks as one space, wherever it is', () => {
    expect(loggable('a\nb')).toBe('a b');
    expect(loggable('a\r\n\r\nb')).toBe('a b');
    expect(loggable('\rabc')).toBe(' abc');
    expect(loggable('abc\n')).toBe('abc ');
  });

  it('shows a data URL as its kind and size', () => {
    const url = `data:image/png;base64,${'A'.repeat(400)}==`;
    expect(loggable(`{"challengeQRcode":"${url}"}`)).toBe(
      `{"challengeQRcode":"data:image/png;base64,… (${url.length} characters)"}`,
    );
    // Short enough to fit, it is still shown by kind and size.
    expect(loggable('data:text/plain;base64,QUJD')).toBe('data:text/plain;base64,… (27 characters)');
  });

  it('cuts a value longer than the limit, with its size; exactly the limit is kept', () => {
    expect(loggable('y'.repeat(MAX_LOGGED_VALUE + 1))).toBe(
      `${'y'.repeat(MAX_LOGGED_VALUE)}… (${MAX_LOGGED_VALUE + 1} characters)`,
    );
    expect(loggable('z'.repeat(MAX_LOGGED_VALUE + 1), 10)).toBe(
      `${'z'.repeat(10)}… (${MAX_LOGGED_VALUE + 1} characters)`,
    );
    expect(loggable('ab\ncd', 3)).toBe('ab … (5 characters)');
  });
});

describe('the request log line of a real request', async () => {
  const sim = await simulator({ secret: 'log-line-secret' });
  const who = { apiUser: sim.apiUser.id, secret: 'log-line-secret' };

  it('a new challenge with its QR image: one line, the image by its size', async () => {
    const body = {
      id: 'l1',
      utctime: '1',
      apiUser: who.apiUser,
      type: 150,
      body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: true },
    };
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: who, body }), 202, 2025);
    const line = formatLine(sim.journal({ limit: 1 })[0]);
    expect(line).not.toMatch(/[\r\n]/);
    // The image became its kind and size, and the message, still longer than a value may be, was cut after that.
    expect(line).toMatch(
      / POST \/v1\/svc\/challenge \d{9} -> 202 2025 \{"challengeId":"[^"]+","challengeQRcodeUrl":"[^"]+","challengeQRcode"… \((\d+) characters\) \(\d+(\.\d+)? ms\)$/,
    );
    expect(Number(/… \((\d+) characters\)/.exec(line)![1])).toBeLessThan(300);
  });

  it('a path with a line break in it stays on its line', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time%0Aforged', { as: who }), 404, -404);
    const line = formatLine(sim.journal({ limit: 1 })[0]);
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toContain('/v1/svc/time%0Aforged');
  });
});

describe('what a log line tells a client author', async () => {
  const who = { apiUser: '123456789', secret: 'log-line-doctor-secret' };
  const verify = await simulator({
    name: 'verify',
    apiUsers: [{ id: who.apiUser, secret: who.secret }],
    rules: [{ name: 'lock-it', when: { endpoint: 'blocked' }, respond: { code: -1003 } }],
  });
  const logged = await simulator({ name: 'logged', auth: 'log', apiUsers: [{ id: who.apiUser, secret: who.secret }] });
  const last = (sim: typeof verify) => formatLine(sim.journal({ limit: 1 })[0]);

  it('a bad signature: the message once, then the hint, then the exact string to sign (never the secret)', async () => {
    // Signed with a line break after the nonce: a mistake the doctor names.
    const time = String(Date.now());
    const nonce = randomUUID();
    const signature = createHmac('sha512', who.secret)
      .update(`${stringToSign(time, nonce)}\n`)
      .digest('hex');
    const headers = {
      Authorization: authorizationValue(who.apiUser, signature),
      'x-svc-apiuser': who.apiUser,
      'x-svc-utctime': time,
      'x-svc-cnonce': nonce,
    };
    expectEnvelope(await send(verify, '/v1/svc/time', { as: false, headers }), 400, -4037);
    const line = last(verify);
    expect(line).toMatch(
      / POST \/v1\/svc\/time 123456789 -> 400 -4037 Signature error \(\d+(\.\d+)? ms\); hint: the string signed ends with a line break/,
    );
    // The answer's message carries the hint; the line shows it once, after the outcome.
    expect(line.split('line break').length).toBe(2);
    expect(line).toContain(
      `; expected HMAC-SHA512 over "x-svc-utctime: ${time}\\nx-svc-cnonce: ${nonce}" with API user 123456789's secret, as 128 hexadecimal characters`,
    );
    expect(line).not.toContain(who.secret);
  });

  it('a bad signature with no known mistake: the string to sign once, without a hint that only repeats it', async () => {
    expectEnvelope(
      await send(verify, '/v1/svc/time', { as: { apiUser: who.apiUser, secret: 'not-the-secret' } }),
      400,
      -4037,
    );
    const line = last(verify);
    expect(line).toMatch(
      / -> 400 -4037 Signature error \(\d+(\.\d+)? ms\); expected HMAC-SHA512 over "x-svc-utctime: \d+\\nx-svc-cnonce: [0-9a-f-]{36}" with API user 123456789's secret, as 128 hexadecimal characters$/,
    );
  });

  it('a rule that decided is named in brackets', async () => {
    const body = {
      id: 'r1',
      utctime: '1',
      apiUser: who.apiUser,
      type: 950,
      body: { svcUser: 'user@example.com', ipAddress: '127.0.0.1' },
    };
    expectEnvelope(await send(verify, '/v1/svc/blocked', { as: who, body }), 400, -1003);
    expect(last(verify)).toMatch(/ -> 400 -1003 .* \[lock-it\] \(\d+(\.\d+)? ms\)$/);
  });

  it('auth: log names each check that would have failed, with its hint', async () => {
    expectEnvelope(
      await send(logged, '/v1/svc/time', { as: { apiUser: who.apiUser, secret: 'not-the-secret' } }),
      200,
      15000,
    );
    const line = last(logged);
    expect(line).toMatch(
      / -> 200 15000 \{"utc-time":"\d+"\} \(\d+(\.\d+)? ms\); expected HMAC-SHA512 over "[^"]+" with API user 123456789's secret, as 128 hexadecimal characters; auth: log, would fail: -4037 \(Signature error; hint: no common mistake matches; sign exactly .+\)$/,
    );
  });

  /** A journal entry made by hand, for what no real request gives. */
  const entry = {
    seq: 1,
    at: '2026-01-02T03:04:05.678Z',
    method: 'POST',
    path: '/v1/svc/time',
    scenario: 's',
    latencyMs: 1.5,
    request: { headers: {}, body: '' },
  };

  it('a fault instead of an answer, and an internal error, each say so', () => {
    const base = entry;
    expect(formatLine({ ...base, fault: 'reset', rule: 'drop' })).toBe(
      '03:04:05.678 POST /v1/svc/time -> fault reset [drop] (1.5 ms)',
    );
    expect(
      formatLine({ ...base, http: 500, code: -5000, message: 'Internal error', internalError: 'boom\nat line 2' }),
    ).toBe('03:04:05.678 POST /v1/svc/time -> 500 -5000 Internal error (1.5 ms); internal error: boom at line 2');
  });

  it('the hint is taken off the message only where the answer put it, after ". Hint: "', () => {
    const base = {
      ...entry,
      http: 401,
      code: -4034,
      hint: { id: 'x', text: 'sign a new nonce' },
    };
    expect(formatLine({ ...base, message: 'Nonce reused. Hint: sign a new nonce' })).toBe(
      '03:04:05.678 POST /v1/svc/time -> 401 -4034 Nonce reused (1.5 ms); hint: sign a new nonce',
    );
    // A message a rule forces may end with the same words: it is the test author's, shown whole.
    expect(formatLine({ ...base, message: 'Forced: sign a new nonce' })).toBe(
      '03:04:05.678 POST /v1/svc/time -> 401 -4034 Forced: sign a new nonce (1.5 ms); hint: sign a new nonce',
    );
  });
});
