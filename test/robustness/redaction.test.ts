import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { createApp, signedHeaders } from '../../src/index.js';
import { challengeEnvelope, raw, send, simulator } from '../helpers.js';
import { control, signedPairs } from './support.js';

/**
 * Class: a secret the simulator holds, echoed back to anyone. Every path that shows caller input (messages,
 * journal, event stream, dashboard, pages, control API answers, scenario errors) hides every secret the simulator
 * holds, written plainly or escaped (JSON `\u002d`, a string body escaped twice, JSON5 `\x2d` and `\u{2d}`, URL
 * `%2D`), and hides before it cuts, so no part of a long secret shows either.
 */

const SECRET = 'long-secret-0123456789-abcdefghijklmnopqrstuvwxyz-0123456789-ABCDEFGHIJKLMNOPQRSTUVWXYZ-end';
const SCENARIO_SECRET = 'scenario-Secret-Qw7Zx9Lm2Np4';

/** Every way a client can write the secret inside JSON or a URL. */
function escapedForms(secret: string): string[] {
  const u = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const x = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  return [
    secret.replace(/-/g, '\\u002d'),
    secret.replace(/-/g, '\\u002D'),
    [...secret].map(u).join(''),
    secret.replace(/-/g, '\\\\u002d'),
    secret.replace(/-/g, '\\\\\\\\u002d'),
    secret.replace(/e/g, x('e')),
    secret.replace(/e/g, '\\u{65}'),
    secret.replace(/-/g, '\\-'),
  ];
}

/** Fails when any 12 characters in a row of a secret show in the text (no secret shows, not even in part). */
function expectHidden(where: string, text: string): void {
  for (const secret of [SECRET, SCENARIO_SECRET]) {
    for (let i = 0; i + 12 <= secret.length; i++) {
      if (text.includes(secret.slice(i, i + 12)))
        throw new Error(`${where} shows part of a secret (${secret.slice(i, i + 12)}): ${text.slice(0, 400)}`);
    }
  }
  // Decoded as the dashboard decodes it (JSON, twice for a body sent as a string), the secret is not there either.
  const decoded = decodeDeep(text);
  for (const secret of [SECRET, SCENARIO_SECRET])
    if (decoded.includes(secret)) throw new Error(`${where}, decoded, shows a secret: ${decoded.slice(0, 400)}`);
}

function decodeDeep(text: string): string {
  const strings: string[] = [text];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 4) return;
    if (typeof v === 'string') {
      strings.push(v);
      try {
        walk(JSON.parse(v), depth + 1);
      } catch {
        try {
          strings.push(decodeURIComponent(v));
        } catch {
          // not URL-encoded either
        }
      }
    } else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  try {
    walk(JSON.parse(text), 0);
  } catch {
    // not JSON: the text itself is checked
  }
  return strings.join('\n');
}

