import { describe, expect, it } from 'vitest';
import { formatLine } from '../../src/cli/log.js';
import { challengeEnvelope, expectEnvelope, send, simulator, type SendOptions } from '../helpers.js';

/**
 * A client configured for another identifier token than the simulator's (as a published client library set up for
 * the real service is): whichever place shows the other token (the path, a header name, the scheme, the algorithm,
 * signedheaders, the body's user field), the answer is the contract's envelope with a hint naming both tokens and
 * `--token <theirs>`, and the journal and the log line say the same. Started with that token, the simulator then
 * serves the same client.
 */

const SECRET = 'other-token-secret';

describe('a client configured for the token gridy, against a simulator with the default token', async () => {
  const sim = await simulator({ secret: SECRET });
  const as = { apiUser: sim.apiUser.id, secret: SECRET };

  /** Sends, checks the envelope and code, and returns the hint as the answer, the journal and the log line carry it. */
  const refused = async (path: string, code: number, http: number, opts: SendOptions) => {
    const r = expectEnvelope(await send(sim, path, { as, ...opts }), http, code);
    const [entry] = sim.journal({ limit: 1 });
    expect(entry.code).toBe(code);
    expect(entry.hint?.id).toBe('other-token');
    const hint = entry.hint!.text;
    expect(r.message.endsWith(`. Hint: ${hint}`)).toBe(true);
    expect(formatLine(entry)).toContain(`; hint: ${hint}`);
    expect(hint).toContain(
      'uses the token gridy, but this simulator runs with the token svc: start it with --token gridy',
    );
    return hint;
  };
  const svcBody = challengeEnvelope(sim.apiUser.id);
  const gridyBody = challengeEnvelope(sim.apiUser.id, {}, {}, 'gridy');

  it('in the path, /v1/gridy/time and /v1/gridy/challenge: -404 with the hint', async () => {
    expect(await refused('/v1/gridy/time', -404, 404, { method: 'GET', token: 'gridy' })).toMatch(
      /^the path \/v1\/gridy\/time uses/,
    );
    expect(await refused('/v1/gridy/challenge/?x=1', -404, 404, { token: 'gridy', body: gridyBody })).toMatch(
      /^the path \/v1\/gridy\/challenge uses/,
    );
  });

  it('in the scheme, gridy-hmac: and GRIDY-HMAC:, on the right path: -4001', async () => {
    expect(await refused('/v1/svc/time', -4001, 400, { method: 'GET', token: 'gridy' })).toMatch(
      /^the Authorization scheme uses/,
    );
    const upper: SendOptions['mutate'] = (h) => {
      h.Authorization = h.Authorization.replace('svc-hmac:', 'GRIDY-HMAC:');
    };
    expect(await refused('/v1/svc/time', -4001, 400, { method: 'GET', mutate: upper })).toMatch(
      /^the Authorization scheme uses/,
    );
  });

  it('in the header names, x-gridy-utctime, -cnonce, -apiuser, with the right scheme: -4004, -4006, -4008', async () => {
    for (const [name, code] of [
      ['utctime', -4004],
      ['cnonce', -4006],
      ['apiuser', -4008],
    ] as const) {
      const rename: SendOptions['mutate'] = (h) => {
        h[`x-gridy-${name}`] = h[`x-svc-${name}`];
        delete h[`x-svc-${name}`];
      };
      expect(await refused('/v1/svc/time', code, 400, { method: 'GET', mutate: rename })).toMatch(
        new RegExp(`^the header x-gridy-${name} uses`),
      );
    }
  });

  it('in any of the three header names, whichever one is missing', async () => {
    const cnonceOnly: SendOptions['mutate'] = (h) => {
      delete h['x-svc-utctime'];
      h['x-gridy-cnonce'] = h['x-svc-cnonce'];
      delete h['x-svc-cnonce'];
    };
    expect(await refused('/v1/svc/time', -4004, 400, { method: 'GET', mutate: cnonceOnly })).toMatch(
      /^the header x-gridy-cnonce uses/,
    );
  });

  it('in the Authorization parts, algorithm=gridy-hmac512 and signedheaders=x-gridy-…: -4031, -4033', async () => {
    const part =
      (from: string, to: string): SendOptions['mutate'] =>
      (h) => {
        h.Authorization = h.Authorization.replace(from, to);
      };
    expect(
      await refused('/v1/svc/time', -4031, 400, {
        method: 'GET',
        mutate: part('algorithm=svc-hmac512', 'algorithm=GRIDY-hmac512'),
      }),
    ).toMatch(/^the algorithm uses/);
    expect(
      await refused('/v1/svc/time', -4033, 400, {
        method: 'GET',
        mutate: part('x-svc-utctime;x-svc-cnonce', 'x-gridy-utctime;x-gridy-cnonce'),
      }),
    ).toMatch(/^signedheaders uses/);
  });

  it("in the body's user field, gridyUser: -5077", async () => {
    expect(await refused('/v1/svc/challenge', -5077, 400, { body: gridyBody })).toMatch(/^the body's gridyUser uses/);
  });

  it('names no token where none could be one, or where the request shows none', async () => {
    const bare = async (path: string, code: number, http: number, opts: SendOptions) => {
      expectEnvelope(await send(sim, path, { as, ...opts }), http, code);
      expect(sim.journal({ limit: 1 })[0].hint).toBeUndefined();
    };
    await bare('/v1/Gridy/time', -404, 404, { method: 'GET' });
    await bare('/v1/gridy/times', -404, 404, { method: 'GET' });
    await bare('/v1/svc/nothing', -404, 404, { method: 'GET' });
    await bare('/v1/svc/time', -4004, 400, { method: 'GET', mutate: (h) => delete h['x-svc-utctime'] });
    await bare('/v1/svc/time', -4004, 400, {
      method: 'GET',
      mutate: (h) => {
        h['x-gri-dy-utctime'] = h['x-svc-utctime'];
        delete h['x-svc-utctime'];
      },
    });
    await bare('/v1/svc/time', -4031, 400, {
      method: 'GET',
      mutate: (h) => {
        h.Authorization = h.Authorization.replace('svc-hmac512', 'svc-hmac256');
      },
    });
    // Two tokens in one signedheaders: not a client set up for another one.
    await bare('/v1/svc/time', -4033, 400, {
      method: 'GET',
      mutate: (h) => {
        h.Authorization = h.Authorization.replace('x-svc-utctime;x-svc-cnonce', 'x-gridy-utctime;x-acme-cnonce');
      },
    });
    await bare('/v1/svc/challenge', -5077, 400, {
      body: challengeEnvelope(sim.apiUser.id, { svcUser: undefined, user: 'user@example.com' }),
    });
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as, body: svcBody }), 202, 2025);
  });
});

