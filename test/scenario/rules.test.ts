import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadScenarioText, signedHeaders, type RunningSimulator, type StartOptions } from '../../src/index.js';
import {
  cancelEnvelope,
  challengeEnvelope,
  clientTime,
  expectEnvelope,
  lookupEnvelope,
  send,
  simulator,
  withSimulator,
  type SendOptions,
} from '../helpers.js';

const A = { apiUser: '123456789', secret: 'rules-a' };
const B = { apiUser: '987654321', secret: 'rules-b' };

const challenge = (sim: RunningSimulator, body: Record<string, unknown> = {}, opts: SendOptions = {}) =>
  send(sim, '/v1/svc/challenge', { as: A, ...opts, body: challengeEnvelope((opts.as || A).apiUser, body) });
const time = (sim: RunningSimulator, opts: SendOptions = {}) =>
  send(sim, '/v1/svc/time', { method: 'GET', as: A, ...opts });
const users = [
  { id: A.apiUser, secret: A.secret },
  { id: B.apiUser, secret: B.secret },
];

describe('rules: what a rule matches', async () => {
  const sim = await simulator({
    name: 'matching',
    apiUsers: users,
    rules: [
      {
        name: 'by endpoint',
        when: { endpoint: 'blocked' },
        respond: { code: -5000, message: 'blocked endpoint is down' },
      },
      { name: 'by type', when: { type: 151 }, respond: { code: -2035 } },
      { name: 'by API user', when: { apiUser: B.apiUser, endpoint: 'time' }, respond: { code: -1003 } },
      { name: 'by exact user', when: { svcUser: 'Exact@Example.com' }, respond: { code: -2004 } },
      { name: 'by user glob', when: { svcUser: '*@glob.example' }, respond: { code: -2007 } },
      { name: 'by challenge type', when: { challengeType: 'UserKeyAndUserFace' }, respond: { code: -5076 } },
      { name: 'by header', when: { headers: { 'X-Test-Case': 'drift-*' } }, respond: { code: -4036 } },
      { name: 'forced only where it exists', respond: { code: -3091 }, when: { headers: { 'x-scope': 'yes' } } },
    ],
  });

  it('matches the endpoint, with a custom message', async () => {
    const r = await send(sim, '/v1/svc/blocked', {
      as: A,
      body: { apiUser: A.apiUser, type: 950, body: { ipAddress: '192.0.2.1', svcUser: 'u@example.com' } },
    });
    expect(expectEnvelope(r, 500, -5000).message).toBe('blocked endpoint is down');
  });

  it('matches the envelope type', async () => {
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: A, body: cancelEnvelope(A.apiUser, 'x') }), 400, -2035);
    expectEnvelope(await challenge(sim), 202, 2025);
  });

  it('matches the API user', async () => {
    expectEnvelope(await time(sim, { as: B }), 400, -1003);
    expectEnvelope(await time(sim), 200, 15000);
  });

  it("matches the body's user, exactly (case-insensitive) or by glob", async () => {
    expectEnvelope(await challenge(sim, { svcUser: 'exact@example.COM' }), 400, -2004);
    expectEnvelope(await challenge(sim, { svcUser: 'anyone@glob.example' }), 400, -2007);
    expectEnvelope(await challenge(sim, { svcUser: 'anyone@other.example' }), 202, 2025);
  });

  it("matches the body's user written in Base64, as a published client sends it, read as the address it stands for", async () => {
    const base64 = (address: string) => Buffer.from(address).toString('base64');
    expectEnvelope(await challenge(sim, { svcUser: base64('Exact@example.com') }), 400, -2004);
    expectEnvelope(await challenge(sim, { svcUser: base64('someone@glob.example') }), 400, -2007);
    expectEnvelope(await challenge(sim, { svcUser: base64('someone@other.example') }), 202, 2025);
  });

  it('matches the challenge type', async () => {
    expectEnvelope(await challenge(sim, { challengeType: 'UserKeyAndUserFace' }), 400, -5076);
  });

  it('matches any header, name case-insensitive, value exact or glob', async () => {
    expectEnvelope(await time(sim, { headers: { 'x-test-case': 'drift-ahead' } }), 400, -4036);
    expectEnvelope(await time(sim, { headers: { 'x-test-case': 'other' } }), 200, 15000);
  });

  it('applies a forced code only to requests it exists for (-3091: status and verify)', async () => {
    expectEnvelope(await time(sim, { headers: { 'x-scope': 'yes' } }), 200, 15000);
    const made = JSON.parse(expectEnvelope(await challenge(sim), 202, 2025).message) as { challengeId: string };
    const status = await send(sim, '/v1/svc/status', {
      as: A,
      headers: { 'x-scope': 'yes' },
      body: lookupEnvelope(A.apiUser, 171, made.challengeId),
    });
    expectEnvelope(status, 400, -3091);
  });

  it('writes the deciding rule in the journal', async () => {
    await time(sim, { headers: { 'x-test-case': 'drift-x' } });
    expect(sim.journal({ limit: 1 })[0]).toMatchObject({ rule: 'by header', code: -4036 });
  });
});

