import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/index.js';
import type { ExploreResult } from '../../src/http/explore.js';
import { formatLine } from '../../src/cli/log.js';
import { expectEnvelope, send, simulator } from '../helpers.js';

const SECRET = 'dashboard-secret-7f3a9c';

/** The envelope a simulator answered to one exchange. */
const answered = (r: ExploreResult, i = 0) =>
  JSON.parse(r.exchanges[i].response.body) as { id: string; code: number; message: string };

describe('the explorer (POST /__sim/explore): one click, one correctly signed request over HTTP', async () => {
  const sim = await simulator({ secret: SECRET, clock: { frozenAt: '2026-03-01T09:00:00Z' } });
  const explore = async (body: Record<string, unknown>) => {
    const r = await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, text: await r.text() };
  };
  const ok = async (body: Record<string, unknown>) => {
    const r = await explore(body);
    expect(r.status, r.text).toBe(200);
    return JSON.parse(r.text) as ExploreResult;
  };
  let challengeId = '';

  it('sends a new challenge (2025), signed with the API user secret it never shows', async () => {
    const r = await ok({ kind: 'challenge', user: 'alice@example.com' });
    expect(r.exchanges).toHaveLength(1);
    const sent = r.exchanges[0].request;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/svc/challenge' });
    // The signature is the real one: HMAC of the two header lines with the API user's secret.
    const { 'x-svc-utctime': time, 'x-svc-cnonce': nonce } = sent.headers;
    expect(sent.headers.authorization).toContain(`signature=${sign(SECRET, time, nonce)}`);
    expect(JSON.parse(sent.body!)).toMatchObject({
      apiUser: sim.apiUser.id,
      type: 150,
      body: { svcUser: 'alice@example.com', challengeType: 'UserKeyAndPattern' },
    });
    const env = answered(r);
    expect(env.code).toBe(2025);
    challengeId = (JSON.parse(env.message) as { challengeId: string }).challengeId;
    expect(sim.challenges()[0]).toMatchObject({ id: challengeId, user: 'alice@example.com', state: 'waiting' });
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it('status, verify and cancel each answer their code for that challenge', async () => {
    expect(answered(await ok({ kind: 'status', user: 'alice@example.com', challengeId })).code).toBe(-3091);
    sim.approve(challengeId, '135790');
    expect(
      answered(await ok({ kind: 'verify', user: 'alice@example.com', challengeId, authCode: '000000' })).code,
    ).toBe(-3087);
    expect(
      answered(await ok({ kind: 'verify', user: 'alice@example.com', challengeId, authCode: '135790' })).code,
    ).toBe(3080);
    const second = JSON.parse(answered(await ok({ kind: 'challenge' })).message) as { challengeId: string };
    expect(answered(await ok({ kind: 'cancel', challengeId: second.challengeId })).code).toBe(2028);
  });

  it('time (GET, 15000) and the blocked check (6020)', async () => {
    const time = await ok({ kind: 'time' });
    expect(time.exchanges[0].request).toMatchObject({ method: 'GET', url: '/v1/svc/time' });
    expect(answered(time).code).toBe(15000);
    expect(answered(await ok({ kind: 'blocked', ipAddress: '198.51.100.20' })).code).toBe(6020);
  });

  it('broken on purpose: a bad signature (-4037), a replayed nonce (15000 then -4034), clock drift (-4036)', async () => {
    const bad = await ok({ kind: 'bad-signature' });
    expect(answered(bad).code).toBe(-4037);
    const journaled = sim.journal({ code: -4037 })[0];
    expect(journaled.expectedStringToSign).toBe(
      `x-svc-utctime: ${bad.exchanges[0].request.headers['x-svc-utctime']}\nx-svc-cnonce: ${bad.exchanges[0].request.headers['x-svc-cnonce']}`,
    );
    const replay = await ok({ kind: 'replay' });
    expect(replay.exchanges.map((_, i) => answered(replay, i).code)).toEqual([15000, -4034]);
    expect(replay.exchanges[1].request.headers['x-svc-cnonce']).toBe(
      replay.exchanges[0].request.headers['x-svc-cnonce'],
    );
    expect(answered(await ok({ kind: 'drift' })).code).toBe(-4036);
  });

  it("signs with this machine's clock when asked, as a real client: the frozen simulator clock is far behind, so -4036", async () => {
    expect(answered(await ok({ kind: 'time', clock: 'machine' })).code).toBe(-4036);
  });

  it('lets the simulator judge what the person typed (an invalid e-mail is -5079)', async () => {
    expect(answered(await ok({ kind: 'challenge', user: 'not an e-mail' })).code).toBe(-5079);
  });

  it('refuses a request it cannot build with a JSON error', async () => {
    expect(await explore({ kind: 'teleport' })).toMatchObject({
      status: 400,
      text: expect.stringContaining('kind must be one of challenge, cancel, time'),
    });
    expect(await explore({ kind: 'time', apiUser: '999999999' })).toMatchObject({
      status: 400,
      text: expect.stringContaining('is not one of this scenario'),
    });
    expect(await explore({ kind: 'time', enableQRcode: 'yes' })).toMatchObject({
      status: 400,
      text: expect.stringContaining('enableQRcode must be true or false'),
    });
    const notJson = await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{kind',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: expect.stringContaining('not JSON') });
  });

  it('forces any code of the table on the operation it belongs to, and refuses a code not in the table', async () => {
    // A cancel needs a waiting challenge: the explorer makes one (a forced 2025), then cancels it (a forced 2028).
    const r = await ok({ kind: 'force', code: 2028, user: 'frank@example.com' });
    expect(r).toMatchObject({ kind: 'force', label: 'Force 2028', expect: '2028' });
    const [made, cancel] = r.exchanges;
    expect(r.exchanges).toHaveLength(2);
    expect(made.request.headers).toMatchObject({ 'x-sim-scenario': 'catalog', 'x-sim-code': '2025' });
    expect(cancel.request.headers).toMatchObject({ 'x-sim-scenario': 'catalog', 'x-sim-code': '2028' });
    expect(JSON.parse(cancel.request.body!)).toMatchObject({
      type: 151,
      body: { challengeId: made.challenge!.challengeId, status: 'CANCEL' },
    });
    expect(cancel.response.status).toBe(202);
    expect(JSON.parse(cancel.response.body)).toMatchObject({ code: 2028 });
    expect(sim.challenges().find((c) => c.id === made.challenge!.challengeId)?.state).toBe('cancelled');
    // A code without an operation of its own goes on the time endpoint.
    const header = await ok({ kind: 'force', code: -4031 });
    expect(header.exchanges.map((x) => x.request.url)).toEqual(['/v1/svc/time']);
    expect(header.exchanges[0].response.status).toBe(400);
    expect(sim.journal({ limit: 1 })[0]).toMatchObject({ code: -4031, scenario: 'catalog', by: 'explorer' });
    const unknown = await explore({ kind: 'force', code: 4242 });
    expect(unknown).toMatchObject({
      status: 400,
      text: expect.stringContaining('4242 is not a code of the code table'),
    });
    expect(await explore({ kind: 'force', code: '<b>-4036</b>' })).toMatchObject({
      status: 400,
      text: expect.stringContaining('code must be a whole number'),
    });
    expect(await explore({ kind: 'force' })).toMatchObject({
      status: 400,
      text: expect.stringContaining('needs a code'),
    });
  });

  it('the dashboard page and its parts never carry a secret', async () => {
    const pageText = await (await fetch(`${sim.url}/__sim/ui`)).text();
    expect(pageText).toContain('Send a request');
    expect(pageText).toContain('data-kind="bad-signature"');
    const fragment = await (await fetch(`${sim.url}/__sim/ui/challenges`)).text();
    expect(fragment).toContain(challengeId);
    const journal = await (await fetch(`${sim.url}/__sim/journal`)).text();
    for (const text of [pageText, fragment, journal]) expect(text).not.toContain(SECRET);
  });
});

describe('the phone page (/phone/:id): the user approves or denies', async () => {
  const sim = await simulator({ seed: 11, clock: { frozenAt: '2026-03-01T09:00:00Z' } });
  const newChallenge = async (user = 'bob@example.com') => {
    const r = await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'challenge', user }),
    });
    return JSON.parse(answered((await r.json()) as ExploreResult).message) as {
      challengeId: string;
      challengeQRcodeUrl: string;
    };
  };
  const post = (path: string) => fetch(`${sim.url}${path}`, { method: 'POST', redirect: 'manual' });

  it('shows who, the check and the time left, with Approve and Deny', async () => {
    const c = await newChallenge();
    expect(c.challengeQRcodeUrl).toBe(`${sim.url}/phone/${c.challengeId}`);
    const html = await (await fetch(c.challengeQRcodeUrl)).text();
    expect(html).toContain('bob@example.com');
    expect(html).toContain('UserKeyAndPattern');
    expect(html).toContain('5 min 0 s');
    expect(html).toMatch(/<button class="approve" type="submit">Approve<\/button>/);
    expect(html).toMatch(/<button class="danger" type="submit">Deny<\/button>/);
    // The display name comes from the simulator's own seeded faker: the same seed gives the same name.
    expect(html).toContain(`<p class="who">${sim.simulator.world.people.displayName('bob@example.com')}</p>`);
  });

  it('approve: redirects to the page, which shows the auth code the client must verify; a second answer changes nothing', async () => {
    const c = await newChallenge();
    const r = await post(`/phone/${c.challengeId}/approve`);
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`/phone/${c.challengeId}`);
    const state = sim.challenges().find((x) => x.id === c.challengeId)!;
    expect(state).toMatchObject({ state: 'approved', endedBy: 'user' });
    expect(state.authCode).toMatch(/^\d{6}$/);
    expect(await (await fetch(c.challengeQRcodeUrl)).text()).toContain(
      `<div class="code" id="auth-code" aria-label="auth code">${state.authCode}</div>`,
    );
    const again = await post(`/phone/${c.challengeId}/deny`);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('Nothing changed: this request is already approved.');
    expect(sim.challenges().find((x) => x.id === c.challengeId)!.state).toBe('approved');
  });

  it('deny: the challenge is denied; an expired challenge cannot be answered', async () => {
    const c = await newChallenge();
    expect((await post(`/phone/${c.challengeId}/deny`)).status).toBe(303);
    expect(sim.challenges().find((x) => x.id === c.challengeId)!.state).toBe('denied');
    expect(await (await fetch(c.challengeQRcodeUrl)).text()).toContain('You denied this sign-in.');
    const late = await newChallenge();
    sim.advance('5m');
    const refused = await post(`/phone/${late.challengeId}/approve`);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('This sign-in request expired');
    expect(sim.challenges().find((x) => x.id === late.challengeId)!.state).toBe('expired');
  });

  it('an unknown challenge is a 404 page, for the page and its actions', async () => {
    expect((await fetch(`${sim.url}/phone/nope`)).status).toBe(404);
    const r = await post('/phone/nope/approve');
    expect(r.status).toBe(404);
    expect(await r.text()).toContain('No such challenge');
  });

  it('display names and sample e-mails are the same for the same seed, and differ between seeds', async () => {
    const { Simulator } = await import('../../src/simulator/simulator.js');
    const a = new Simulator({ seed: 5 }).world.people;
    const b = new Simulator({ seed: 5 }).world.people;
    const c = new Simulator({ seed: 6 }).world.people;
    expect(a.displayName('x@example.com')).toBe(b.displayName('x@example.com'));
    expect(a.emails(4)).toEqual(b.emails(4));
    expect(a.emails(4)).not.toEqual(c.emails(4));
    expect(a.emails(4).every((e) => e.endsWith('@example.com'))).toBe(true);
  });
});

