import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/index.js';
import { raw, simulator } from '../helpers.js';
import { signedPairs } from './support.js';

/**
 * Class: a secret in a header's name. A client may send a secret the simulator holds as a header's name, or inside
 * one, plainly or URL-escaped: the name is searched as a value is, in the journal, the event stream and the
 * recording's `exchanges.jsonl`. HTTP lowercases names on the way in, so a secret shows there in lower case: it is
 * hidden in any case.
 */

const SECRET = 'Name-Secret-Qw7Zx9Lm2Np4Rt6';
const SCENARIO_SECRET = 'Scenario-Secret-Hk3Jd8Vb5Cn1';
const TOKEN = 'Ctl-Token-Yp2Wq6Es9Tg4';

/** The header names that carry `secret`: whole, inside a name, and with its hyphens URL-escaped. */
function names(secret: string): string[] {
  return [
    secret,
    `x-${secret}-end`,
    `X-PRE${secret.toUpperCase()}`,
    secret.replace(/-/g, '%2D'),
    `x-${secret.replace(/-/g, '%2d')}`,
  ];
}

/** Fails when 12 characters in a row of a secret show in the text, in any case. */
function expectHidden(where: string, text: string, secrets: string[]): void {
  const lower = text.toLowerCase();
  for (const secret of secrets) {
    for (let i = 0; i + 12 <= secret.length; i++) {
      const part = secret.slice(i, i + 12).toLowerCase();
      if (lower.includes(part)) throw new Error(`${where} shows part of a secret (${part}): ${text.slice(0, 600)}`);
    }
    const escaped = secret.replace(/-/g, '%2d').toLowerCase();
    if (lower.includes(escaped)) throw new Error(`${where} shows a secret URL-escaped: ${text.slice(0, 600)}`);
  }
}

/** Sends one signed request per name, each with the name given a harmless value. */
async function carry(sim: RunningSimulator, secrets: string[]): Promise<void> {
  for (const secret of secrets)
    for (const name of names(secret)) {
      const r = await raw(sim.url, 'GET', '/v1/svc/time', [...signedPairs(sim), [name, 'x']]);
      expect(r.status, name).toBe(200);
    }
}

/** The event stream, opened with the control token: all it received so far, and how to close it. */
async function follow(sim: RunningSimulator): Promise<{ text: () => string; stop: () => Promise<void> }> {
  const stream = await fetch(`${sim.url}/__sim/events`, { headers: { 'x-sim-control-token': TOKEN } });
  const reader = stream.body!.getReader();
  let text = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += Buffer.from(value).toString();
    }
  })();
  return {
    text: () => text,
    stop: async () => {
      await reader.cancel();
      await reading.catch(() => undefined);
    },
  };
}

const get = async (sim: RunningSimulator, path: string) =>
  (await fetch(`${sim.url}${path}`, { headers: { 'x-sim-control-token': TOKEN } })).text();

describe('secrets in header names', () => {
  it('are hidden in the journal and the event stream: a secret, a scenario API user, the control token, a claim', async () => {
    const sim = await simulator({
      secret: SECRET,
      controlToken: TOKEN,
      apiUsers: [{ id: '222222222', secret: SCENARIO_SECRET }],
    });
    const claimed = (await (
      await fetch(`${sim.url}/__sim/api-users`, {
        method: 'POST',
        headers: { 'x-sim-control-token': TOKEN, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { secret: string };
    const secrets = [SECRET, SCENARIO_SECRET, TOKEN, claimed.secret];
    const events = await follow(sim);
    await carry(sim, secrets);
    await expect.poll(() => (events.text().match(/event: request/g) ?? []).length).toBe(secrets.length * 5);
    await events.stop();
    const journal = await get(sim, '/__sim/journal');
    // The names were recorded, hidden: not left out.
    expect(journal.match(/\[secret\]/g)?.length ?? 0).toBeGreaterThanOrEqual(secrets.length * 5);
    for (const [where, text] of [
      ['journal', journal],
      ['events', events.text()],
      ['journal()', JSON.stringify(sim.journal())],
    ])
      expectHidden(where, text, secrets);
  });
});

describe('secrets lowercased on the way', () => {
  // Lower-case letters and digits once lowercased: the doctor takes it for another client's token and quotes it.
  const secret = 'HintSecret42Abcd';

  it("are hidden in the doctor's hints: a header's name, the Authorization scheme", async () => {
    const sim = await simulator({ secret });
    const signed = signedPairs(sim);
    const named = signed.map(([n, v]): [string, string] => [n.replace('-svc-', `-${secret}-`), v]);
    const schemed = signed.map(([n, v]): [string, string] => [
      n,
      n === 'Authorization' ? v.replace('svc-hmac', `${secret}-hmac`) : v,
    ]);
    const answers = [
      await raw(sim.url, 'GET', '/v1/svc/time', named),
      await raw(sim.url, 'GET', '/v1/svc/time', schemed),
    ];
    expect(answers.map((a) => a.json.code)).toEqual([-4004, -4001]);
    const journal = await get(sim, '/__sim/journal');
    expect(journal).toContain('uses the token [secret]');
    expectHidden('journal', journal, [secret]);
    expectHidden('hints', JSON.stringify(sim.hints()), [secret]);
  });
});

describe('secrets in header names, recorded in proxy mode', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-names-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const upstream = await simulator({ secret: SECRET });
  const px = await simulator({ secret: SECRET, controlToken: TOKEN, upstream: upstream.url, record: dir });

  it("are hidden in exchanges.jsonl and the proxy's journal", async () => {
    await carry(px, [SECRET, TOKEN]);
    const journal = await get(px, '/__sim/journal');
    await px.close();
    const exchanges = readFileSync(join(dir, 'exchanges.jsonl'), 'utf8');
    expect(exchanges.trimEnd().split('\n')).toHaveLength(10);
    expect(exchanges.match(/\[secret\]/g)?.length ?? 0).toBeGreaterThanOrEqual(10);
    expectHidden('exchanges.jsonl', exchanges, [SECRET, TOKEN]);
    expectHidden('journal', journal, [SECRET, TOKEN]);
  });
});