describe('rules: counting (times, after, every) and the first match deciding', () => {
  it('times: N applies to the first N matching requests only', () =>
    withSimulator({ rules: [{ times: 2, respond: { code: -5000 } }] }, async (sim) => {
      const codes = [];
      for (let i = 0; i < 4; i++)
        codes.push((await time(sim, { as: { apiUser: sim.apiUser.id, secret: sim.apiUser.secret } })).json.code);
      expect(codes).toEqual([-5000, -5000, 15000, 15000]);
    }));

  it('after: N lets the first N through; every: N applies to every Nth', () =>
    withSimulator(
      { rules: [{ when: { endpoint: 'time' }, after: 2, every: 2, respond: { code: -4034 } }] },
      async (sim) => {
        const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
        const codes = [];
        for (let i = 0; i < 7; i++) codes.push((await time(sim, { as: who })).json.code);
        expect(codes).toEqual([15000, 15000, 15000, -4034, 15000, -4034, 15000]);
      },
    ));

  it('the first rule that matches and applies decides; a rule whose count is spent passes the request on', () =>
    withSimulator('flaky-network', async (sim) => {
      const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
      await expect(time(sim, { as: who })).rejects.toMatchObject({ code: 'ECONNRESET' });
      const second = await time(sim, { as: who });
      expect(second.status).toBe(503);
      expect(second.headers['content-type']).toMatch(/text\/html/);
      expectEnvelope(await time(sim, { as: who }), 200, 15000);
      expect(sim.journal().map((e) => e.rule ?? e.code)).toEqual([
        15000,
        "second request meets a proxy's 503 page",
        'first request is cut by a connection reset',
      ]);
    }));

  it('lock-after-three: the fourth challenge of lockme@example.com is refused, others go on', () =>
    withSimulator({ scenario: 'lock-after-three', secret: 's' }, async (sim) => {
      const who = { apiUser: sim.apiUser.id, secret: 's' };
      const codes = [];
      for (let i = 0; i < 5; i++)
        codes.push((await challenge(sim, { svcUser: 'lockme@example.com' }, { as: who })).json.code);
      expect(codes).toEqual([2025, 2025, 2025, -2006, -2006]);
      expectEnvelope(await challenge(sim, { svcUser: 'other@example.com' }, { as: who }), 202, 2025);
    }));

  it('nonce-collisions: every 25th request gets -4034, and its retry goes through', () =>
    withSimulator({ scenario: 'nonce-collisions', secret: 's' }, async (sim) => {
      const who = { apiUser: sim.apiUser.id, secret: 's' };
      const codes: number[] = [];
      for (let i = 0; i < 50; i++) codes.push((await time(sim, { as: who })).json.code);
      expect(codes[24]).toBe(-4034);
      expect(codes[49]).toBe(-4034);
      expect(codes.filter((c) => c === -4034)).toHaveLength(2);
      expect(codes.filter((c) => c === -4035)).toHaveLength(1);
    }));
});

