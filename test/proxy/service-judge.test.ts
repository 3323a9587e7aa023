import { describe, expect, it } from 'vitest';
import { answerText, compareAnswers, judgeAnswer, seenAnswer } from '../../src/proxy/judge.js';
import { rawHeader, towardsClient, towardsUpstream } from '../../src/proxy/upstream.js';

/**
 * Judging an answer of the service (pure logic, called directly): against the contract (the code table, the envelope)
 * and against mfa-sim's answer to the same request. Proxy mode and the probe use these through HTTP in their suites.
 */

const JSON_TYPE = 'application/json; charset=utf-8';
const envelope = (over: Record<string, unknown> = {}, style: 'utctime' | 'utcTime' = 'utctime') =>
  JSON.stringify({
    id: 'r-1',
    [style]: '2026-11-25T10:00:00.123Z',
    status: 400,
    code: -4037,
    message: 'Signature error',
    moreInfo: 'https://service.example/status?code=-4037',
    ...over,
  });
/** An answer; `null` for one without a Content-Type. */
const answer = (body: string, status = 400, contentType: string | null = JSON_TYPE) =>
  seenAnswer(status, contentType ?? undefined, body);
const kinds = (
  a: ReturnType<typeof answer>,
  style: 'document' | 'sdk' = 'document',
  op?: Parameters<typeof judgeAnswer>[2],
) => judgeAnswer(a, style, op).problems.map((p) => `${p.kind}: ${p.what}`);

describe('an answer judged against the contract', () => {
  it('finds nothing in an envelope as the document writes it, and reads its code', () => {
    const judged = judgeAnswer(answer(envelope()), 'document');
    expect(judged).toMatchObject({ code: -4037, problems: [] });
    expect(judged.envelope?.message).toBe('Signature error');
    expect(kinds(answer(envelope({}, 'utcTime')), 'sdk')).toEqual([]);
  });

  it('a body that is no JSON object, or JSON under another type', () => {
    for (const body of ['<html>502</html>', '', 'null', '[1]', '"text"', '{"a":'])
      expect(kinds(answer(body, 502, 'text/html'))).toEqual(['service-not-json: the body is not a JSON object']);
    expect(kinds(answer(envelope(), 400, 'text/plain'))).toEqual([
      'service-not-json: the body is JSON but its Content-Type is "text/plain"',
    ]);
    expect(kinds(answer(envelope(), 400, null))).toEqual([
      'service-not-json: the body is JSON but its Content-Type is "(none)"',
    ]);
    expect(kinds(answer(envelope(), 400, 'Application/JSON'))).toEqual([]);
  });

  it('keys missing or extra, for the response style in force', () => {
    expect(kinds(answer(envelope({}, 'utcTime')))).toEqual(['service-envelope-keys: missing utctime; extra "utcTime"']);
    expect(kinds(answer(envelope({ debug: 1, 'more info': 'x' })))).toEqual([
      'service-envelope-keys: extra "debug", "more info"',
    ]);
    const { moreInfo: _m, id: _i, ...rest } = JSON.parse(envelope()) as Record<string, unknown>;
    expect(kinds(answer(JSON.stringify(rest)))).toEqual(['service-envelope-keys: missing id, moreInfo']);
  });

  it('values of the wrong kind', () => {
    expect(kinds(answer(envelope({ id: 7, status: '400', message: null, moreInfo: [] })))).toEqual([
      'service-envelope-types: id is an integer, not a string; status is a string, not an integer; message is null, not a string; moreInfo is an array, not a string',
    ]);
    expect(kinds(answer(envelope({ code: -4037.5 })))).toEqual([
      'service-envelope-types: code is a fraction, not an integer',
    ]);
    expect(kinds(answer(envelope({ utctime: true })))).toEqual([
      'service-envelope-types: utctime is a boolean, not a string',
    ]);
  });

  it('a utctime that is not ISO 8601 UTC with fractional seconds and Z', () => {
    for (const t of [
      '2026-11-25T10:00:00Z',
      '2026-11-25T10:00:00.123+01:00',
      '1795600800123',
      '2026-13-45T10:00:00.123Z',
      ' 2026-11-25T10:00:00.123Z',
    ]) {
      expect(kinds(answer(envelope({ utctime: t }))), t).toEqual([
        `service-utctime-format: utctime is ${JSON.stringify(t)}, not ISO 8601 UTC with fractional seconds and Z`,
      ]);
    }
    expect(kinds(answer(envelope({ utctime: '2026-11-25T10:00:00.1Z' })))).toEqual([]);
  });

  it('status and code as a pair of the code table; a code outside it, or outside its operations', () => {
    expect(kinds(answer(envelope(), 200))).toEqual([
      'service-status-mismatch: code -4037 is HTTP 400 in the code table, and came with HTTP 200',
      "service-status-mismatch: the envelope's status 400 differs from the HTTP status 200",
    ]);
    expect(kinds(answer(envelope({ status: 401 })))).toEqual([
      "service-status-mismatch: the envelope's status 401 differs from the HTTP status 400",
    ]);
    expect(kinds(answer(envelope({ code: -4038, moreInfo: 'https://s.example/status?code=-4038' })))).toEqual([
      'service-code-unknown: code -4038 is not in the code table',
    ]);
    expect(
      kinds(answer(envelope({ code: -2006, moreInfo: 'https://s.example/status?code=-2006' })), 'document', 'time'),
    ).toEqual(['service-code-scope: code -2006 is not an answer to time in the code table']);
    expect(
      kinds(
        answer(envelope({ code: -2006, moreInfo: 'https://s.example/status?code=-2006' })),
        'document',
        'challenge',
      ),
    ).toEqual([]);
    expect(
      kinds(answer(envelope({ code: -2006, moreInfo: 'https://s.example/status?code=-2006' })), 'document'),
    ).toEqual([]);
  });

  it('a moreInfo that is no http(s) link with the code', () => {
    for (const m of [
      '/status?code=-4037',
      'javascript:alert(1)//?code=-4037',
      'https://s.example/status?code=-4036',
      'https://s.example/status',
      'ftp://s.example/?code=-4037',
    ]) {
      expect(kinds(answer(envelope({ moreInfo: m }))), m).toEqual([
        `service-more-info: moreInfo ${JSON.stringify(m)} is not an http(s) URL with code=-4037`,
      ]);
    }
    expect(kinds(answer(envelope({ moreInfo: 'http://s.example/x?a=1&code=-4037' })))).toEqual([]);
  });
});

