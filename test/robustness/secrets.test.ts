import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSimulator, type RunningSimulator } from '../../src/index.js';
import { remote, start as startCli } from '../cli-helpers.js';
import { cancelEnvelope, challengeEnvelope, lookupEnvelope, send } from '../helpers.js';
import { exchange } from './support.js';

/**
 * A full session, through the CLI (a child process) and in-process, with every kind of request, good and bad,
 * including a misconfigured client that sends a secret where it does not belong. Every log line, journal
 * entry, response, page, control API answer, event and error message is collected and searched for the
 * secrets in use: none may appear.
 */

const S1 = 'flag-secret-Zq9Xw2bT';
const S2 = 'scenario-secret-Kp4Lr8';
const S3 = 'suspended-secret-Mm7Nc1';
const SECRETS = [S1, S2, S3];
const FLAG_USER = { apiUser: '111111111', secret: S1 };
const SCENARIO_USER = { apiUser: '222222222', secret: S2 };

const scenario = {
  name: 'secrets',
  description: 'API users with secrets, and rules that break the wire',
  apiUsers: [
    { id: SCENARIO_USER.apiUser, secret: S2 },
    { id: '333333333', secret: S3, state: 'suspended' },
  ],
  rules: [
    { name: 'slow', when: { headers: { 'x-test': 'slow' } }, delay: '20ms' },
    { name: 'forced', when: { headers: { 'x-test': 'forced' } }, respond: { code: -5000 } },
    { name: 'garbage', when: { headers: { 'x-test': 'garbage' } }, fault: 'garbage' as const },
    { name: 'proxy', when: { headers: { 'x-test': 'proxy' } }, fault: 'proxy-502' as const },
  ],
};

/** Everything a session shows to anyone, as text, labelled by where it came from. */
type Seen = [where: string, text: string][];

