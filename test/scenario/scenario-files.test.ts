import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadScenarioFile,
  loadScenarioText,
  ScenarioError,
  shippedScenarioNames,
  startSimulator,
} from '../../src/index.js';
import { challengeEnvelope, expectEnvelope, send } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-scenarios-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function refusal(fn: () => unknown): ScenarioError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return e as ScenarioError;
  }
  throw new Error('the scenario was accepted');
}

describe('the shipped scenarios', () => {
  it('all load, and each is named as its file', () => {
    const names = shippedScenarioNames();
    expect(names).toEqual(
      expect.arrayContaining([
        'default',
        'locked-account',
        'account-states',
        'restricted-api-user',
        'ip-rules',
        'clock-ahead',
        'clock-behind',
        'unknown-users-invalid',
        'strict',
        'sdk-clients',
      ]),
    );
    for (const n of names) expect(loadScenarioFile(join(__dirname, '..', '..', 'scenarios', `${n}.yaml`)).name).toBe(n);
  });

  it('locked-account: locked@example.com gets -2006, others 2025', async () => {
    const sim = await startSimulator('locked-account');
    try {
      const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
      expectEnvelope(
        await send(sim, '/v1/svc/challenge', {
          as: who,
          body: challengeEnvelope(who.apiUser, { svcUser: 'locked@example.com' }),
        }),
        400,
        -2006,
      );
      expectEnvelope(
        await send(sim, '/v1/svc/challenge', {
          as: who,
          body: challengeEnvelope(who.apiUser, { svcUser: 'bob@locked.example' }),
        }),
        400,
        -2006,
      );
      expectEnvelope(
        await send(sim, '/v1/svc/challenge', {
          as: who,
          body: challengeEnvelope(who.apiUser, { svcUser: 'ok@example.com' }),
        }),
        202,
        2025,
      );
    } finally {
      await sim.close();
    }
  });

  it('clock-ahead: a client on real time gets -4036, and the answer shows the server time', async () => {
    const sim = await startSimulator({ scenario: 'clock-ahead' });
    try {
      const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
      const r = await send(sim, '/v1/svc/time', { method: 'GET', as: who, time: Date.now() });
      const e = expectEnvelope(r, 400, -4036);
      const ahead = Date.parse(e.utctime!) - Date.now();
      expect(ahead).toBeGreaterThan(9.9 * 60_000);
      expect(ahead).toBeLessThan(10.1 * 60_000);
    } finally {
      await sim.close();
    }
  });

  it('restricted-api-user and ip-rules give their codes', async () => {
    const sim = await startSimulator({ scenario: 'restricted-api-user' });
    try {
      expectEnvelope(
        await send(sim, '/v1/svc/challenge', {
          as: { apiUser: '200000001', secret: 'time-only-secret' },
          body: challengeEnvelope('200000001'),
        }),
        400,
        -1026,
      );
      expectEnvelope(
        await send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: '200000003', secret: 'suspended-secret' } }),
        400,
        -1003,
      );
    } finally {
      await sim.close();
    }
    const ip = await startSimulator('ip-rules');
    try {
      const who = { apiUser: '123456789', secret: 'ip-rules-secret' };
      expectEnvelope(
        await send(ip, '/v1/svc/challenge', {
          as: who,
          body: challengeEnvelope(who.apiUser, { ipAddress: '203.0.113.50' }),
        }),
        400,
        -6021,
      );
      expectEnvelope(
        await send(ip, '/v1/svc/challenge', { as: who, body: challengeEnvelope(who.apiUser) }),
        400,
        -5075,
      );
      expectEnvelope(
        await send(ip, '/v1/svc/challenge', {
          as: who,
          body: challengeEnvelope(who.apiUser, { ipAddress: '192.0.2.1' }),
        }),
        202,
        2025,
      );
      const allow = { apiUser: '200000005', secret: 'allow-list-secret' };
      expectEnvelope(
        await send(ip, '/v1/svc/challenge', {
          as: allow,
          body: challengeEnvelope(allow.apiUser, { ipAddress: '192.0.2.1' }),
        }),
        400,
        -6021,
      );
      expectEnvelope(
        await send(ip, '/v1/svc/challenge', {
          as: allow,
          body: challengeEnvelope(allow.apiUser, { ipAddress: '198.51.100.20' }),
        }),
        202,
        2025,
      );
    } finally {
      await ip.close();
    }
  });
});