describe("an answer compared with mfa-sim's", () => {
  const mine = answer(envelope({ message: 'Signature error. Hint: signed with HMAC-SHA256: sign with HMAC-SHA512' }));

  it('agrees: the same status, code and shape; an error sentence with the same meaning first', () => {
    expect(compareAnswers(answer(envelope()), mine)).toEqual([]);
    expect(compareAnswers(answer(envelope({ id: 'other', utctime: '2027-01-01T00:00:00.000Z' })), mine)).toEqual([]);
  });

  it('another status or code', () => {
    expect(compareAnswers(answer(envelope(), 500), mine)).toEqual([
      { kind: 'service-differs-status', what: 'HTTP 500 -4037 where mfa-sim answers HTTP 400 -4037' },
    ]);
    expect(compareAnswers(answer(envelope({ code: -4036 })), mine)).toEqual([
      { kind: 'service-differs-status', what: 'HTTP 400 -4036 where mfa-sim answers HTTP 400 -4037' },
    ]);
    expect(compareAnswers(answer('<html/>', 400, 'text/html'), mine)).toEqual([
      { kind: 'service-differs-status', what: 'HTTP 400 (no code) where mfa-sim answers HTTP 400 -4037' },
    ]);
  });

  it('another shape: keys or the kinds of values', () => {
    expect(compareAnswers(answer(envelope({ extra: 1 })), mine)).toEqual([
      { kind: 'service-differs-envelope', what: 'extra "extra"' },
    ]);
    expect(compareAnswers(answer(envelope({ id: 1, moreInfo: undefined })), mine)).toEqual([
      { kind: 'service-differs-envelope', what: "missing moreInfo; id is an integer where mfa-sim's is a string" },
    ]);
  });

  it('another message: an error sentence that does not begin with the meaning, JSON text with other keys', () => {
    expect(compareAnswers(answer(envelope({ message: 'Bad signature' })), mine)).toEqual([
      { kind: 'service-differs-message', what: "the message differs from mfa-sim's" },
    ]);
    expect(compareAnswers(answer(envelope({ message: 7 })), mine)).toEqual([
      { kind: 'service-differs-envelope', what: "message is an integer where mfa-sim's is a string" },
      { kind: 'service-differs-message', what: "the message differs from mfa-sim's" },
    ]);
    const json = (message: unknown) =>
      answer(
        envelope({
          status: 202,
          code: 2025,
          moreInfo: 'https://s.example/status?code=2025',
          message: JSON.stringify(message),
        }),
        202,
      );
    const created = json({ challengeId: 'a', challengeQRcodeUrl: 'https://s/a' });
    expect(compareAnswers(json({ challengeId: 'b', challengeQRcodeUrl: 'https://t/b' }), created)).toEqual([]);
    expect(compareAnswers(json({ challengeId: 'b' }), created)).toEqual([
      { kind: 'service-differs-message', what: "the message differs from mfa-sim's" },
    ]);
    expect(compareAnswers(json({ challengeId: 1, challengeQRcodeUrl: 'x' }), created)).toEqual([
      { kind: 'service-differs-message', what: "the message differs from mfa-sim's" },
    ]);
    expect(compareAnswers(answer(envelope({ status: 202, code: 2025, message: 'created' }), 202), created)).toEqual([
      { kind: 'service-differs-message', what: "the message differs from mfa-sim's" },
    ]);
    // A code whose meaning mfa-sim words as the service does, exactly.
    expect(
      compareAnswers(
        answer(envelope({ message: 'Signature error' })),
        answer(envelope({ message: 'Signature error' })),
      ),
    ).toEqual([]);
  });
});