describe('redaction without gaps', async () => {
  const sim = await simulator({ secret: SECRET, apiUsers: [{ id: '222222222', secret: SCENARIO_SECRET }] });
  const events: string[] = [];
  const stream = httpRequest(`${sim.url}/__sim/events`, (res) =>
    res.on('data', (c: Buffer) => events.push(c.toString('utf8'))),
  );
  stream.end();

  it('a secret sent escaped in a body is hidden in the answer, journal, events and the decoded view', async () => {
    const forms = [...escapedForms(SECRET), ...escapedForms(SCENARIO_SECRET)];
    for (const form of forms) {
      // In the envelope's body as an object, and as a string holding JSON (as one published client sends it).
      const asObject = `{"id":"r1","utctime":"1","apiUser":"${sim.apiUser.id}","type":150,"body":{"svcUser":"user@example.com","challengeType":"UserKeyAndPattern","profile":"${form}"}}`;
      const asString = JSON.stringify({
        id: 'r2',
        utctime: '1',
        apiUser: sim.apiUser.id,
        type: 150,
        body: `{'svcUser': 'user@example.com', 'challengeType': 'NoSuch', 'profile': '${form}'}`,
      });
      for (const body of [asObject, asString]) {
        const r = await send(sim, '/v1/svc/challenge', { body });
        expectHidden(`answer to ${form}`, r.text);
      }
    }
    for (const e of sim.journal()) expectHidden(`journal entry ${e.seq}`, JSON.stringify(e));
    expectHidden('GET /__sim/journal', (await control(sim, 'GET', '/__sim/journal')).text);
    await new Promise((r) => setTimeout(r, 100));
    expectHidden('event stream', events.join(''));
  });

  it('a secret in the path, plain or percent-encoded, is hidden in the -404 answer and the journal', async () => {
    const enc = [...SECRET].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    for (const path of [
      `/v1/svc/${SECRET}`,
      `/v1/svc/${enc}`,
      `/v1/svc/${SECRET.replace(/-/g, '%2D')}`,
      `/v1/svc/x/${'y'.repeat(290)}${SECRET}`,
    ]) {
      const r = await raw(sim.url, 'POST', path, signedPairs(sim), '{}');
      expectHidden(`answer to ${path.slice(0, 40)}`, r.text);
      expectHidden('journal path', JSON.stringify(sim.journal()[0]));
    }
  });

  it("a secret sent as the nonce of a wrongly signed request is hidden in the hint's every copy", async () => {
    // The -4037 hint quotes the string to sign, nonce included: in the answer's message, and in the journal's message,
    // hint and expected string to sign, and the run's hints. A clean nonce is quoted as sent, in each of them.
    for (const [nonce, hides] of [
      [SECRET, true],
      [SCENARIO_SECRET, true],
      [`clean-${'n'.repeat(40)}`, false],
    ] as const) {
      const r = await send(sim, '/v1/svc/time', { as: { apiUser: sim.apiUser.id, secret: 'not-the-secret' }, nonce });
      expect(r.json.code).toBe(-4037);
      const entry = sim.journal()[0];
      const copies = [r.json.message, entry.message!, entry.hint!.text, entry.expectedStringToSign!];
      const hint = sim.hints().find((h) => h.id === 'no-known-mistake')!;
      for (const copy of [...copies, hint.text]) {
        if (hides) {
          expectHidden('the hint', copy);
          expect(copy).toContain('[secret]');
        } else expect(copy).toContain(nonce);
      }
      expect(r.json.message.endsWith(entry.hint!.text)).toBe(true);
    }
  });

  it('pages and control answers that quote what was sent hide the secret first, then cut', async () => {
    const cases: [string, string, unknown?][] = [];
    for (const s of [SECRET, SCENARIO_SECRET, `padding-${'p'.repeat(40)}${SECRET}`]) {
      const e = encodeURIComponent(s);
      cases.push(
        ['GET', `/phone/${e}`],
        ['GET', `/phone/${e}/qr.png`],
        ['POST', `/phone/${e}/approve`],
        ['GET', `/status?code=${e}`],
        ['GET', `/status?code=${e}&format=json`],
      );
      cases.push(
        ['DELETE', `/__sim/bindings/${e}`],
        ['PUT', `/__sim/bindings/${e}`, { name: 'default' }],
        ['POST', `/__sim/challenges/${e}/approve`],
      );
      cases.push(
        ['POST', '/__sim/scenario', { name: 'x', accounts: { [s]: 'locked' } }],
        ['POST', '/__sim/scenario', { name: s }],
        ['POST', '/__sim/scenario', { name: 'x', apiUsers: [{ id: s, secret: 'x' }] }],
      );
      cases.push(
        ['POST', '/__sim/scenario', `name: x\nclock:\n  offset: ${s}\n`],
        ['POST', '/__sim/clock/advance', { by: s }],
        ['POST', '/__sim/clock/freeze', { at: s }],
      );
      cases.push(['POST', '/__sim/explore', { kind: 'time', apiUser: s }], ['POST', '/__sim/scenario', { file: s }]);
    }
    for (const [method, path, body] of cases) {
      const r = await control(sim, method, path, body);
      expect(r.status, `${method} ${path.slice(0, 50)}`).toBeLessThan(500);
      expectHidden(`${method} ${path.slice(0, 50)}`, r.text);
    }
    // A header value that quotes the secret as the scenario to pick.
    expectHidden(
      'x-sim-scenario',
      (await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': SECRET } })).text,
    );
    expectHidden(
      'x-sim-scenario, long',
      (await send(sim, '/v1/svc/time', { method: 'GET', headers: { 'x-sim-scenario': `${'q'.repeat(90)}${SECRET}` } }))
        .text,
    );
    stream.destroy();
  });

  it("a secret sent as the envelope's id, or as the Host that an app built by createApp links with, is hidden", async () => {
    const short = 'short-Secret-42x';
    const app = createApp({ secret: short });
    const headers = (t: number) =>
      signedHeaders({ apiUser: '123456789', secret: short, time: app.simulator.now() + t });
    const byId = await request(app)
      .post('/v1/svc/challenge')
      .set(headers(0))
      .send({ ...challengeEnvelope('123456789'), id: short });
    expect(byId.body).toMatchObject({ code: 2025, id: '[secret]' });
    for (const [i, path] of ['/v1/svc/time', '/openapi.json', '/', '/__sim/ui'].entries()) {
      const r = await request(app)
        .get(path)
        .set('host', short)
        .set(headers(i + 1));
      expect(r.status, path).toBeLessThan(500);
      expect(r.text, path).not.toContain(short);
    }
    const qr = await request(app)
      .post('/v1/svc/challenge')
      .set('host', short)
      .set(headers(9))
      .send(challengeEnvelope('123456789'));
    expect(qr.text).not.toContain(short);
  });

  it('a challenge whose user e-mail holds a secret shows it hidden on the dashboard and the phone page', async () => {
    const r = await send(sim, '/v1/svc/challenge', {
      body: challengeEnvelope(sim.apiUser.id, { svcUser: `${SCENARIO_SECRET}@example.com` }),
    });
    const { challengeId } = JSON.parse(r.json.message) as { challengeId: string };
    for (const path of ['/__sim/ui', '/__sim/ui/challenges', `/phone/${challengeId}`, '/__sim/challenges'])
      expectHidden(path, (await control(sim, 'GET', path)).text);
  });
});

describe('redaction with many secrets (past the few searched one by one)', async () => {
  // Secrets that start alike and unlike (two first characters shared, a non-ASCII start, digits), so the search by
  // first characters is shown to find each; 40 API users are well past the few searched one by one.
  const secrets = Array.from({ length: 40 }, (_, i) =>
    i % 4 === 0
      ? `Shared-start-${i}-Zq8`
      : i % 4 === 1
        ? `Σecret-${i}-ümlaut`
        : i % 4 === 2
          ? `${i}0-digits-first-Kp`
          : `x${i}-Secret-Vw3-tail`,
  );
  const users = secrets.map((secret, i) => ({ id: `3000000${String(i).padStart(2, '0')}`, secret }));
  const sim = await simulator({ apiUsers: users });

  it('each secret, plain or escaped anywhere in a body, is hidden in the journal (and never shows in the answer)', async () => {
    const u = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    for (const [i, secret] of secrets.entries()) {
      const forms = [secret, [...secret].map(u).join(''), secret.replace(/-/g, '\\u002d'), encodeURIComponent(secret)];
      for (const form of forms) {
        // At the start of a value, after ordinary text, after an escape, and at the very end of the text.
        const profile = `${form} and then ${'%41'.repeat(i % 3)}${form}`;
        const as = users[(i + 1) % users.length];
        const body = `{"id":"ref-${i}","utctime":"1","apiUser":"${as.id}","type":150,"body":{"svcUser":"user@example.com","challengeType":"NoSuch","profile":"${profile}"}}`;
        const r = await send(sim, '/v1/svc/challenge', { body, as: { apiUser: as.id, secret: as.secret } });
        expect(r.json.code, r.text).toBe(-5076);
        for (const s of secrets) {
          expect(r.text, `${s} in the answer to ${form}`).not.toContain(s);
          expect(r.text).not.toContain(s.slice(0, 12));
        }
        const [journaled] = sim.journal();
        // Exactly the secret is hidden, no character more or less, and what is around it stays.
        expect(journaled.request.body, form).toContain(`"profile":"[secret] and then ${'%41'.repeat(i % 3)}[secret]"`);
        const entry = JSON.stringify(journaled);
        for (const s of secrets) expect(decodeDeep(entry), `${s} in the journal after ${form}`).not.toContain(s);
      }
    }
  });
});

describe('a text shown again after the secrets changed', async () => {
  // The redactor remembers the last texts it hid (a refusal's message is shown in the answer, the journal and the
  // log). A text shown before a secret was held must be searched again once it is: the memory goes with the set.
  const FUTURE = 'future-secret-Hq4Vb8Ns2Lx6';
  const as = { apiUser: '400000001', secret: 'first-secret-Rt5Yu7' };
  // With 20 more API users, the secrets are searched by their first characters rather than one by one.
  const others = Array.from({ length: 20 }, (_, i) => ({
    id: `4000001${String(i).padStart(2, '0')}`,
    secret: `many-${i}-Secret-Pz${i}`,
  }));
  const sim = await simulator({ apiUsers: [{ id: as.apiUser, secret: as.secret }] });

  const refusal = async (value: string) => {
    const body = `{"id":"ref-1","utctime":"1","apiUser":"${as.apiUser}","type":150,"body":{"svcUser":"user@example.com","challengeType":"${value}"}}`;
    const r = await send(sim, '/v1/svc/challenge', { body, as });
    expect(r.json.code, r.text).toBe(-5076);
    return r;
  };

  it.each([
    ['plain, few secrets', FUTURE, []],
    ['escaped, few secrets', FUTURE.replace(/-/g, '\\u002d'), []],
    ['plain, many secrets', FUTURE, others],
    ['in a longer value, many secrets', `${FUTURE}-and-more-text-after-it-0123456789`, others],
  ])('%s: shown while not a secret, hidden once it is', async (_, value, more) => {
    sim.loadScenario({ name: 'before', apiUsers: [{ id: as.apiUser, secret: as.secret }, ...more] });
    const before = await refusal(value);
    expect(before.json.message.length).toBeGreaterThanOrEqual(64); // long enough to be remembered
    expect(before.json.message).toContain('Hq4Vb8Ns2Lx6');
    // The same refusal, word for word, after a newly loaded scenario made the value a secret.
    sim.loadScenario({
      name: 'after',
      apiUsers: [{ id: as.apiUser, secret: as.secret }, ...more, { id: '400000002', secret: FUTURE }],
    });
    const after = await refusal(value);
    expect(after.text).not.toContain('Hq4Vb8Ns2Lx6');
    expect(after.json.message).toContain('[secret]');
    expect(JSON.stringify(sim.journal()[0])).not.toContain('Hq4Vb8Ns2Lx6');
  });
});