/** Every kind of request, good and bad, and every page and control answer; returns what was shown. */
async function session(sim: RunningSimulator): Promise<Seen> {
  const seen: Seen = [];
  const events = openEvents(sim.url);
  const keep = async (where: string, p: Promise<{ text: string }>) => {
    try {
      seen.push([where, (await p).text]);
    } catch (e) {
      seen.push([where, `request failed: ${(e as Error).message}`]);
    }
  };
  const get = (path: string) =>
    keep(
      `GET ${path}`,
      fetch(`${sim.url}${path}`).then(async (r) => ({ text: Buffer.from(await r.arrayBuffer()).toString('latin1') })),
    );
  const control = (method: string, path: string, body?: string, type = 'application/json') =>
    keep(
      `${method} ${path}`,
      fetch(`${sim.url}${path}`, { method, body, headers: { 'content-type': type } }).then(async (r) => ({
        text: await r.text(),
      })),
    );

  let challengeId = '';
  for (const as of [FLAG_USER, SCENARIO_USER]) {
    const u = as.apiUser;
    await keep('time', send(sim, '/v1/svc/time', { method: 'GET', as }));
    const created = await send(sim, '/v1/svc/challenge', { as, body: challengeEnvelope(u, { enableQRcode: true }) });
    seen.push(['challenge', created.text]);
    challengeId = (JSON.parse(created.json.message) as { challengeId: string }).challengeId;
    await keep('status', send(sim, '/v1/svc/status', { as, body: lookupEnvelope(u, 171, challengeId) }));
    await keep(
      'verify',
      send(sim, '/v1/svc/verify', { as, body: lookupEnvelope(u, 170, challengeId, { authCode: '000000' }) }),
    );
    await keep(
      'blocked',
      send(sim, '/v1/svc/blocked', {
        as,
        body: { apiUser: u, type: 950, body: { svcUser: 'user@example.com', ipAddress: '198.51.100.1' } },
      }),
    );
    await keep('wrong secret', send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: u, secret: 'not-it' } }));
    await keep('no auth', send(sim, '/v1/svc/time', { method: 'GET', as: false }));
    await keep(
      'bad auth',
      send(sim, '/v1/svc/time', { method: 'GET', as, mutate: (h) => void (h.authorization = 'Bearer abc') }),
    );
    await keep('drift', send(sim, '/v1/svc/time', { method: 'GET', as, time: Date.now() - 3_600_000 }));
    await keep('bad body', send(sim, '/v1/svc/challenge', { as, body: '{"not":"an envelope"' }));
    await keep('replay 1', send(sim, '/v1/svc/time', { method: 'GET', as, nonce: `replayed-nonce-${u}` }));
    await keep('replay 2', send(sim, '/v1/svc/time', { method: 'GET', as, nonce: `replayed-nonce-${u}` }));
    for (const rule of ['slow', 'forced', 'garbage', 'proxy'])
      await keep(`rule ${rule}`, send(sim, '/v1/svc/time', { method: 'GET', as, headers: { 'x-test': rule } }));
    await keep('cancel', send(sim, '/v1/svc/challenge', { as, body: cancelEnvelope(u, challengeId) }));
  }
  await keep('suspended', send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: '333333333', secret: S3 } }));
  await keep('unknown user', send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: '999999999', secret: 'x' } }));
  await keep('404', send(sim, '/v1/svc/nothing', { as: FLAG_USER, body: {} }));
  await keep('405', send(sim, '/v1/svc/challenge', { method: 'PUT', as: FLAG_USER, body: {} }));
  await keep('-413', send(sim, '/v1/svc/challenge', { as: FLAG_USER, body: 'x'.repeat(70_000) }));
  await keep('-400', exchange(sim.url, 'garbage\r\n\r\n'));
  await keep('-431', exchange(sim.url, `GET / HTTP/1.1\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`));

  // A misconfigured client puts its secret where it does not belong: as the nonce, in the path, in a field, in a
  // header.
  await keep('secret as nonce', send(sim, '/v1/svc/time', { method: 'GET', as: FLAG_USER, nonce: S1 }));
  await keep(
    'secret as nonce, wrongly signed',
    send(sim, '/v1/svc/time', { method: 'GET', as: { ...FLAG_USER, secret: 'not-it' }, nonce: S1 }),
  );
  await keep('secret in path', send(sim, `/v1/svc/${S1}`, { as: FLAG_USER, body: {} }));
  await keep(
    'secret in a field',
    send(sim, '/v1/svc/blocked', {
      as: FLAG_USER,
      body: { apiUser: FLAG_USER.apiUser, type: 950, body: { svcUser: 'user@example.com', ipAddress: S1 } },
    }),
  );
  await keep(
    'secret in the body',
    send(sim, '/v1/svc/challenge', {
      as: SCENARIO_USER,
      body: challengeEnvelope(SCENARIO_USER.apiUser, { profile: S2, challengeExpiry: S2 }),
    }),
  );
  await keep(
    'secret as scenario',
    send(sim, '/v1/svc/time', { method: 'GET', as: FLAG_USER, headers: { 'x-sim-scenario': S1 } }),
  );

  for (const path of [
    '/',
    '/status',
    '/status?code=-4037',
    `/phone/${challengeId}`,
    `/phone/${challengeId}/qr.png`,
    '/__sim/ui',
    '/__sim/health',
    '/favicon.svg',
  ])
    await get(path);
  for (const path of ['/__sim/scenarios', '/__sim/journal', '/__sim/coverage', '/__sim/challenges', '/__sim/clock'])
    await get(path);
  // Refused control requests that carry a secret: their error messages must not repeat it.
  await control(
    'POST',
    '/__sim/scenario',
    stringify({ name: 'bad', apiUsers: [{ id: '12', secret: S2 }] }),
    'application/yaml',
  );
  await control(
    'POST',
    '/__sim/scenario',
    JSON.stringify({ name: 'bad', apiUsers: [{ id: SCENARIO_USER.apiUser, secret: S2, state: 5 }], token: S2 }),
  );
  await control(
    'PUT',
    `/__sim/bindings/${SCENARIO_USER.apiUser}`,
    JSON.stringify({ name: 'bad', apiUsers: [{ id: SCENARIO_USER.apiUser, secret: [S2] }] }),
  );
  await control('POST', `/__sim/challenges/${S1}/approve`);
  await control('POST', '/__sim/clock/advance', JSON.stringify({ by: S1 }));
  await control('POST', '/__sim/clock/freeze', JSON.stringify({ at: S3 }));
  seen.push(['events', await events.stop()]);
  return seen;
}