describe('two answers that are not both envelopes', () => {
  const page = answer('<html>502</html>', 502, 'text/html');
  it('two pages of one status agree; a page where the other has an envelope without a code is an envelope difference', () => {
    expect(compareAnswers(page, page)).toEqual([]);
    expect(compareAnswers(answer('{"error":"bad gateway"}', 502), page)).toEqual([
      { kind: 'service-differs-envelope', what: 'mfa-sim answers no JSON envelope' },
    ]);
    expect(compareAnswers(page, answer('{"error":"bad gateway"}', 502))).toEqual([
      { kind: 'service-differs-envelope', what: 'the body is not a JSON envelope' },
    ]);
  });

  it('messages of another kind than text: equal values agree, others differ', () => {
    expect(compareAnswers(answer(envelope({ message: 7 })), answer(envelope({ message: 7 })))).toEqual([]);
    expect(
      compareAnswers(answer(envelope({ message: null })), answer(envelope({ message: 'Signature error' }))),
    ).toEqual([
      { kind: 'service-differs-envelope', what: "message is null where mfa-sim's is a string" },
      { kind: 'service-differs-message', what: "the message differs from mfa-sim's" },
    ]);
    // A code the table does not hold has no meaning to begin a sentence with: only equal text agrees.
    const odd = (message: string) => answer(envelope({ code: 15001, message }), 400);
    expect(compareAnswers(odd('a'), odd('a'))).toEqual([]);
    expect(compareAnswers(odd('a'), odd('a.'))).toEqual([
      { kind: 'service-differs-message', what: "the message differs from mfa-sim's" },
    ]);
    // Both must begin with the meaning.
    expect(
      compareAnswers(answer(envelope({ message: 'Signature error' })), answer(envelope({ message: 'Bad signature' }))),
    ).toEqual([{ kind: 'service-differs-message', what: "the message differs from mfa-sim's" }]);
  });
});

