import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  ClientError,
  ControlError,
  FlagError,
  InternalError,
  isMfaSimError,
  MfaSimError,
  OptionsError,
  ScenarioError,
  type MfaSimErrorCode,
} from '../../src/contract/errors.js';

/**
 * Every error mfa-sim throws has a stable code, and is recognised by any copy of the package: a suite that holds two
 * copies (another version in node_modules, the two builds of mfa-sim/client) gets two sets of classes, and must still
 * tell a scenario error from a control error whichever copy threw it. `import` and `require` of mfa-sim itself load one
 * copy.
 */

const KINDS: [MfaSimErrorCode, string, () => MfaSimError][] = [
  [
    'MFA_SIM_SCENARIO',
    'ScenarioError',
    () => new ScenarioError('x.yaml', [{ path: ['clock', 'ofset'], line: 3, message: 'unknown key' }]),
  ],
  [
    'MFA_SIM_OPTIONS',
    'OptionsError',
    () => new OptionsError([{ path: ['journalSize'], message: 'must be at most 100000' }]),
  ],
  ['MFA_SIM_CONTROL', 'ControlError', () => new ControlError(404, 'no challenge x')],
  ['MFA_SIM_FLAG', 'FlagError', () => new FlagError('--port must be a whole number from 0 to 65535.')],
  ['MFA_SIM_CLIENT', 'ClientError', () => new ClientError('HTTP 502: the answer is not JSON', 502, 'Bad Gateway')],
  ['MFA_SIM_INTERNAL', 'InternalError', () => new InternalError('code 1 is not in the code table')],
];

describe('error kinds', () => {
  it('each kind has its code, its name, and is recognised as itself and as no other kind', () => {
    for (const [code, name, make] of KINDS) {
      const e = make();
      expect(e.code, name).toBe(code);
      expect(e.name, code).toBe(name);
      expect(e).toBeInstanceOf(Error);
      expect(e).toBeInstanceOf(MfaSimError);
      expect(isMfaSimError(e), name).toBe(true);
      for (const [other, , makeOther] of KINDS) {
        expect(isMfaSimError(e, other), `${name} as ${other}`).toBe(other === code);
        expect(
          e instanceof (makeOther().constructor as typeof MfaSimError),
          `${name} instanceof the class of ${other}`,
        ).toBe(other === code);
      }
    }
  });

  it('the messages say where: source, line and key for scenarios, options by key', () => {
    expect(KINDS[0][2]().message).toBe('x.yaml:3: clock.ofset: unknown key');
    expect(KINDS[1][2]().message).toBe('options: journalSize: must be at most 100000');
    expect(new OptionsError([{ path: [], message: 'must be an object' }]).message).toBe('options: must be an object');
    // A key as a reader writes it: an index in brackets, a name that is not an identifier quoted, one problem a line.
    const odd = new ScenarioError('s.yaml', [
      { path: ['rules', 0, 'when', 'headers', 'x-svc-apiuser'], message: 'a', line: 7 },
      { path: ['accounts', '*@example.com'], message: 'b' },
      { path: ['accounts', 'svc user', '1a', '__proto__', '$x'], message: 'c' },
      { path: [2, 'name'], message: 'd' },
    ]);
    expect(odd.message.split('\n')).toEqual([
      's.yaml:7: rules[0].when.headers.x-svc-apiuser: a',
      's.yaml: accounts["*@example.com"]: b',
      's.yaml: accounts["svc user"]["1a"].__proto__.$x: c',
      's.yaml: [2].name: d',
    ]);
    expect(new ControlError(404, 'no challenge x').issues).toEqual([]);
  });

  it('nothing else passes for one: plain errors, look-alikes with a code property, values that are not objects', () => {
    const lookAlike = Object.assign(new Error('x'), { code: 'MFA_SIM_SCENARIO', name: 'ScenarioError' });
    // The brand holds one of mfa-sim's codes, or it is not mfa-sim's.
    const otherBrand = { [Symbol.for('mfa-sim.error.code')]: 'ERR_OTHER' };
    const values = [
      new Error('x'),
      new TypeError('x'),
      lookAlike,
      otherBrand,
      { code: 'MFA_SIM_CONTROL' },
      null,
      undefined,
      'MFA_SIM_SCENARIO',
      42,
      Object.create(null),
    ];
    for (const [i, value] of values.entries()) {
      expect(isMfaSimError(value), `value ${i}`).toBe(false);
      expect(isMfaSimError(value, 'MFA_SIM_SCENARIO')).toBe(false);
      expect(value instanceof ScenarioError).toBe(false);
      expect(value instanceof MfaSimError).toBe(false);
    }
  });
});

