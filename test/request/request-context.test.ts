import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/run/finding-types.js';
import { challengeEnvelope, clientTime, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * What the request path learns about one request (src/request/context.ts), seen from outside: the body read strictly
 * before authentication and relaxed after it, a repeated header as rules see it, the operation known before the
 * envelope is judged, the caller's id echoed, who the client doctor counts as the sender, a picked scenario's replay
 * clock, and what the signature doctor may diagnose.
 */
const MAIN = { apiUser: '123456789', secret: 'context-secret' };
const CHALLENGE_ONLY = { apiUser: '200000002', secret: 'challenge-only-secret' };
const UNKNOWN = { apiUser: '999999999', secret: 'whatever' };

const ids = (list: Finding[]) => list.map((f) => f.id);
const byId = (list: Finding[], id: string) => list.find((f) => f.id === id);

/** An envelope for a new challenge written as relaxed JSON (unquoted keys, single quotes): not JSON. */
const relaxedEnvelope = (apiUser: string, fields = "type: 150, id: 'relaxed-id'") =>
  `{ ${fields}, apiUser: '${apiUser}', body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern' } }`;

describe('the request context under auth: verify', async () => {
  const sim = await simulator({
    name: 'context-verify',
    apiUsers: [
      { id: MAIN.apiUser, secret: MAIN.secret },
      { id: CHALLENGE_ONLY.apiUser, secret: CHALLENGE_ONLY.secret, permissions: ['challenge'] },
    ],
    rules: [
      // Reads the body's user on every request, so the body is first read before authentication.
      { name: 'never-user', when: { svcUser: 'never@example.com' }, respond: { code: -5000 } },
      { name: 'type-150', when: { type: 150, headers: { 'x-case': 'type' } }, respond: { code: -5000, message: 'T' } },
      { name: 'cookies', when: { headers: { 'set-cookie': 'a=1, b=2' } }, respond: { code: -5000, message: 'C' } },
      // -2035 exists on cancels only: the rule looks at the request's operation.
      { name: 'cancel-only', when: { headers: { 'x-case': 'cancel-only' } }, respond: { code: -2035 } },
      { name: 'force-4037', when: { headers: { 'x-force': 'signature' } }, respond: { code: -4037 } },
    ],
  });
  const challenge = (body: unknown, extra: Parameters<typeof send>[2] = {}) =>
    send(sim, '/v1/svc/challenge', { as: MAIN, body, ...extra });
  const lastSeq = () => sim.journal({ limit: 1 })[0].seq;

  it('a header sent on several lines is one value joined with ", " for a rule', async () => {
    const r = await send(sim, '/v1/svc/time', {
      method: 'GET',
      as: MAIN,
      mutate: (h) => ((h as Record<string, unknown>)['set-cookie'] = ['a=1', 'b=2']),
    });
    expect(expectEnvelope(r, 500, -5000).message).toBe('C');
    expect(sim.journal({ limit: 1 })[0].rule).toBe('cookies');
  });

  it('before authentication a rule reads the body as JSON only: a relaxed envelope has no type for it', async () => {
    const strictJson = await challenge(challengeEnvelope(MAIN.apiUser, { svcUser: 'user@example.com' }), {
      headers: { 'x-case': 'type' },
    });
    expect(expectEnvelope(strictJson, 500, -5000).message).toBe('T');
    const relaxed = await challenge(relaxedEnvelope(MAIN.apiUser), { headers: { 'x-case': 'type' } });
    expectEnvelope(relaxed, 202, 2025);
    expect(relaxed.json.id).toBe('relaxed-id');
    expect(sim.journal({ limit: 1 })[0].rule).toBeUndefined();
  });

  it("an unauthenticated request's relaxed body is not read: its id is not echoed", async () => {
    const r = await challenge(relaxedEnvelope(MAIN.apiUser, "type: 150, id: 'forged-id'"), {
      as: { apiUser: MAIN.apiUser, secret: 'wrong' },
    });
    expectEnvelope(r, 400, -4037);
    expect(r.json.id).toBe(`sim-${lastSeq()}`);
  });

  it('once authenticated the body is read again relaxed: the id of an envelope refused later is echoed', async () => {
    const r = await challenge(relaxedEnvelope(MAIN.apiUser, "type: 999, id: 'relaxed-echo'"));
    expectEnvelope(r, 400, -5072);
    expect(r.json.id).toBe('relaxed-echo');
  });

  it('the envelope id is echoed up to 25 characters, else the answer has the sim-<n> id', async () => {
    const id25 = 'a'.repeat(25);
    const ok = await challenge(challengeEnvelope(MAIN.apiUser, {}, { id: id25 }));
    expectEnvelope(ok, 202, 2025);
    expect(ok.json.id).toBe(id25);
    const long = await challenge(challengeEnvelope(MAIN.apiUser, {}, { id: 'b'.repeat(26) }));
    expectEnvelope(long, 400, -5075);
    expect(long.json.id).toBe(`sim-${lastSeq()}`);
  });

  it('the id of a request refused before its envelope is judged is echoed from the body', async () => {
    const r = await challenge(challengeEnvelope(MAIN.apiUser, {}, { id: 'early-refusal' }), {
      as: { apiUser: MAIN.apiUser, secret: 'wrong' },
    });
    expectEnvelope(r, 400, -4037);
    expect(r.json.id).toBe('early-refusal');
  });

  it('a type not of the endpoint names no operation: the permission check waits for the envelope', async () => {
    const r = await send(sim, '/v1/svc/challenge', {
      as: CHALLENGE_ONLY,
      body: challengeEnvelope(CHALLENGE_ONLY.apiUser, {}, { type: 171 }),
    });
    expectEnvelope(r, 400, -5072);
    // The same type where it belongs is the operation the API user may not call.
    const status = await send(sim, '/v1/svc/status', {
      as: CHALLENGE_ONLY,
      body: { ...challengeEnvelope(CHALLENGE_ONLY.apiUser), type: 171 },
    });
    expectEnvelope(status, 400, -1026);
  });

  it('a path that names no endpoint has no operation: a rule on an operation does not match it', async () => {
    const r = await send(sim, '/v1/svc/nope', { as: MAIN, headers: { 'x-case': 'cancel-only' } });
    expectEnvelope(r, 404, -404);
  });

  it('an unknown API user makes the unknown-api-user finding, and nothing under its id', async () => {
    sim.newRun();
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: UNKNOWN }), 400, -1001);
    const found = sim.findings();
    expect(ids(found)).toEqual(['unknown-api-user']);
    expect(found[0].detail).toBe(`the last named ${UNKNOWN.apiUser}`);
  });

  it("a forger naming a known API user with a wrong clock makes no findings; the API user's own does", async () => {
    sim.newRun();
    const forger = { apiUser: MAIN.apiUser, secret: 'not-the-secret' };
    const hourAgo = () => clientTime(sim) - 3_600_000;
    for (let i = 0; i < 2; i++)
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: forger, time: hourAgo() }), 400, -4036);
    expect(sim.findings()).toEqual([]);
    for (let i = 0; i < 2; i++)
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time: hourAgo() }), 400, -4036);
    expect(ids(sim.findings())).toEqual(['drift-not-corrected']);
  });

  it('a -4037 a rule forces counts as a signature refused: the client doctor does not read that request', async () => {
    sim.newRun();
    const env = () => challengeEnvelope(MAIN.apiUser, {}, { id: 'same-id' });
    expectEnvelope(await challenge(env()), 202, 2025);
    const first = lastSeq();
    expectEnvelope(await challenge(env(), { headers: { 'x-force': 'signature' } }), 400, -4037);
    expect(byId(sim.findings(), 'envelope-id-reused')).toBeUndefined();
    expectEnvelope(await challenge(env()), 202, 2025);
    expect(byId(sim.findings(), 'envelope-id-reused')).toMatchObject({
      count: 1,
      detail: `request ${first} sent the same id`,
    });
  });
});