describe('the advice works: started with --token gridy, the simulator serves that client', async () => {
  const sim = await simulator({ secret: SECRET, token: 'gridy' });
  const as = { apiUser: sim.apiUser.id, secret: SECRET };

  it('on /v1/gridy/… and on /v1/svc/…', async () => {
    expectEnvelope(await send(sim, '/v1/gridy/time', { method: 'GET', as }), 200, 15000);
    expectEnvelope(
      await send(sim, '/v1/gridy/challenge', { as, body: challengeEnvelope(as.apiUser, {}, {}, 'gridy') }),
      202,
      2025,
    );
    expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as }), 200, 15000);
    expect(sim.journal().map((e) => e.endpoint)).toEqual(['time', 'challenge', 'time']);
  });

  it('and names the default token the other way round', async () => {
    const r = expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as, token: 'svc' }), 400, -4001);
    expect(r.message).toContain(
      'the Authorization scheme uses the token svc, but this simulator runs with the token gridy: start it with --token svc',
    );
    expect(sim.journal({ limit: 1 })[0].hint?.id).toBe('other-token');
  });

  it('a path under a third token is named against this one', async () => {
    const r = expectEnvelope(await send(sim, '/v1/acme/time', { method: 'GET', as }), 404, -404);
    expect(r.message).toContain(
      'the path /v1/acme/time uses the token acme, but this simulator runs with the token gridy',
    );
  });
});

describe("under another token, a rule on the user reads the body's <token>User", async () => {
  const sim = await simulator({
    secret: SECRET,
    token: 'gridy',
    rules: [{ name: 'by user', when: { svcUser: 'held@example.com' }, respond: { code: -2004 } }],
  });
  const as = { apiUser: sim.apiUser.id, secret: SECRET };
  const challenge = (user: string) =>
    send(sim, '/v1/gridy/challenge', { as, body: challengeEnvelope(as.apiUser, { gridyUser: user }, {}, 'gridy') });

  it('matches gridyUser, written plainly or in Base64, and no other user', async () => {
    expectEnvelope(await challenge('held@example.com'), 400, -2004);
    expectEnvelope(await challenge(Buffer.from('held@example.com').toString('base64')), 400, -2004);
    expectEnvelope(await challenge('other@example.com'), 202, 2025);
  });
});