describe('the explorer under another identifier token and the sdk response style', async () => {
  const sim = await simulator({ token: 'acme', responseStyle: 'sdk', secret: SECRET });

  it("signs the token's headers and user key, and reads the sdk envelope", async () => {
    const r = (await (
      await fetch(`${sim.url}/__sim/explore`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'challenge' }),
      })
    ).json()) as ExploreResult;
    const sent = r.exchanges[0].request;
    expect(sent.headers.authorization).toMatch(
      /^acme-hmac: apiuser=\d{9},signedheaders=x-acme-utctime;x-acme-cnonce,algorithm=acme-hmac512,signature=[0-9a-f]{128}$/,
    );
    expect(JSON.parse(sent.body!).body).toHaveProperty('acmeUser', 'user@example.com');
    expect(JSON.parse(r.exchanges[0].response.body)).toMatchObject({ code: 2025, utcTime: expect.any(String) });
  });
});

describe('the dashboard behind the control token', async () => {
  const sim = await simulator({ controlToken: 'open-sesame' });

  it('needs the token for the page, its fragment and the explorer; the phone page needs only the challenge id', async () => {
    for (const [method, path] of [
      ['GET', '/__sim/ui'],
      ['GET', '/__sim/ui/challenges'],
      ['POST', '/__sim/explore'],
    ]) {
      expect((await fetch(`${sim.url}${path}`, { method })).status, path).toBe(401);
    }
    const headers = { 'x-sim-control-token': 'open-sesame', 'content-type': 'application/json' };
    expect((await fetch(`${sim.url}/__sim/ui`, { headers })).status).toBe(200);
    const r = await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ kind: 'challenge' }),
    });
    const { challengeId } = JSON.parse(answered((await r.json()) as ExploreResult).message) as { challengeId: string };
    expect(
      (await fetch(`${sim.url}/phone/${challengeId}/approve`, { method: 'POST', redirect: 'manual' })).status,
    ).toBe(303);
  });

  it('a token cookie that does not decode is no token: 401, never a 500', async () => {
    for (const cookie of [
      'mfa_sim_control=%E0%A4%A',
      'mfa_sim_control=%',
      'mfa_sim_control=%ZZopen-sesame',
      'a=b; mfa_sim_control=%C0',
    ]) {
      const r = await fetch(`${sim.url}/__sim/ui`, { headers: { cookie } });
      expect(r.status, cookie).toBe(401);
      expect(await r.json()).toHaveProperty('error');
    }
    expect((await fetch(`${sim.url}/__sim/ui`, { headers: { cookie: 'mfa_sim_control=open-sesame' } })).status).toBe(
      200,
    );
  });
});