describe('the request context under auth: off', async () => {
  const sim = await simulator({
    name: 'context-off',
    auth: 'off',
    apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
  });

  it('the body is read relaxed from the start: the API user named in a relaxed envelope is known', async () => {
    const r = await send(sim, '/v1/svc/challenge', { as: false, body: relaxedEnvelope(MAIN.apiUser) });
    expectEnvelope(r, 202, 2025);
    expect(r.json.id).toBe('relaxed-id');
    expect(sim.journal({ limit: 1 })[0].apiUser).toBe(MAIN.apiUser);
  });

  it('every request counts as signed: a reused envelope id is a finding', async () => {
    sim.newRun();
    for (let i = 0; i < 2; i++) {
      const body = challengeEnvelope(MAIN.apiUser, {}, { id: 'off-id' });
      expectEnvelope(await send(sim, '/v1/svc/challenge', { as: false, body }), 202, 2025);
    }
    expect(byId(sim.findings(), 'envelope-id-reused')).toMatchObject({ apiUser: MAIN.apiUser, count: 1 });
  });
});

describe('the signature doctor under auth: log', async () => {
  const sim = await simulator({
    name: 'context-log',
    auth: 'log',
    apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
  });
  const sha256 = (text: string) => createHmac('sha256', MAIN.secret).update(text).digest('hex');
  const withSignature = (sig: string) => (h: Record<string, string>) =>
    (h.Authorization = h.Authorization.replace(/signature=\w+/, `signature=${sig}`));
  const signatureHint = () => sim.journal({ limit: 1 })[0].wouldFail!.find((w) => w.code === -4027)!.hint!;

  it('diagnoses a misshapen signature against the time and nonce the request sent', async () => {
    const time = clientTime(sim);
    const nonce = randomUUID();
    const sig = sha256(`x-svc-utctime: ${time}\nx-svc-cnonce: ${nonce}`);
    const r = await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time, nonce, mutate: withSignature(sig) });
    expectEnvelope(r, 200, 15000);
    expect(signatureHint().id).toBe('sha256');
  });

  it('without a well-formed time, only the shape of the signature is judged', async () => {
    const nonce = randomUUID();
    const sig = sha256(`x-svc-utctime: undefined\nx-svc-cnonce: ${nonce}`);
    const mutate = (h: Record<string, string>) => (withSignature(sig)(h), (h['x-svc-utctime'] = 'undefined'));
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, nonce, mutate }), 200, 15000);
    expect(sim.journal({ limit: 1 })[0].wouldFail!.map((w) => w.code)).toEqual([-4005, -4027]);
    expect(signatureHint().id).toBe('digest-length');
  });

  it('without a nonce, only the shape of the signature is judged', async () => {
    const time = clientTime(sim);
    const sig = sha256(`x-svc-utctime: ${time}\nx-svc-cnonce: undefined`);
    const mutate = (h: Record<string, string>) => (withSignature(sig)(h), delete h['x-svc-cnonce']);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, time, mutate }), 200, 15000);
    expect(sim.journal({ limit: 1 })[0].wouldFail!.map((w) => w.code)).toEqual([-4006, -4027]);
    expect(signatureHint().id).toBe('digest-length');
  });

  it('a request with the wrong secret counts as signed: its reused envelope id is a finding', async () => {
    sim.newRun();
    const forger = { apiUser: MAIN.apiUser, secret: 'wrong' };
    for (let i = 0; i < 2; i++) {
      const body = challengeEnvelope(MAIN.apiUser, {}, { id: 'log-id' });
      expectEnvelope(await send(sim, '/v1/svc/challenge', { as: forger, body }), 202, 2025);
    }
    expect(byId(sim.findings(), 'envelope-id-reused')).toMatchObject({ apiUser: MAIN.apiUser, count: 1 });
  });
});

