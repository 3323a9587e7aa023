import { describe, expect, it } from 'vitest';
import { stringToSign } from '../../src/auth/signature.js';
import { JOURNAL_BODY_CHARS } from '../../src/run/journal.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * The journal entry of a request, field by field (src/request/context.ts builds it; docs/control-api.md shows it): what
 * a test reads back to know what the client sent and what it was answered.
 */

const SECRET = 'journal-record-secret';
/** A message that makes the envelope longer than the journal keeps, with the secret written across every place. */
const LONG_MESSAGE = SECRET.repeat(1000);

describe('a journal entry says what was sent and answered', async () => {
  const sim = await simulator({
    name: 'records',
    secret: SECRET,
    rules: [
      { name: 'garbled status', when: { endpoint: 'status' }, fault: 'garbage' },
      { name: 'forced signature error', when: { headers: { 'x-force': 'signature' } }, respond: { code: -4037 } },
      { name: 'long answer', when: { headers: { 'x-long': 'yes' } }, respond: { code: 15000, message: LONG_MESSAGE } },
    ],
  } as never);
  const as = { apiUser: sim.apiUser.id, secret: SECRET };
  const last = () => sim.journal({ limit: 1 })[0];

  it('a new challenge: its endpoint, operation, type, user, answer, challenge, scenario, and the bodies both ways', async () => {
    const body = challengeEnvelope(sim.apiUser.id, { svcUser: 'alice@example.com' });
    const r = await send(sim, '/v1/svc/challenge', { as, body });
    expectEnvelope(r, 202, 2025);
    const e = last();
    const [challenge] = sim.challenges();
    expect(e).toMatchObject({
      method: 'POST',
      path: '/v1/svc/challenge',
      endpoint: 'challenge',
      operation: 'challenge',
      type: 150,
      apiUser: sim.apiUser.id,
      user: 'alice@example.com',
      http: 202,
      code: 2025,
      message: r.json.message,
      scenario: 'records',
      challengeId: challenge.id,
    });
    expect(e.seq).toBe(sim.simulator.path.answeredCount);
    expect(e.at).toBe(r.json.utctime);
    expect(e.latencyMs).toBeGreaterThanOrEqual(0);
    expect(e.request.body).toBe(JSON.stringify(body));
    expect(e.request.headers['x-svc-apiuser']).toBe(sim.apiUser.id);
    expect(e.response?.body).toBe(r.text);
    for (const absent of ['rule', 'fault', 'expectedStringToSign', 'hint', 'wouldFail', 'internalError', 'by'] as const)
      expect(e[absent], absent).toBeUndefined();
  });

  it('a time request: no operation body, no user, no challenge', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time', { as, method: 'GET' }), 200, 15000);
    const e = last();
    expect(e).toMatchObject({ method: 'GET', endpoint: 'time', operation: undefined, type: undefined, http: 200 });
    expect(e.user).toBeUndefined();
    expect(e.challengeId).toBeUndefined();
  });

  it("a wrong signature: the string that was expected to be signed, and the doctor's hint", async () => {
    const r = await send(sim, '/v1/svc/time', { as: { ...as, secret: 'not-the-secret' }, method: 'GET' });
    expectEnvelope(r, 400, -4037);
    const e = last();
    const sent = e.request.headers;
    expect(e.expectedStringToSign).toBe(stringToSign(sent['x-svc-utctime'] as string, sent['x-svc-cnonce'] as string));
    expect(e.hint?.id).toEqual(expect.any(String));
    expect(r.json.message).toContain(e.hint!.text);
  });

  it('a -4037 forced by a rule, before the signature was checked: the string its signing headers make', async () => {
    const r = await send(sim, '/v1/svc/time', { as, method: 'GET', headers: { 'x-force': 'signature' } });
    expectEnvelope(r, 400, -4037);
    expect(last()).toMatchObject({ code: -4037, rule: 'forced signature error' });
    const sent = last().request.headers;
    expect(last().expectedStringToSign).toBe(
      stringToSign(sent['x-svc-utctime'] as string, sent['x-svc-cnonce'] as string),
    );
  });

  it('its latency: milliseconds to the hundredth, within the round trip the client saw', async () => {
    for (let i = 0; i < 3; i++) {
      const before = performance.now();
      expectEnvelope(await send(sim, '/v1/svc/time', { as, method: 'GET' }), 200, 15000);
      const roundTrip = performance.now() - before;
      const { latencyMs } = last();
      expect(String(latencyMs)).toMatch(/^\d+(\.\d{1,2})?$/);
      expect(latencyMs).toBeGreaterThanOrEqual(0);
      expect(latencyMs).toBeLessThanOrEqual(roundTrip);
    }
  });

  it("a request of the dashboard's explorer is marked as the explorer's; a client's is not", async () => {
    const r = await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'time' }),
    });
    expect(r.status).toBe(200);
    expect(last()).toMatchObject({ endpoint: 'time', code: 15000, by: 'explorer' });
    expectEnvelope(await send(sim, '/v1/svc/time', { as, method: 'GET' }), 200, 15000);
    expect(last().by).toBeUndefined();
  });

  it('a body whose secrets hide to less than half its length: kept as what its first 16 KiB hide to', async () => {
    // Each secret (21 characters) is shown as `[secret]` (8): the first 2 × 8192 characters hide to fewer than 8192.
    const body = SECRET.repeat(1200);
    await send(sim, '/v1/svc/time', { as, body });
    const scanned = 2 * JOURNAL_BODY_CHARS;
    const hidden = '[secret]'.repeat(Math.floor(scanned / SECRET.length)) + SECRET.slice(0, scanned % SECRET.length);
    expect(hidden.length).toBeLessThan(JOURNAL_BODY_CHARS);
    expect(last().request.body).toBe(`${hidden}… (${body.length - hidden.length} more characters)`);
  });

  it("the answer's envelope, as it went on the wire: an answer, a refusal with its hint, one with the caller's id", async () => {
    const answers = [
      await send(sim, '/v1/svc/time', { as, method: 'GET' }),
      await send(sim, '/v1/svc/time', { as: { ...as, secret: 'not-the-secret' }, method: 'GET' }),
      await send(sim, '/v1/svc/challenge', { as, body: { ...challengeEnvelope(sim.apiUser.id), id: 'caller-7' } }),
    ];
    const entries = sim.journal({ limit: answers.length }).reverse();
    expect(answers.map((r) => r.json.code)).toEqual([15000, -4037, 2025]);
    expect(answers[2].json.id).toBe('caller-7');
    entries.forEach((e, i) => expect(e.response?.body, `answer ${i}`).toBe(answers[i].text));
  });

  it('a record a listener of the journal receives, written out as JSON, carries the envelope as its body', async () => {
    const seen: string[] = [];
    const stop = sim.simulator.requestJournal.subscribe((e) => seen.push(JSON.stringify(e.response)));
    try {
      const r = await send(sim, '/v1/svc/time', { as, method: 'GET' });
      expect(seen.map((text) => JSON.parse(text) as unknown)).toEqual([{ body: r.text }]);
    } finally {
      stop();
    }
  });

  it(`an envelope over ${JOURNAL_BODY_CHARS} characters is kept cut, its secrets hidden before the cut`, async () => {
    const r = await send(sim, '/v1/svc/time', { as, method: 'GET', headers: { 'x-long': 'yes' } });
    expectEnvelope(r, 200, 15000);
    expect(r.json.message).toBe(LONG_MESSAGE);
    // As a long request body is kept: what its first 2 × 8192 characters hide to, then cut (a secret across the cut at
    // 8192 is never shown in part).
    const hidden = r.text
      .slice(0, 2 * JOURNAL_BODY_CHARS)
      .split(SECRET)
      .join('[secret]');
    const kept = last().response?.body;
    expect(kept).toBe(
      `${hidden.slice(0, JOURNAL_BODY_CHARS)}… (${r.text.length - Math.min(JOURNAL_BODY_CHARS, hidden.length)} more characters)`,
    );
  });

  it('a refusal before any signature is known: no string to sign', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time', { as, mutate: (h) => delete h.Authorization }), 400, -4000);
    expect(last().expectedStringToSign).toBeUndefined();
  });

  it('a rule with a fault: the rule and the fault, with the answer the service decided', async () => {
    const r = await send(sim, '/v1/svc/status', { as, body: challengeEnvelope(sim.apiUser.id) });
    expect(() => JSON.parse(r.text)).toThrow();
    expect(last()).toMatchObject({ endpoint: 'status', rule: 'garbled status', fault: 'garbage' });
    expect(last().code).toEqual(expect.any(Number));
  });

  it('the first 100 headers, and how many more there were', async () => {
    const few = { 'x-extra-a': 'a' };
    expectEnvelope(await send(sim, '/v1/svc/time', { as, headers: few }), 200, 15000);
    expect(last().request.headersLeftOut).toBeUndefined();
    expect(last().request.headers['x-extra-a']).toBe('a');
    // What every request of this test sends besides the extra headers (Host, Connection, the signing headers, ...).
    const usual = Object.keys(last().request.headers).length - 1;
    const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x-extra-${i}`, String(i)]));
    expectEnvelope(await send(sim, '/v1/svc/time', { as, headers: many }), 200, 15000);
    const e = last();
    expect(Object.keys(e.request.headers)).toHaveLength(100);
    expect(e.request.headersLeftOut).toBe(usual + 150 - 100);
    // Exactly 100 are kept whole, with nothing said left out.
    const fill = Object.fromEntries(Array.from({ length: 100 - usual }, (_, i) => [`x-extra-${i}`, String(i)]));
    expectEnvelope(await send(sim, '/v1/svc/time', { as, headers: fill }), 200, 15000);
    expect(Object.keys(last().request.headers)).toHaveLength(100);
    expect(last().request.headersLeftOut).toBeUndefined();
  });

  it('an API user header that names no one and is longer than 32 characters is kept as its first 32 and an ellipsis', async () => {
    const long = '9'.repeat(40);
    await send(sim, '/v1/svc/time', { as: false, headers: { 'x-svc-apiuser': long } });
    expect(last().apiUser).toBe(`${'9'.repeat(32)}…`);
    await send(sim, '/v1/svc/time', { as: false, headers: { 'x-svc-apiuser': '9'.repeat(32) } });
    expect(last().apiUser).toBe('9'.repeat(32));
  });

  it(`a body over ${JOURNAL_BODY_CHARS} characters is kept cut, saying how much more there was`, async () => {
    const padding = 'p'.repeat(JOURNAL_BODY_CHARS);
    const body = JSON.stringify(challengeEnvelope(sim.apiUser.id, { profile: padding }));
    await send(sim, '/v1/svc/challenge', { as, body });
    const kept = last().request.body;
    expect(kept.startsWith(body.slice(0, JOURNAL_BODY_CHARS))).toBe(true);
    expect(kept).toContain(`… (${body.length - JOURNAL_BODY_CHARS} more characters)`);
    const exact = 'x'.repeat(JOURNAL_BODY_CHARS);
    await send(sim, '/v1/svc/time', { as, body: exact });
    expect(last().request.body).toBe(exact);
  });
});

describe('a journal entry of a simulator whose secret is shorter than `[secret]`', async () => {
  // Hidden, each secret grows from 4 characters to 8.
  const short = 'qz7q';
  const sim = await simulator({ name: 'short secret', secret: short });
  const as = { apiUser: sim.apiUser.id, secret: short };
  const last = () => sim.journal({ limit: 1 })[0];

  it('an API user header of exactly 32 characters is kept whole, shown with its secrets hidden', async () => {
    await send(sim, '/v1/svc/time', { as: false, headers: { 'x-svc-apiuser': short.repeat(8) } });
    expect(last().apiUser).toBe('[secret]'.repeat(8));
  });

  it(`a body of exactly ${JOURNAL_BODY_CHARS} characters is kept whole, shown with its secrets hidden`, async () => {
    await send(sim, '/v1/svc/time', { as, body: short.repeat(JOURNAL_BODY_CHARS / short.length) });
    expect(last().request.body).toBe('[secret]'.repeat(JOURNAL_BODY_CHARS / short.length));
  });
});

describe('a journal entry under auth: off names the API user the request named, known or not', async () => {
  const sim = await simulator({ name: 'no auth', auth: 'off' } as never);
  const last = () => sim.journal({ limit: 1 })[0];

  it('an unknown API user named in the envelope only (no API user header): the one named', async () => {
    const body = { id: 'ref-9', apiUser: '987654321', type: 990, body: {} };
    expectEnvelope(await send(sim, '/v1/svc/time', { as: false, body }), 400, -1001);
    expect(last().request.headers['x-svc-apiuser']).toBeUndefined();
    expect(last().apiUser).toBe('987654321');
  });
});

describe('a -4037 a rule forces, where the request did not sign with both headers: no string to sign', async () => {
  const forced = [{ name: 'forced', when: { endpoint: 'time' }, respond: { code: -4037 } }];
  const off = await simulator({ name: 'off', auth: 'off', secret: SECRET, rules: forced } as never);
  const log = await simulator({ name: 'log', auth: 'log', secret: SECRET, rules: forced } as never);

  it('auth: off reads no signing header', async () => {
    expectEnvelope(await send(off, '/v1/svc/time', { as: { apiUser: off.apiUser.id, secret: SECRET } }), 400, -4037);
    expect(off.journal({ limit: 1 })[0].expectedStringToSign).toBeUndefined();
  });

  it.each([
    ['a nonce and no time', 'x-svc-utctime', -4004],
    ['a time and no nonce', 'x-svc-cnonce', -4006],
  ])('auth: log, with %s', async (_, missing, wouldFail) => {
    const as = { apiUser: log.apiUser.id, secret: SECRET };
    const sent = await send(log, '/v1/svc/time', { as, mutate: (h) => delete h[missing] });
    expectEnvelope(sent, 400, -4037);
    const [e] = log.journal({ limit: 1 });
    expect(e.wouldFail?.map((w) => w.code)).toEqual([wouldFail]);
    expect(e.expectedStringToSign).toBeUndefined();
  });
});