describe('faker stays out of start-up', () => {
  it('is loaded only when a page first needs it', async () => {
    const script = `
      const { createRequire } = await import('node:module');
      const cache = createRequire(import.meta.url).cache;
      const loaded = () => Object.keys(cache).some((k) => k.includes('@faker-js'));
      const { startSimulator } = await import(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'index.js'))});
      const sim = await startSimulator();
      await fetch(sim.url + '/v1/svc/time');
      const before = loaded();
      await fetch(sim.url + '/__sim/ui');
      console.log(JSON.stringify({ before, after: loaded() }));
      await sim.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(JSON.parse(stdout)).toEqual({ before: false, after: true });
    // and no static import would load it behind require's back
    expect(readFileSync(join(__dirname, '..', '..', 'dist', 'index.js'), 'utf8')).not.toMatch(
      /(from|import)\s*["']@faker-js/,
    );
  });
});

describe('the control API page (docs/control-api.md)', () => {
  it('documents every /__sim/ route and every phone route (method and path)', async () => {
    const { createApp } = await import('../../src/index.js');
    type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
    const routes: string[] = [];
    const walk = (stack: Layer[]) => {
      for (const l of stack) {
        if (l.route)
          for (const m of Object.keys(l.route.methods).filter((k) => k !== '_all'))
            routes.push(`${m.toUpperCase()} ${l.route.path}`);
        else if (l.handle?.stack) walk(l.handle.stack);
      }
    };
    walk((createApp() as unknown as { router: { stack: Layer[] } }).router.stack);
    const ours = routes.filter((r) => / \/(__sim|phone)\//.test(r));
    expect(ours.length).toBeGreaterThanOrEqual(25);
    const page = readFileSync(join(__dirname, '..', '..', 'docs', 'control-api.md'), 'utf8');
    expect(ours.filter((r) => !page.includes(`\`${r}\``))).toEqual([]);
  });
});