describe('across copies of the package', () => {
  it("an error thrown by one copy is recognised by another's isMfaSimError and instanceof; import and require are one copy", async () => {
    const dist = join(__dirname, '..', '..', 'dist');
    // Another copy of the package, as another version in node_modules would be (where its dependencies resolve).
    const copy = mkdtempSync(join(__dirname, '..', '..', 'node_modules', '.mfa-sim-copy-'));
    cpSync(dist, copy, { recursive: true });
    // A fresh Node process loads the package from dist/ as a suite would, through import and require: nothing of
    // Vitest's module loading in between.
    const script = `
      const { createRequire } = await import('node:module');
      const require = createRequire(import.meta.url);
      const imported = await import(${JSON.stringify(join(dist, 'index.js'))});
      const cjs = require(${JSON.stringify(join(dist, 'index.cjs'))});
      const other = require(${JSON.stringify(join(copy, 'index.cjs'))});
      const cjsClient = require(${JSON.stringify(join(dist, 'client.cjs'))});
      const esmControl = await import(${JSON.stringify(join(dist, 'control.js'))});
      const caught = async (f) => { try { await f(); } catch (e) { return e; } throw new Error('nothing thrown'); };
      const seen = (e, by) => ({
        code: e.code,
        name: e.name,
        sameClass: e.constructor === by.ScenarioError || e.constructor === by.OptionsError || e.constructor === by.ControlError,
        any: by.isMfaSimError(e),
        scenario: by.isMfaSimError(e, 'MFA_SIM_SCENARIO'),
        options: by.isMfaSimError(e, 'MFA_SIM_OPTIONS'),
        control: by.isMfaSimError(e, 'MFA_SIM_CONTROL'),
        instanceOfScenario: e instanceof by.ScenarioError,
        instanceOfOptions: e instanceof by.OptionsError,
        instanceOfControl: e instanceof by.ControlError,
        instanceOfBase: e instanceof by.MfaSimError,
      });
      const sim = await cjs.startSimulator();
      const out = {
        scenario: seen(await caught(() => cjs.loadScenarioText('name: x\\nclock:\\n  ofset: 10m\\n', 'x.yaml')), other),
        options: seen(await caught(() => cjs.startSimulator({ journalSize: 0 })), other),
        control: seen(await caught(() => sim.approve('no-such-challenge')), other),
        clientOptions: seen(await caught(() => cjsClient.createClient({ baseUrl: sim.url, apiUser: '12', secret: 's' })), other),
        clientAnswer: seen(await caught(() => cjsClient.createClient({ baseUrl: sim.url, apiUser: '123456789', secret: 's', fetch: async () => new Response('Bad Gateway', { status: 502 }) }).time()), other),
        otherSeenByCjs: seen(await caught(() => other.loadScenarioText('name: x\\nclock:\\n  ofset: 10m\\n', 'x.yaml')), cjs),
        status: (await caught(() => sim.approve('no-such-challenge'))).status,
        overHttp: seen(await caught(() => esmControl.connect(sim.url).approve('no-such-challenge')), cjs),
        refusedScenario: await caught(() => esmControl.connect(sim.url).loadScenario({ name: 'x', clock: { ofset: '10m' } })),
        oneCopy: Object.keys(cjs).length > 20 && Object.keys(cjs).every((name) => imported[name] === cjs[name]),
      };
      await sim.close();
      console.log(JSON.stringify(out));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 15_000,
    }).finally(() => rmSync(copy, { recursive: true, force: true }));
    const out = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    const none = {
      any: true,
      sameClass: false,
      scenario: false,
      options: false,
      control: false,
      instanceOfScenario: false,
      instanceOfOptions: false,
      instanceOfControl: false,
      instanceOfBase: true,
    };
    expect(out.scenario).toEqual({
      ...none,
      code: 'MFA_SIM_SCENARIO',
      name: 'ScenarioError',
      scenario: true,
      instanceOfScenario: true,
    });
    expect(out.otherSeenByCjs).toEqual(out.scenario);
    expect(out.options).toEqual({
      ...none,
      code: 'MFA_SIM_OPTIONS',
      name: 'OptionsError',
      options: true,
      instanceOfOptions: true,
    });
    expect(out.control).toEqual({
      ...none,
      code: 'MFA_SIM_CONTROL',
      name: 'ControlError',
      control: true,
      instanceOfControl: true,
    });
    expect(out.clientOptions).toEqual(out.options);
    expect(out.clientAnswer).toEqual({ ...none, code: 'MFA_SIM_CLIENT', name: 'ClientError' });
    expect(out.status).toBe(404);
    // The control API's refusals, through mfa-sim/control, are the same kind as in process, with the scenario's issues.
    expect(out.overHttp).toEqual(out.control);
    expect(out.refusedScenario).toMatchObject({
      code: 'MFA_SIM_CONTROL',
      status: 400,
      issues: [{ path: ['clock', 'ofset'] }],
    });
    expect(out.oneCopy).toBe(true);
  });
});