describe('replay memory and its clock', async () => {
  const OTHER = { apiUser: '200000007', secret: 'other-secret' };
  const sim = await simulator({
    name: 'context-replay',
    clock: { maxDrift: '60s' },
    apiUsers: [
      { id: MAIN.apiUser, secret: MAIN.secret },
      { id: OTHER.apiUser, secret: OTHER.secret },
    ],
  });
  // A scenario to pick by header: its clock 50 s ahead of the active one's, the same drift window.
  sim.bindScenario('999999010', { name: 'shifted', clock: { offset: '50s', maxDrift: '60s' } });
  const pick = { 'x-sim-scenario': 'shifted' };
  const time = (as: typeof MAIN, t: number, nonce: string, headers: Record<string, string> = {}) =>
    send(sim, '/v1/svc/time', { method: 'GET', as, time: t, nonce, headers });

  it('a nonce is forgotten once its time leaves the drift window', async () => {
    const t = sim.simulator.freeze();
    const nonce = randomUUID();
    expectEnvelope(await time(OTHER, t, nonce), 200, 15000);
    expectEnvelope(await time(OTHER, t + 1, nonce), 400, -4034);
    sim.simulator.advance('2m');
    expectEnvelope(await time(OTHER, t + 120_000, nonce), 200, 15000);
  });

  it("a picked scenario's replay memory is judged at the earlier of the two clocks", async () => {
    const t = sim.simulator.freeze();
    const nonce = randomUUID();
    // 25 s from both clocks (the active one at t, the picked one at t + 50 s).
    expectEnvelope(await time(MAIN, t + 25_000, nonce, pick), 200, 15000);
    expect(sim.journal({ limit: 1 })[0].scenario).toBe('shifted');
    sim.simulator.advance('50s');
    // The picked clock is past the nonce's window; the active one is not: the nonce is still remembered.
    expectEnvelope(await time(MAIN, t + 75_000, nonce, pick), 400, -4034);
  });
});
