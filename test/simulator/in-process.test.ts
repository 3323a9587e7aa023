import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp, signedHeaders, startSimulator } from '../../src/index.js';
import { challengeEnvelope, expectEnvelope, send } from '../helpers.js';

describe('in-process use', () => {
  it('createApp returns an Express app that supertest can drive', async () => {
    const app = createApp({ apiUser: '123456789', secret: 'supertest-secret' });
    const r = await request(app)
      .post('/v1/svc/challenge')
      .set(signedHeaders({ apiUser: '123456789', secret: 'supertest-secret', time: app.simulator.now() }))
      .send(challengeEnvelope('123456789'));
    expect(r.status).toBe(202);
    expect(r.body.code).toBe(2025);
    expect(JSON.parse(r.body.message).challengeQRcodeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/phone\//);
  });

  it('createApp mounted under a prefix of another Express app keeps its control routes and their 405', async () => {
    const host = express();
    host.use('/mock', createApp({ apiUser: '123456789', secret: 'supertest-secret' }));
    expect((await request(host).get('/mock/__sim/health')).body).toEqual({ ok: true, scenario: 'default' });
    const wrong = await request(host).put('/mock/__sim/reset');
    expect([wrong.status, wrong.headers.allow, wrong.body]).toEqual([
      405,
      'POST, OPTIONS',
      { error: 'PUT `/mock/__sim/reset`: this control route answers POST' },
    ]);
    expect((await request(host).get('/mock/__sim/nothing')).status).toBe(404);
  });

  it('takes an IPv6 address as a URL writes it, [::1], as the same address as ::1', async () => {
    const outcome = (host: string) =>
      startSimulator({ host }).then(
        async (sim) => {
          const shape = {
            url: sim.url.replace(/:\d+$/, ':<port>'),
            host: sim.host,
            controlToken: sim.controlToken,
            time: (await send(sim, '/v1/svc/time', { method: 'GET' })).status,
          };
          await sim.close();
          return shape;
        },
        (e: NodeJS.ErrnoException) => ({ error: e.code }),
      );
    const bare = await outcome('::1');
    expect(await outcome('[::1]')).toEqual(bare);
    // Where the machine has IPv6 loopback (this one does), both listen there, as loopback: no control token.
    if (!('error' in bare))
      expect(bare).toEqual({ url: 'http://[::1]:<port>', host: '::1', controlToken: undefined, time: 200 });
    // Brackets around anything but an IPv6 address are no address: `[]` must not become the empty host (every
    // interface).
    for (const host of ['[]', '[ ]', '[localhost]', '[[::1]]'])
      expect(await outcome(host), host).toEqual({ error: 'ENOTFOUND' });
  });

  it('startSimulator resolves to { url, port, close() } with a free port and the API user to sign with', async () => {
    const sim = await startSimulator();
    try {
      expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
      expect(sim.apiUser.id).toBe('123456789');
      expect(sim.apiUser.secret.length).toBeGreaterThanOrEqual(24);
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    } finally {
      await sim.close();
    }
    await expect(fetch(`${sim.url}/v1/svc/time`)).rejects.toThrow();
  });

  it('takes a path to a scenario file, or a shipped name with keys on top', async () => {
    const file = join(__dirname, '..', '..', 'scenarios', 'locked-account.yaml');
    const a = await startSimulator(file);
    const b = await startSimulator({ scenario: 'locked-account', strict: true, secret: 'b-secret' });
    try {
      expect(a.simulator.scenario.name).toBe('locked-account');
      expect(b.simulator.scenario.strict).toBe(true);
      expect(b.apiUser.secret).toBe('b-secret');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('runs many simulators in one process without sharing anything', async () => {
    const sims = await Promise.all(
      [1, 2, 3].map((i) =>
        startSimulator({ secret: `secret-${i}`, accounts: i === 2 ? { 'user@example.com': 'locked' } : {} }),
      ),
    );
    try {
      const nonce = 'abcdef01-2345-4678-9abc-def012345678';
      const time = sims[0].simulator.now();
      // The same nonce and time in each: no replay across simulators; each its own accounts and secret.
      const codes = await Promise.all(
        sims.map((s) =>
          send(s, '/v1/svc/challenge', { nonce, time, body: challengeEnvelope(s.apiUser.id) }).then((r) => r.json.code),
        ),
      );
      expect(codes).toEqual([2025, -2006, 2025]);
      expectEnvelope(
        await send(sims[0], '/v1/svc/time', { method: 'GET', as: { apiUser: '123456789', secret: 'secret-2' } }),
        400,
        -4037,
      );
      expect(sims.map((s) => s.simulator.challenges().length)).toEqual([1, 0, 1]);
      sims[0].simulator.clock.advance(3_600_000);
      expect(Math.abs(sims[1].simulator.now() - Date.now())).toBeLessThan(1000);
    } finally {
      await Promise.all(sims.map((s) => s.close()));
    }
  });
});