/** Collects the event stream until stopped. */
function openEvents(base: string): { stop: () => Promise<string> } {
  let text = '';
  const req = request(`${base}/__sim/events`, { agent: false }, (res) =>
    res.on('data', (d: Buffer) => (text += d.toString('utf8'))),
  );
  req.on('error', () => undefined);
  req.end();
  return {
    stop: async () => {
      await new Promise((r) => setTimeout(r, 100));
      req.destroy();
      return text;
    },
  };
}

/** Where any secret shows, if anywhere. */
function leaks(seen: Seen): string[] {
  return seen.flatMap(([where, text]) =>
    SECRETS.filter((s) => text.includes(s)).map(
      (s) => `${s} in ${where}: ${text.slice(Math.max(0, text.indexOf(s) - 120), text.indexOf(s) + 60)}`,
    ),
  );
}

describe('secrets never leak', () => {
  it('through the CLI: log lines, stderr, responses, pages, control API, events', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.yaml');
    writeFileSync(file, stringify(scenario));
    const cli = await startCli(['--port', '0', '--scenario', file, '--api-user', FLAG_USER.apiUser, '--secret', S1]);
    const sim = remote(cli.url, FLAG_USER.apiUser, S1);
    const seen = await session(sim);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toBe(0);
    seen.push(['stdout', cli.out()], ['stderr', cli.err()]);
    expect(leaks(seen)).toEqual([]);
    // The session did reach what it means to test: a log line per request, and secrets the client sent, hidden.
    expect(cli.out()).toContain('-4037');
    expect(cli.out()).toContain('[secret]');
    expect(seen.find(([w]) => w === 'secret in a field')![1]).toContain('[secret]');
  });

  it('in-process: journal entries, coverage, challenges, scenarios and the errors of control methods too', async () => {
    const sim = await startSimulator({ ...scenario, apiUser: FLAG_USER.apiUser, secret: S1 });
    try {
      const seen = await session(sim);
      seen.push(
        ['journal()', JSON.stringify(sim.journal())],
        ['coverage()', JSON.stringify(sim.coverage())],
        ['challenges()', JSON.stringify(sim.challenges())],
        ['scenarios()', JSON.stringify(sim.scenarios())],
      );
      const refused = [
        () => sim.approve(S1),
        () => sim.advance(S2),
        () => sim.freeze(S3),
        () => sim.loadScenario({ name: 'bad', apiUsers: [{ id: '1', secret: S2 }] }),
        () =>
          sim.loadScenario({
            text: `name: bad\napiUsers:\n  - id: "${SCENARIO_USER.apiUser}"\n    secret: ${S2}\n    secret: ${S3}\n`,
          }),
        () =>
          sim.bindScenario(SCENARIO_USER.apiUser, {
            name: 'bad',
            apiUsers: [{ id: SCENARIO_USER.apiUser, secret: S2, permissions: ['nope' as never] }],
          }),
      ];
      for (const f of refused) {
        try {
          f();
          seen.push(['control method', 'did not refuse']);
        } catch (e) {
          seen.push(['control method error', `${(e as Error).message} ${JSON.stringify(e)}`]);
        }
      }
      expect(seen.filter(([w]) => w === 'control method').length).toBe(0);
      expect(leaks(seen)).toEqual([]);
    } finally {
      await sim.close();
    }
  });

  it('the journal hides secrets when read, not only when watched, even those of a scenario no longer bound', async () => {
    const sim = await startSimulator({ apiUser: FLAG_USER.apiUser, secret: S1 });
    try {
      const bound = { apiUser: SCENARIO_USER.apiUser, secret: S2 };
      sim.bindScenario(bound.apiUser, { name: 'bound', apiUsers: [{ id: bound.apiUser, secret: S2 }] });
      // Nobody watches the journal: entries are recorded as they are and sealed when first read.
      expect((await send(sim, '/v1/svc/time', { method: 'GET', as: FLAG_USER, nonce: S1 })).json.code).toBe(15000);
      expect((await send(sim, `/v1/svc/time?${S2}`, { method: 'GET', as: bound, nonce: S2 })).json.code).toBe(15000);
      expect(sim.unbindScenario(bound.apiUser)).toBe(true);
      const text = JSON.stringify(sim.journal());
      expect(leaks([['journal()', text]])).toEqual([]);
      expect(text.match(/\[secret\]/g)?.length).toBeGreaterThanOrEqual(3);
    } finally {
      await sim.close();
    }
  });
});
