import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/http/server.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

describe('the control API (/__sim/)', async () => {
  const sim = await simulator({ secret: 'ctl-secret' });
  const who = { apiUser: sim.apiUser.id, secret: 'ctl-secret' };
  const call = async (method: string, path: string, body?: unknown, type = 'application/json') => {
    const r = await fetch(`${sim.url}/__sim/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': type },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> & unknown[] };
  };

  it('loads a shipped scenario by name, resetting the world', async () => {
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', {
        as: who,
        body: challengeEnvelope(who.apiUser, { svcUser: 'locked@example.com' }),
      }),
      202,
      2025,
    );
    expect(sim.challenges()).toHaveLength(1);
    expect(await call('POST', 'scenario', { name: 'locked-account' })).toMatchObject({
      status: 200,
      body: { active: 'locked-account' },
    });
    expect(sim.challenges()).toHaveLength(0);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', {
        as: who,
        body: challengeEnvelope(who.apiUser, { svcUser: 'locked@example.com' }),
      }),
      400,
      -2006,
    );
  });

  it('loads a scenario from a YAML body, and refuses a broken one with line and key', async () => {
    const ok = await call(
      'POST',
      'scenario',
      'name: from-yaml\naccounts:\n  "*@example.com": disabled\n',
      'application/yaml',
    );
    expect(ok).toMatchObject({ status: 200, body: { active: 'from-yaml' } });
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: who, body: challengeEnvelope(who.apiUser) }), 400, -2007);
    const bad = await call('POST', 'scenario', 'name: broken\nclock:\n  maxDrift: 5 minutes please\n', 'text/yaml');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/request body:3: clock\.maxDrift: `5 minutes please` is not a duration/);
    expect((await call('GET', 'scenarios')).body).toMatchObject({ active: 'from-yaml' });
    // Every YAML type a client may label it with; text that is not a mapping is told so with its line, and a JSON
    // body that is not an object as on every route.
    for (const type of ['application/x-yaml', 'text/plain']) {
      expect(await call('POST', 'scenario', `name: as-${type.replace('/', '-')}\n`, type), type).toMatchObject({
        status: 200,
        body: { active: `as-${type.replace('/', '-')}` },
      });
    }
    expect(await call('POST', 'scenario', '"default"', 'text/plain')).toMatchObject({
      status: 400,
      body: { error: 'request body:1: must be a mapping (key: value)' },
    });
    expect(await call('POST', 'scenario', '"default"')).toMatchObject({
      status: 400,
      body: { error: 'the body must be a JSON object, not string' },
    });
    expect(
      await call('POST', 'scenario', JSON.stringify({ name: 'big', description: 'x'.repeat(1024 * 1024) })),
    ).toEqual({ status: 413, body: { error: 'the body is larger than 1048576 bytes' } });
  });

  it('keeps the default API user when loading a scenario that lists none', async () => {
    expect((await call('POST', 'scenario', { name: 'default' })).status).toBe(200);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who }), 200, 15000);
  });

  it('lists scenarios: the active one, bindings, and the shipped ones with their stories', async () => {
    const list = (await call('GET', 'scenarios')).body as unknown as {
      active: string;
      shipped: { name: string; description: string }[];
    };
    expect(list.active).toBe('default');
    expect(list.shipped.find((s) => s.name === 'clock-ahead')?.description).toMatch(/10 minutes ahead/);
  });

  it('filters the journal by code and API user, and clears it; never shows a secret', async () => {
    await call('DELETE', 'journal');
    await send(sim, '/v1/svc/time', { method: 'GET', as: who });
    await send(sim, '/v1/svc/time', { method: 'GET', as: { ...who, secret: 'wrong' } });
    await send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: '999999999', secret: 'x' } });
    const all = (await call('GET', 'journal')).body as unknown as {
      code: number;
      apiUser: string;
      expectedStringToSign?: string;
    }[];
    expect(all.map((e) => e.code)).toEqual([-1001, -4037, 15000]);
    const sig = (await call('GET', 'journal?code=-4037')).body as unknown as typeof all;
    expect(sig).toHaveLength(1);
    expect(sig[0].expectedStringToSign).toMatch(/^x-svc-utctime: \d+\nx-svc-cnonce: [0-9a-f-]{36}$/);
    expect((await call('GET', `journal?apiUser=${who.apiUser}&code=15000,-4037`)).body).toHaveLength(2);
    expect(JSON.stringify(all)).not.toContain('ctl-secret');
    expect((await call('GET', 'journal?code=abc')).status).toBe(400);
    // A filter given twice would read as a list, match nothing and answer the whole journal: refused instead.
    for (const query of [`apiUser=${who.apiUser}&apiUser=999999999`, 'code=15000&code=-4037', 'limit=1&limit=2']) {
      const name = query.slice(0, query.indexOf('='));
      expect(await call('GET', `journal?${query}`), query).toEqual({
        status: 400,
        body: {
          error: `${name} is given more than once: give it once (a comma-separated list where it takes several)`,
        },
      });
    }
    await call('DELETE', 'journal');
    expect((await call('GET', 'journal')).body).toHaveLength(0);
  });

  it('journal filters: limit is a whole number, code a list of codes; anything else is a 400 naming the filter', async () => {
    await call('DELETE', 'journal');
    for (let i = 0; i < 3; i++) await send(sim, '/v1/svc/time', { method: 'GET', as: who });
    await send(sim, '/v1/svc/time', { method: 'GET', as: { ...who, secret: 'wrong' } });
    const seqs = (q: string) =>
      call('GET', `journal${q}`).then((r) => (r.body as unknown as { seq: number; code: number }[]).map((e) => e.code));
    expect(await seqs('?limit=2')).toEqual([-4037, 15000]);
    expect(await seqs('?limit=0')).toEqual([]);
    expect(await seqs('?code=15000&limit=1')).toEqual([15000]);
    expect(await seqs('?code=')).toEqual([-4037, 15000, 15000, 15000]);
    expect(await seqs('?limit=')).toEqual([-4037, 15000, 15000, 15000]);
    expect(await seqs('?limit=10')).toEqual([-4037, 15000, 15000, 15000]);
    for (const bad of ['-1', '1.5', 'abc', '0x10', '1e3', '%205']) {
      expect(await call('GET', `journal?limit=${bad}`), bad).toEqual({
        status: 400,
        body: { error: 'limit must be a whole number' },
      });
    }
    for (const bad of ['15000,abc', 'abc,15000', '1.5']) {
      expect(await call('GET', `journal?code=${bad}`), bad).toEqual({
        status: 400,
        body: { error: 'code must be a code or a comma-separated list of codes' },
      });
    }
  });

  it("shows a challenge's times as ISO instants, and only those it has", async () => {
    expect((await call('POST', 'scenario', { name: 'default' })).status).toBe(200);
    const made = await send(sim, '/v1/svc/challenge', {
      as: who,
      body: challengeEnvelope(who.apiUser, { enableAutoVerify: true }),
    });
    const id = JSON.parse(expectEnvelope(made, 202, 2025).message).challengeId as string;
    const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    const waiting = ((await call('GET', 'challenges')).body as unknown as Record<string, unknown>[]).find(
      (c) => c.id === id,
    )!;
    expect(waiting).toMatchObject({
      state: 'waiting',
      createdAt: expect.stringMatching(iso),
      expiresAt: expect.stringMatching(iso),
      autoVerifyAt: expect.stringMatching(iso),
    });
    expect(waiting).not.toHaveProperty('endedAt');
    const denied = (await call('POST', `challenges/${id}/deny`)).body;
    expect(denied).toMatchObject({ state: 'denied', endedAt: expect.stringMatching(iso), endedBy: expect.any(String) });
    const plain = await send(sim, '/v1/svc/challenge', { as: who, body: challengeEnvelope(who.apiUser) });
    const plainId = JSON.parse(expectEnvelope(plain, 202, 2025).message).challengeId as string;
    const shown = ((await call('GET', 'challenges')).body as unknown as Record<string, unknown>[]).find(
      (c) => c.id === plainId,
    )!;
    expect(shown).not.toHaveProperty('autoVerifyAt');
    expect(shown).not.toHaveProperty('endedAt');
  });

  it('freezes, advances and unfreezes the clock', async () => {
    // Frozen where it stands when no instant is sent; advancing needs its step.
    const before = Date.now();
    const here = await call('POST', 'clock/freeze');
    expect(here.body).toMatchObject({ frozen: true });
    expect(Math.abs((here.body.now as number) - before)).toBeLessThan(2000);
    expect(await call('POST', 'clock/advance', {})).toEqual({
      status: 400,
      body: { error: 'send { "by": "5m" } (a duration, or milliseconds)' },
    });
    expect(await call('POST', 'clock/advance')).toEqual({
      status: 400,
      body: { error: 'send { "by": "5m" } (a duration, or milliseconds)' },
    });
    const frozen = await call('POST', 'clock/freeze', { at: '2030-01-01T00:00:00.000Z' });
    expect(frozen.body).toMatchObject({ iso: '2030-01-01T00:00:00.000Z', frozen: true });
    expect((await call('POST', 'clock/advance', { by: '90s' })).body).toMatchObject({
      iso: '2030-01-01T00:01:30.000Z',
    });
    expect((await call('POST', 'clock/advance', { by: 'soon' })).status).toBe(400);
    expect((await call('POST', 'clock/unfreeze')).body).toMatchObject({ frozen: false });
    expect((await call('POST', 'reset')).status).toBe(200);
    expect(Math.abs(sim.simulator.now() - Date.now())).toBeLessThan(2000);
  });

  it('refuses changes a page of another site sends (cross-site request forgery), and allows its own pages and scripts', async () => {
    const post = (headers: Record<string, string>) => fetch(`${sim.url}/__sim/reset`, { method: 'POST', headers });
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'same-origin', origin: sim.url })).status).toBe(200);
    expect((await post({ origin: sim.url })).status).toBe(200);
    expect((await post({})).status).toBe(200);
    expect((await fetch(`${sim.url}/__sim/scenarios`, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(
      200,
    );
  });

  it('answers unknown challenges and bad bodies with a JSON error', async () => {
    expect(await call('POST', 'challenges/nope/approve')).toMatchObject({
      status: 404,
      body: { error: 'no challenge nope' },
    });
    expect((await call('POST', 'scenario', '{not json', 'application/json')).status).toBe(400);
    // JSON of the wrong kind is told so, not that it is not JSON.
    for (const route of ['clock/advance', 'clock/freeze', 'challenges/any/approve', 'explore']) {
      for (const [body, kind] of [
        ['null', 'null'],
        ['5', 'number'],
        ['"time"', 'string'],
        ['true', 'boolean'],
        // An array's own methods (`at`) must not be read as the body's fields.
        ['[1]', 'an array'],
        ['[]', 'an array'],
      ]) {
        expect(await call('POST', route, body), `${route} ${body}`).toEqual({
          status: 400,
          body: { error: `the body must be a JSON object, not ${kind}` },
        });
      }
      const broken = await call('POST', route, '{"by": 5m}');
      expect(broken.status).toBe(400);
      expect(broken.body.error).toMatch(/^the body is not JSON: /);
    }
  });

  it('answers a control URL no route has with a JSON 404, and a route asked with another method with 405 and Allow; neither is journaled', async () => {
    await call('DELETE', 'journal');
    const before = (await call('GET', 'coverage')).body as unknown as { counts: Record<string, number> };
    const missing = async (method: string, path: string) => {
      const r = await fetch(`${sim.url}${path}`, { method });
      return {
        status: r.status,
        allow: r.headers.get('allow'),
        type: r.headers.get('content-type'),
        body: await r.json(),
      };
    };
    const json = 'application/json; charset=utf-8';
    for (const path of ['/__sim', '/__sim/', '/__sim/nothing', '/__sim/clock/backwards', '/__sim/%ZZ']) {
      expect(await missing('GET', `${path}?token=x&why=query`), path).toEqual({
        status: 404,
        allow: null,
        type: json,
        body: {
          error: `no control route at \`${path}\`: the control API's routes are described at /__sim/openapi.json, and the dashboard is /__sim/ui`,
        },
      });
    }
    for (const [method, path, allow] of [
      ['PUT', '/__sim/reset', 'POST'],
      ['GET', '/__sim/reset', 'POST'],
      ['POST', '/__sim/journal', 'GET, DELETE, HEAD'],
      ['POST', '/__sim/bindings/123456789', 'PUT, DELETE'],
      ['GET', '/__sim/challenges/any-id/approve', 'POST'],
      ['DELETE', '/__sim/health', 'GET, HEAD'],
      ['PATCH', '/__sim/clock', 'GET, HEAD'],
    ]) {
      expect(await missing(method, `${path}?limit=5`), `${method} ${path}`).toEqual({
        status: 405,
        // OPTIONS is answered there too (RFC 9110: Allow lists every method the path supports).
        allow: `${allow}, OPTIONS`,
        type: json,
        body: { error: `${method} \`${path}\`: this control route answers ${allow}` },
      });
    }
    expect((await call('GET', 'journal')).body).toEqual([]);
    expect((await call('GET', 'coverage')).body).toMatchObject({ counts: before.counts });
  });

  it('answers OPTIONS on a control route with 204, its methods in Allow and no body; a path with no route stays a JSON 404', async () => {
    const options = async (path: string) => {
      const r = await fetch(`${sim.url}${path}`, { method: 'OPTIONS' });
      return {
        status: r.status,
        allow: r.headers.get('allow'),
        type: r.headers.get('content-type'),
        body: await r.text(),
      };
    };
    for (const [path, allow] of [
      ['/__sim/journal', 'GET, DELETE, HEAD, OPTIONS'],
      ['/__sim/reset', 'POST, OPTIONS'],
      ['/__sim/bindings/123456789', 'PUT, DELETE, OPTIONS'],
      ['/__sim/challenges/any-id/approve?x=1', 'POST, OPTIONS'],
      ['/__sim/ui', 'GET, HEAD, OPTIONS'],
    ]) {
      expect(await options(path), path).toEqual({ status: 204, allow, type: null, body: '' });
    }
    for (const path of ['/__sim/nothing', '/__sim/journal/extra', '/__sim/%ZZ']) {
      const r = await options(path);
      expect(r.status, path).toBe(404);
      expect(JSON.parse(r.body).error, path).toMatch(/^no control route at /);
    }
    // A path parameter that does not decode: the same JSON 400 as any other method gets, not an envelope.
    for (const [path, param] of [
      ['/__sim/bindings/%ZZ', '%ZZ'],
      ['/__sim/challenges/%E0%A4%A/approve', '%E0%A4%A'],
    ]) {
      const r = await options(path);
      expect({ status: r.status, type: r.type, body: JSON.parse(r.body) }, path).toEqual({
        status: 400,
        type: 'application/json; charset=utf-8',
        body: { error: `Failed to decode param '${param}'` },
      });
    }
    expect((await call('GET', 'journal')).body).toEqual([]);
  });
});

describe('the control token', async () => {
  const sim = await simulator({ controlToken: 'let-me-in' });

  it('is required when set (it is set by default when listening beyond loopback)', async () => {
    expect((await fetch(`${sim.url}/__sim/scenarios`)).status).toBe(401);
    expect((await fetch(`${sim.url}/__sim/scenarios`, { headers: { 'x-sim-control-token': 'wrong' } })).status).toBe(
      401,
    );
    expect(
      (await fetch(`${sim.url}/__sim/scenarios`, { headers: { 'x-sim-control-token': 'let-me-in' } })).status,
    ).toBe(200);
    const viaQuery = await fetch(`${sim.url}/__sim/scenarios?token=let-me-in`);
    expect(viaQuery.status).toBe(200);
    const cookie = viaQuery.headers.get('set-cookie')!.split(';')[0];
    expect((await fetch(`${sim.url}/__sim/journal`, { headers: { cookie } })).status).toBe(200);
  });

  it('knows which addresses are loopback', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(
      ['0.0.0.0', '192.168.1.10', '::', 'example.com', '::ffff:192.168.1.10', '::ffff:0.0.0.0'].some(isLoopback),
    ).toBe(false);
  });
});