describe("the explorer's requests are the simulator's own, not the client's", async () => {
  const sim = await simulator({ secret: SECRET });
  const explore = async (kind: string) => {
    const r = await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind }),
    });
    expect(r.status).toBe(200);
    return (await r.json()) as ExploreResult;
  };

  it('its drifts, replay, bad signature and unfollowed challenge give no finding and no hint; the journal and the log line say who sent them', async () => {
    for (const kind of ['drift', 'drift', 'replay', 'bad-signature', 'challenge']) await explore(kind);
    const codes = sim.journal({ limit: 6 }).map((e) => e.code);
    expect(codes).toEqual([2025, -4037, -4034, 15000, -4036, -4036]);
    expect(sim.journal({ limit: 6 }).every((e) => e.by === 'explorer')).toBe(true);
    expect(formatLine(sim.journal({ limit: 1 })[0])).toMatch(
      /^\S+ POST \/v1\/svc\/challenge \d{9} \(explorer\) -> 202 2025 /,
    );
    expect(sim.findings(true)).toEqual([]);
    expect(sim.hints()).toEqual([]);
    // Over HTTP, as the dashboard reads them.
    expect(await (await fetch(`${sim.url}/__sim/findings`)).json()).toEqual({
      findings: [],
      hints: [],
      observerFailures: [],
    });
  });

  it('a client making the same mistakes with the same API user is still told, and its entries carry no `by`', async () => {
    const who = { apiUser: sim.apiUser.id, secret: SECRET };
    const late = sim.simulator.now() - sim.simulator.scenario.maxDrift - 60_000;
    for (const offset of [0, 1])
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who, time: late + offset }), 400, -4036);
    const [entry] = sim.journal({ limit: 1 });
    expect(entry.by).toBeUndefined();
    expect(formatLine(entry)).not.toContain('(explorer)');
    expect(sim.findings().map((f) => f.id)).toEqual(['drift-not-corrected']);
    expect(sim.hints().map((h) => [h.code, h.count])).toEqual([[-4036, 2]]);
  });
});