describe('rules: latency', () => {
  it('a delay-only rule slows the request and lets it go on as normal', () =>
    withSimulator({ rules: [{ delay: '300ms' }] }, async (sim) => {
      const started = performance.now();
      expectEnvelope(await time(sim, { as: { apiUser: sim.apiUser.id, secret: sim.apiUser.secret } }), 200, 15000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    }));

  it('a range gives jitter inside it, and combines with a forced code', () =>
    withSimulator({ rules: [{ delay: { min: '100ms', max: '250ms' }, respond: { code: -5000 } }] }, async (sim) => {
      const started = performance.now();
      expectEnvelope(await time(sim, { as: { apiUser: sim.apiUser.id, secret: sim.apiUser.secret } }), 500, -5000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    }));
});

/** A real HTTP client, to observe what a fault does on the wire. */
function rawGet(sim: RunningSimulator, timeoutMs: number): Promise<{ status?: number; body: string; error?: string }> {
  return new Promise((resolve) => {
    const headers = signedHeaders({ apiUser: sim.apiUser.id, secret: sim.apiUser.secret, time: clientTime(sim) });
    const req = request(`${sim.url}/v1/svc/time`, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, body }));
      res.on('error', (e) =>
        resolve({ status: res.statusCode, body, error: (e as NodeJS.ErrnoException).code ?? e.message }),
      );
      res.on('aborted', () => resolve({ status: res.statusCode, body, error: 'aborted' }));
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy(new Error('client timeout'));
    });
    req.on('error', (e) => resolve({ body: '', error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end();
  });
}

describe('rules: wire faults, as a real HTTP client sees them', () => {
  const fault = (f: string, extra: Record<string, unknown> = {}) =>
    ({ rules: [{ fault: f, ...extra }] }) as StartOptions;

  it('reset: the connection is reset', () =>
    withSimulator(fault('reset'), async (sim) => {
      expect((await rawGet(sim, 2000)).error).toBe('ECONNRESET');
    }));

  it('hang: no answer until the client gives up', () =>
    withSimulator(fault('hang'), async (sim) => {
      const r = await rawGet(sim, 300);
      expect(r.error).toBe('client timeout');
      expect(r.status).toBeUndefined();
    }));

  it('hang is bounded: after hangFor the simulator closes the connection', () =>
    withSimulator(fault('hang', { hangFor: '200ms' }), async (sim) => {
      const r = await rawGet(sim, 5000);
      expect(r.error).toBe('ECONNRESET');
    }));

  it('truncate: the body stops half-way and the connection closes', () =>
    withSimulator(fault('truncate'), async (sim) => {
      const r = await rawGet(sim, 2000);
      expect(r.status).toBe(200);
      expect(r.error).toBeDefined();
      expect(() => JSON.parse(r.body)).toThrow();
      expect(r.body.startsWith('{"id":')).toBe(true);
    }));

  it('garbage: the answer is not JSON', () =>
    withSimulator(fault('garbage'), async (sim) => {
      const r = await rawGet(sim, 2000);
      expect(r.status).toBe(200);
      expect(() => JSON.parse(r.body)).toThrow();
    }));

  for (const status of [502, 503, 504]) {
    it(`proxy-${status}: an HTML page with HTTP ${status}, as a proxy sends it`, () =>
      withSimulator(fault(`proxy-${status}`), async (sim) => {
        const r = await rawGet(sim, 2000);
        expect(r.status).toBe(status);
        expect(r.body).toMatch(new RegExp(`<title>${status} `));
      }));
  }
});

describe('authentication modes', () => {
  it('log: any signature is accepted, and the journal says what would have failed', () =>
    withSimulator({ auth: 'log', secret: 'real' }, async (sim) => {
      const r = await time(sim, {
        as: { apiUser: sim.apiUser.id, secret: 'wrong' },
        time: sim.simulator.now() - 3_600_000,
      });
      expectEnvelope(r, 200, 15000);
      const e = sim.journal({ limit: 1 })[0];
      expect(e.wouldFail?.map((w) => w.code)).toEqual([-4036, -4037]);
      expect(e.expectedStringToSign).toMatch(/^x-svc-utctime: /);
      expectEnvelope(await time(sim, { mutate: (h) => (h.Authorization = 'garbage') }), 200, 15000);
      expect(sim.journal({ limit: 1 })[0].wouldFail?.map((w) => w.code)).toEqual([-4001]);
    }));

  it('off: no authentication checks at all; the API user comes from wherever the request names it', () =>
    withSimulator({ auth: 'off' }, async (sim) => {
      const r = await send(sim, '/v1/svc/challenge', { as: false, body: challengeEnvelope(sim.apiUser.id) });
      expectEnvelope(r, 202, 2025);
      expect(sim.journal({ limit: 1 })[0].wouldFail).toBeUndefined();
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as: false }), 400, -1001);
    }));
});