describe('an answer in a few words', () => {
  it('its status, code and message, or its type and the start of its body, quoted', () => {
    expect(answerText(answer(envelope()))).toBe('HTTP 400 -4037 "Signature error"');
    expect(answerText(answer(envelope({ message: 'x'.repeat(200) })), 10)).toBe(`HTTP 400 -4037 "${'x'.repeat(10)}…"`);
    expect(answerText(answer('<h1>Bad\ngateway</h1>', 502, 'text/html'))).toBe(
      'HTTP 502 text/html "<h1>Bad\\ngateway</h1>"',
    );
    expect(answerText(answer('', 204, null))).toBe('HTTP 204 (no Content-Type) (empty)');
    expect(answerText(answer('x', 200, 'text/\u009b2Jplain'))).toBe('HTTP 200 text/?2Jplain "x"');
    expect(answerText(answer(envelope({ message: 3 })))).toBe('HTTP 400 -4037');
    expect(answerText(answer(envelope({ code: '-4037' })))).toBe('HTTP 400 -4037 "Signature error"');
    expect(answerText(answer('{"message":"no code"}', 400, 'application/json'))).toBe(
      'HTTP 400 application/json "{\\"message\\":\\"no code\\"}"',
    );
    expect(answerText(answer('x', 200, `text/${'p'.repeat(100)}`))).toBe(`HTTP 200 text/${'p'.repeat(55)} "x"`);
    expect(answerText(answer(envelope({ message: 'abcde' })), 5)).toBe('HTTP 400 -4037 "abcde"');
    expect(answerText(answer(envelope({ message: 'abcdef' })), 5)).toBe('HTTP 400 -4037 "abcde…"');
  });
});

describe('the headers that cross the proxy', () => {
  const raw = [
    'Host',
    'client.example',
    'Connection',
    'keep-alive, X-Hop',
    'X-Hop',
    '1',
    'Keep-Alive',
    'timeout=5',
    'Proxy-Connection',
    'x',
    'Transfer-Encoding',
    'chunked',
    'TE',
    'trailers',
    'Trailer',
    'X-T',
    'Upgrade',
    'h2c',
    'Proxy-Authenticate',
    'Basic',
    'Proxy-Authorization',
    'Basic eA==',
    'Content-Length',
    '9',
    'Accept-Encoding',
    'gzip',
    'Expect',
    '100-continue',
    'X-Svc-Cnonce',
    'n-1',
    'x-trace',
    'a',
    'X-Trace',
    'b',
    'Content-Type',
    'application/json',
  ];

  it("towards the upstream: the client's own, in order and spelling, but those of the connection and those the proxy sets", () => {
    expect(towardsUpstream(raw)).toEqual([
      'X-Svc-Cnonce',
      'n-1',
      'x-trace',
      'a',
      'X-Trace',
      'b',
      'Content-Type',
      'application/json',
    ]);
  });

  it("towards the client: the upstream's own, Host and encodings included, but those of the connection and Content-Length", () => {
    expect(towardsClient(raw)).toEqual([
      'Host',
      'client.example',
      'Accept-Encoding',
      'gzip',
      'Expect',
      '100-continue',
      'X-Svc-Cnonce',
      'n-1',
      'x-trace',
      'a',
      'X-Trace',
      'b',
      'Content-Type',
      'application/json',
    ]);
    expect(towardsClient(['Set-Cookie', 'a=1', 'set-cookie', 'b=2'])).toEqual([
      'Set-Cookie',
      'a=1',
      'set-cookie',
      'b=2',
    ]);
  });

  it('a header read from raw pairs: the first of its name, whatever its case', () => {
    expect(rawHeader(raw, 'x-trace')).toBe('a');
    expect(rawHeader(raw, 'content-type')).toBe('application/json');
    expect(rawHeader(raw, 'x-none')).toBeUndefined();
    expect(rawHeader(['X-Odd'], 'x-odd')).toBeUndefined();
  });
});