describe('a bad scenario file is refused with file, line and key', () => {
  const cases: [string, string, RegExp][] = [
    [
      'unknown key with a suggestion',
      'name: x\nclock:\n  ofset: 10m\n',
      /bad\.yaml:3: clock\.ofset: unknown key \(did you mean "offset"\?\)/,
    ],
    ['wrong type', 'name: x\nstrict: maybe\n', /bad\.yaml:2: strict: must be true or false/],
    [
      'a bad duration',
      'name: x\nclock:\n  maxDrift: ten minutes\n',
      /bad\.yaml:3: clock\.maxDrift: `ten minutes` is not a duration/,
    ],
    ['a missing name', 'strict: true\n', /bad\.yaml:1: name: is required/],
    [
      'a bad API user id',
      'name: x\napiUsers:\n  - id: "12"\n    secret: s\n',
      /bad\.yaml:3: apiUsers\[0\]\.id: must be exactly 9 digits/,
    ],
    [
      'a bad CIDR',
      'name: x\napiUsers:\n  - id: "123456789"\n    secret: s\n    ipRules:\n      block: [300.1.2.3/8]\n',
      /bad\.yaml:6: apiUsers\[0\]\.ipRules\.block\[0\]: `300\.1\.2\.3\/8` is not an IPv4 address/,
    ],
    [
      'an unknown account state',
      'name: x\naccounts:\n  a@example.com: frozen\n',
      /bad\.yaml:3: accounts\["?a@example\.com"?\]: unknown account state `frozen`/,
    ],
    ['a YAML syntax error', 'name: x\nclock: [unclosed\n', /bad\.yaml:\d+: /],
    ['a duplicate key', 'name: x\nstrict: true\nstrict: false\n', /bad\.yaml:3: .*[Uu]nique/],
    ['a custom tag', 'name: !!js/function "function(){}"\n', /bad\.yaml:1: .*tag/i],
    ['an empty file', '', /bad\.yaml:1: is empty/],
    [
      'an alias with no anchor',
      'name: x\ndescription: y\nstrict: *nope\n',
      /bad\.yaml:3: cannot be used: Unresolved alias .*: nope$/,
    ],
    [
      'an alias before its anchor',
      'name: x\ndescription: *later\n\nstrict: &later true\n',
      /bad\.yaml:2: cannot be used: Unresolved alias .*: later$/,
    ],
    [
      'an alias after anchors that resolve',
      'name: &n x\ndescription: *n\nclock:\n  offset: &o 5m\n  maxDrift: *o\n  frozenAt: *missing\n',
      /bad\.yaml:6: cannot be used: Unresolved alias .*: missing$/,
    ],
  ];
  for (const [what, text, message] of cases) {
    it(what, () => {
      const e = refusal(() => loadScenarioFile(file('bad.yaml', text)));
      expect(e.message).toMatch(message);
    });
  }

  it('refuses an alias bomb quickly', () => {
    const bomb = ['name: x', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const started = performance.now();
    const e = refusal(() => loadScenarioText(bomb.join('\n'), 'bomb.yaml'));
    expect(e.message).toMatch(/bomb\.yaml/);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('names a missing file', () => {
    expect(refusal(() => loadScenarioFile(join(dir, 'nope.yaml'))).message).toMatch(
      /nope\.yaml: cannot be read: ENOENT/,
    );
  });

  it('refuses options in-process with the same messages (no line)', async () => {
    await expect(startSimulator({ clock: { maxDrift: 'soon' } })).rejects.toThrow(
      /options: clock\.maxDrift: `soon` is not a duration/,
    );
    await expect(startSimulator({ scenario: 'no-such-scenario' })).rejects.toThrow(
      /neither a scenario file nor the name of a shipped scenario/,
    );
  });
});
