import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Simulator, signedHeaders, type RunningSimulator } from '../../src/index.js';
import { start } from '../cli-helpers.js';
import { raw, simulator } from '../helpers.js';

/**
 * Class: the control token shown where secrets are hidden. The control token opens the control API to whoever holds
 * it: sent by a client where it does not belong (a header, a cookie, the query, a path segment, a nonce), it is hidden
 * as an API user's secret is, in the journal, the event stream, the findings and hints, the reports and the log.
 */

const TOKEN = 'ctl-token-Hq4zW8pLx2';
const headers = (token: string) => ({ 'x-sim-control-token': token });

/** Requests that carry the token everywhere a client could put it, to the API and to the control API. */
async function carry(url: string, token: string, secret: string): Promise<void> {
  const signed = (nonce: string = randomUUID()) =>
    Object.entries(signedHeaders({ apiUser: '123456789', secret, time: Date.now(), nonce }));
  await raw(url, 'GET', `/v1/svc/time?token=${token}`, signed());
  await raw(url, 'GET', `/v1/svc/time/${token}`, signed());
  await raw(url, 'GET', '/v1/svc/time', [
    ...signed(),
    ['x-sim-control-token', token],
    ['cookie', `mfa_sim_control=${token}`],
  ]);
  // As a nonce: valid, so the doctor's hint quotes the string to sign, nonce and all.
  await raw(
    url,
    'GET',
    '/v1/svc/time',
    signed(token).map(([k, v]) => [
      k,
      k === 'Authorization' ? v.replace(/signature=\w+/, `signature=${'0'.repeat(128)}`) : v,
    ]),
  );
  await raw(
    url,
    'POST',
    '/v1/svc/challenge',
    [...signed(), ['content-type', 'application/json']],
    JSON.stringify({ id: 'x', apiUser: '123456789', type: 150, body: { svcUser: token, challengeType: token } }),
  );
}

/** Every place the token could show, as text. */
async function shown(sim: RunningSimulator, token: string): Promise<[string, string][]> {
  const get = async (path: string) =>
    [path, await (await fetch(`${sim.url}${path}`, { headers: headers(token) })).text()] as [string, string];
  return [
    await get('/__sim/journal'),
    await get('/__sim/findings'),
    await get('/__sim/report'),
    await get('/__sim/report?format=junit'),
    ['findings()', JSON.stringify([sim.findings(true), sim.hints()])],
    ['journal()', JSON.stringify(sim.journal())],
  ];
}

describe('the control token is hidden wherever secrets are', () => {
  it('a token given: in the journal, the event stream, the findings, the hints and the reports', async () => {
    const sim = await simulator({ controlToken: TOKEN, secret: 'token-test-secret' });
    const events: string[] = [];
    const stream = await fetch(`${sim.url}/__sim/events`, { headers: headers(TOKEN) });
    const reader = stream.body!.getReader();
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        events.push(Buffer.from(value).toString());
      }
    })();
    await carry(sim.url, TOKEN, 'token-test-secret');
    await new Promise((r) => setTimeout(r, 200));
    await reader.cancel();
    await reading.catch(() => undefined);
    const seen: [string, string][] = [...(await shown(sim, TOKEN)), ['events', events.join('')]];
    // Carried five times over, and recorded: hidden, not gone.
    expect(seen.find(([where]) => where === 'journal()')![1]).toContain('[secret]');
    for (const [where, text] of seen) expect(text, where).not.toContain(TOKEN);
  });

  it('a token made for a simulator beyond loopback is hidden as well', async () => {
    const sim = new Simulator({ secret: 'beyond-secret' });
    sim.secrets.needControlToken();
    const token = sim.secrets.controlToken!;
    expect(sim.redact(`?token=${token}&x`)).toBe('?token=[secret]&x');
    expect(sim.redact(`/v1/svc/time/${encodeURIComponent(token).replace(/-/g, '%2D')}`)).toBe('/v1/svc/time/[secret]');
  });

  it('the command line: the request log', async () => {
    const s = await start(['--port', '0', '--secret', 'cli-token-secret', '--control-token', TOKEN]);
    afterAll(() => void s.child.kill('SIGTERM'));
    await carry(s.url, TOKEN, 'cli-token-secret');
    await new Promise((r) => setTimeout(r, 300));
    s.child.kill('SIGTERM');
    await s.exit;
    const log = s
      .out()
      .split('\n')
      .slice(
        s
          .out()
          .split('\n')
          .findIndex((l) => l.includes('request log below')) + 1,
      )
      .join('\n');
    expect(log).toContain('[secret]');
    expect(log).not.toContain(TOKEN);
  });
});
