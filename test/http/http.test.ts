import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp, signedHeaders } from '../../src/index.js';
import { challengeEnvelope, expectEnvelope, raw, send, simulator } from '../helpers.js';

const who = { apiUser: '123456789', secret: 'http-secret' };

describe('every answer of the API is a JSON envelope', async () => {
  const sim = await simulator({ apiUser: who.apiUser, secret: who.secret });

  it('404 for an unknown path, under /v1/ and elsewhere', async () => {
    expectEnvelope(await send(sim, '/v1/svc/challenges', { as: who, body: {} }), 404, -404);
    expectEnvelope(await send(sim, '/v2/svc/challenge', { as: who, body: {} }), 404, -404);
    expectEnvelope(await send(sim, '/wp-admin', { method: 'GET', as: false }), 404, -404);
  });

  it('OPTIONS: the API answers -405 as the service; a page answers 204 with its methods in Allow; no route stays -404', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'OPTIONS', as: who }), 405, -405);
    expectEnvelope(await send(sim, '/v1/svc/challenge', { method: 'OPTIONS', as: false }), 405, -405);
    for (const path of ['/', '/status?code=-4037', '/phone/any-id', '/favicon.ico', '/openapi.json']) {
      const r = await fetch(`${sim.url}${path}`, { method: 'OPTIONS' });
      expect(
        { status: r.status, allow: r.headers.get('allow'), type: r.headers.get('content-type'), body: await r.text() },
        path,
      ).toEqual({ status: 204, allow: 'GET, HEAD, OPTIONS', type: null, body: '' });
    }
    expectEnvelope(await send(sim, '/wp-admin', { method: 'OPTIONS', as: false }), 404, -404);
    expectEnvelope(await send(sim, '/phone/%ZZ', { method: 'OPTIONS', as: false }), 404, -404);
  });

  it("a page asked with a method it does not answer: 405 with Allow, a JSON error, not the API's -404 (never journaled)", async () => {
    const journaled = sim.journal().length;
    for (const [method, path, allow] of [
      ['GET', '/phone/any-id/approve', 'POST, OPTIONS'],
      ['PUT', '/phone/any-id', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/status', 'GET, HEAD, OPTIONS'],
      ['POST', '/openapi.json', 'GET, HEAD, OPTIONS'],
    ]) {
      const r = await fetch(`${sim.url}${path}`, { method });
      expect({ status: r.status, allow: r.headers.get('allow'), body: await r.json() }, `${method} ${path}`).toEqual({
        status: 405,
        allow,
        body: { error: `${method} \`${path}\`: this page answers ${allow.replace(', OPTIONS', '')}` },
      });
    }
    expect(sim.journal().length).toBe(journaled);
    // A path no page has is still the API's -404, journaled.
    expectEnvelope(await send(sim, '/phone', { method: 'PUT', as: false }), 404, -404);
    expectEnvelope(await send(sim, '/phone/%ZZ/approve', { method: 'GET', as: false }), 404, -404);
  });

  it('405 for a method an endpoint does not take (GET is taken by time only)', async () => {
    expectEnvelope(await send(sim, '/v1/svc/challenge', { method: 'PUT', as: who, body: {} }), 405, -405);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'DELETE', as: who }), 405, -405);
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who }), 200, 15000);
  });

  it('a body that is not JSON is judged after authentication (-5071), and a bad signature wins over it', async () => {
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: who, body: '<xml>no</xml>' }), 400, -5071);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: { ...who, secret: 'x' }, body: '<xml>no</xml>' }),
      400,
      -4037,
    );
  });

  it('a body over 64 KiB gets 413 (-413) and the connection is closed', async () => {
    const r = await send(sim, '/v1/svc/challenge', {
      as: who,
      body: JSON.stringify(challengeEnvelope(who.apiUser, { pad: 'x'.repeat(66_000) })),
    });
    expectEnvelope(r, 413, -413);
    expect(r.headers.connection).toBe('close');
    // The limit is on bytes received, whatever Content-Length claims.
    const chunked = await raw(
      sim.url,
      'POST',
      '/v1/svc/challenge',
      [['transfer-encoding', 'chunked']],
      'x'.repeat(70_000),
    );
    expectEnvelope(chunked, 413, -413);
    // A body under the limit is read whole.
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', {
        as: who,
        body: JSON.stringify(challengeEnvelope(who.apiUser, { pad: 'x'.repeat(60_000) })),
      }),
      202,
      2025,
    );
  });

  it('the time endpoint answers GET without a body, and POST with the documented envelope', async () => {
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who }), 200, 15000);
    expectEnvelope(
      await send(sim, '/v1/svc/time', { as: who, body: { apiUser: who.apiUser, type: 990, body: {} } }),
      200,
      15000,
    );
  });

  it('echoes the caller id, else gives a fresh reference', async () => {
    const e = expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: who, body: challengeEnvelope(who.apiUser, {}, { id: 'my-ref-42' }) }),
      202,
      2025,
    );
    expect(e.id).toBe('my-ref-42');
    const t = expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: who }), 200, 15000);
    expect(t.id).toMatch(/^sim-\d+$/);
  });

  it("moreInfo links to the simulator's own page for the code, which explains it in plain words", async () => {
    const e = expectEnvelope(
      await send(sim, '/v1/svc/time', { method: 'GET', as: { ...who, secret: 'nope' } }),
      400,
      -4037,
    );
    expect(e.moreInfo).toBe(`${sim.url}/status?code=-4037`);
    const page = await fetch(e.moreInfo);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('Signature error');
    expect(html).toContain('does not verify');
    const asJson = await fetch(e.moreInfo, { headers: { accept: 'application/json' } });
    expect(await asJson.json()).toMatchObject({ code: -4037, http: 400, check: 'signature' });
    const unknown = await fetch(`${sim.url}/status?code=12345`);
    expect(unknown.status).toBe(404);
    const all = await (await fetch(`${sim.url}/status`)).text();
    expect(all).toContain('-2038');
  });
});

describe('an internal failure is a -5000 envelope, never a stack trace', () => {
  it('answers HTTP 500 -5000 and journals the cause', async () => {
    const app = createApp({ apiUser: who.apiUser, secret: who.secret });
    app.simulator.world.challenges.make = () => {
      throw new Error('the challenge store is on fire');
    };
    const r = await request(app)
      .post('/v1/svc/challenge')
      .set(signedHeaders({ apiUser: who.apiUser, secret: who.secret, time: app.simulator.now() }))
      .send(challengeEnvelope(who.apiUser));
    expect(r.status).toBe(500);
    expect(Object.keys(r.body)).toEqual(['id', 'utctime', 'status', 'code', 'message', 'moreInfo']);
    expect(r.body).toMatchObject({ status: 500, code: -5000, message: 'Internal error' });
    expect(r.text).not.toMatch(/at .*\.ts|on fire/);
    expect(app.simulator.requestJournal.entries()[0]).toMatchObject({
      code: -5000,
      internalError: 'the challenge store is on fire',
    });
  });

  it('a failure outside the API (a page) is answered the same way', async () => {
    const app = createApp();
    app.simulator.findChallenge = () => {
      throw new Error('boom');
    };
    const r = await request(app).get('/phone/abc');
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.body.code).toBe(-5000);
    expect(r.text).not.toContain('boom');
  });
});