describe('rule validation: refused, not ignored', () => {
  const refused: [string, string, RegExp][] = [
    [
      'an unknown code',
      'rules:\n  - respond: { code: -9999 }\n',
      /:3: rules\[0\]\.respond\.code: -9999 is not a code of the code table/,
    ],
    [
      'a typo in a key',
      'rules:\n  - respond: { code: -5000 }\n    tims: 2\n',
      /:4: rules\[0\]\.tims: unknown key \(did you mean "times"\?\)/,
    ],
    [
      'a type the endpoint never gets',
      'rules:\n  - when: { endpoint: time, type: 150 }\n    respond: { code: -5000 }\n',
      /:3: rules\[0\]\.when\.type: impossible: type 150 is never sent to \/v1\/svc\/time/,
    ],
    [
      'a code the matched requests never get',
      'rules:\n  - when: { endpoint: time }\n    respond: { code: -2035 }\n',
      /:4: rules\[0\]\.respond\.code: impossible: -2035 is answered only to cancel requests/,
    ],
    [
      'a user on time requests',
      'rules:\n  - when: { endpoint: time, svcUser: a@b.c }\n    respond: { code: -5000 }\n',
      /impossible: time requests carry no user/,
    ],
    ['a rule that does nothing', 'rules:\n  - when: { endpoint: time }\n', /:3: rules\[0\]: does nothing/],
    [
      'a forced code with a reset',
      'rules:\n  - fault: reset\n    respond: { code: -5000 }\n',
      /rules\[0\]\.respond: has no effect: fault reset never sends the service's answer/,
    ],
    [
      'hangFor without hang',
      'rules:\n  - fault: reset\n    hangFor: 1s\n',
      /rules\[0\]\.hangFor: only applies with fault: hang/,
    ],
    [
      'an unknown fault',
      'rules:\n  - fault: explode\n',
      /rules\[0\]\.fault: must be one of: reset, hang, truncate, garbage, proxy-502, proxy-503, proxy-504/,
    ],
    [
      'a bad delay range',
      'rules:\n  - delay: { min: 2s, max: 1s }\n',
      /rules\[0\]\.delay: must not be negative, and min must not exceed max/,
    ],
    [
      'an API user the scenario does not have',
      'apiUsers: [{ id: "111111111", secret: s }]\nrules:\n  - when: { apiUser: "222222222" }\n    respond: { code: -5000 }\n',
      /impossible: API user 222222222 is not in this scenario's apiUsers/,
    ],
    [
      'every beyond times',
      'rules:\n  - times: 2\n    every: 3\n    respond: { code: -5000 }\n',
      /rules\[0\]\.every: impossible/,
    ],
  ];
  for (const [what, yaml, message] of refused) {
    it(`refuses ${what}`, () => {
      expect(() => loadScenarioText(`name: bad\n${yaml}`, 'rules.yaml')).toThrow(message);
    });
  }
});
