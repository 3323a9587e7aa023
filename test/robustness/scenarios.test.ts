import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/contract/errors.js';
import { compileOrThrow, loadScenarioText } from '../../src/scenario/load.js';
import { CLI } from '../cli-helpers.js';
import { simulator } from '../helpers.js';
import { valueText } from './arbitraries.js';
import { expectNoPollution, expectStillServes, prototypeSnapshot, runs } from './support.js';

/** Scenario files from hostile hands: refused with a clear message, never executed, never hung. */

const dir = mkdtempSync(join(tmpdir(), 'hostile-'));
const PAYLOAD = join(dir, 'executed');

const aliasBomb = [
  'name: bomb',
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  ...'bcdefg'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`),
].join('\n');

const HOSTILE: [what: string, text: string, message: RegExp][] = [
  ['a YAML alias bomb', aliasBomb, /resource exhaustion|alias/i],
  ['a file over 1 MiB', `name: huge\ndescription: ${'a'.repeat(1024 * 1024)}\n`, /larger than 1024 KiB/],
  [
    'flow nesting 100,000 deep',
    `name: deep\nrules: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
    /nested too deeply/,
  ],
  ['unclosed flow nesting', `name: deep\nrules: ${'{a: '.repeat(50_000)}\n`, /nested too deeply/],
  [
    'block nesting 1,000 deep',
    `name: deep\nrules:\n${Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n')}\n`,
    /nested too deeply|must be/,
  ],
  [
    'a !!js/function tag',
    `name: x\ndescription: !!js/function "function(){ require('fs').writeFileSync('${PAYLOAD}', 'x') }"\n`,
    /custom YAML tags are not allowed/,
  ],
  [
    'a python object tag',
    `name: !!python/object/apply:os.system ["touch ${PAYLOAD}"]\n`,
    /custom YAML tags are not allowed/,
  ],
  ['a local tag', 'name: !<tag:example.com,2000:app/thing> x\n', /custom YAML tags are not allowed/],
  ['a duplicate key', 'name: x\nstrict: true\nstrict: false\n', /:3: Map keys must be unique: `strict` is repeated/],
  [
    'a duplicate key deep inside',
    'name: x\naccounts:\n  a@example.com: locked\n  b@example.com: locked\n  a@example.com: active\n',
    /:5: Map keys must be unique/,
  ],
  ['a merge key', 'base: &b {name: x}\n<<: *b\n', /unknown key|is required/],
  ['two documents', 'name: x\n---\nname: y\n', /multiple documents/],
  [
    'wrong types everywhere',
    'name: 5\nstrict: "yes"\nclock: []\nreplay: 7\nrules: {}\napiUsers: "x"\naccounts: [1]\n',
    /name: must be a string[\s\S]*strict: must be true or false/,
  ],
  [
    '__proto__ and constructor keys',
    'name: x\n__proto__: { polluted: yes }\nconstructor: { prototype: { polluted: yes } }\n',
    /__proto__: unknown key/,
  ],
  [
    '__proto__ as an account',
    'name: x\naccounts:\n  __proto__: locked\n',
    /accounts.__proto__: must be an e-mail address/,
  ],
  ['text that is not YAML', '\u0000\u0001: [\n  }', /:\d+: /],
  // Each rule is judged against every earlier one: the 18,000 that fit in 1 MiB held the simulator for 40 s.
  [
    '18,000 rules, within 1 MiB',
    `name: many\nrules:\n${Array.from({ length: 18_000 }, (_, i) => `- {when: {svcUser: a${i}@x.co}, respond: {code: -5000}}`).join('\n')}\n`,
    /rules: must have at most 2000 items/,
  ],
  ['an empty file', '', /is empty/],
];

describe('hostile scenario files', () => {
  const before = prototypeSnapshot();

  it.each(HOSTILE)('%s: refused with a clear message', (_what, text, message) => {
    let error: unknown;
    try {
      loadScenarioText(text, 'hostile.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toMatch(/^hostile\.yaml/);
    expect((error as Error).message).toMatch(message);
    expect(existsSync(PAYLOAD)).toBe(false);
    expectNoPollution(before);
  });

  it('the CLI refuses each with exit status 2 and the message, well within its time limit', () => {
    for (const [what, text, message] of HOSTILE.slice(0, 10)) {
      const file = join(dir, `${what.replace(/\W+/g, '-')}.yaml`);
      writeFileSync(file, text);
      const r = spawnSync(process.execPath, [CLI, '--port', '0', '--scenario', file], {
        encoding: 'utf8',
        timeout: 15_000,
      });
      expect(r.error, what).toBeUndefined();
      expect(r.status, `${what}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at .*\.(js|ts):\d+/); // no stack trace
    }
    expect(existsSync(PAYLOAD)).toBe(false);
  }, 120_000);

  it('the control API refuses each with 400 and the message; the active scenario stays', async () => {
    const sim = await simulator();
    for (const [what, text, message] of HOSTILE) {
      const r = await fetch(`${sim.url}/__sim/scenario`, {
        method: 'POST',
        headers: { 'content-type': 'application/yaml' },
        body: text,
      });
      // A file over 1 MiB is refused by the body limit of the control API first.
      expect(r.status, what).toBe(text.length > 1024 * 1024 ? 413 : 400);
      const body = (await r.json()) as { error: string };
      if (r.status === 400) expect(body.error, what).toMatch(message);
    }
    expect(sim.scenarios().active).toBe('default');
    await expectStillServes(sim);
    expectNoPollution(before);
  }, 60_000);

  it(
    'any JSON value as a scenario, and any text as a scenario file: compiled or refused, never anything else',
    () => {
      // Known keys, and misspelled ones that are read as the key they are near (scenario/mend.ts).
      const keys = fc.constantFrom(
        'name',
        'description',
        'token',
        'strict',
        'responseStyle',
        'auth',
        'clock',
        'replay',
        'apiUsers',
        'accounts',
        'defaultAccountState',
        'autoVerify',
        'rules',
        '__proto__',
        'constructor',
        'acounts',
        'rulez',
        'clok',
        'apiUser',
      );
      const inner = fc.constantFrom(
        'offset',
        'maxDrift',
        'frozenAt',
        'nonces',
        'timestamps',
        'id',
        'secret',
        'state',
        'permissions',
        'ipRules',
        'when',
        'respond',
        'delay',
        'fault',
        'hangFor',
        'after',
        'times',
        'every',
        'code',
        'min',
        'max',
        'block',
        'allow',
        'headers',
        'svcUser',
        'afer',
        'whn',
        'ofset',
        'blok',
        'ipRule',
        'respnd',
        '__proto__',
      );
      const valueOrTree: fc.Arbitrary<string> = fc.oneof(
        { weight: 3, arbitrary: valueText },
        {
          weight: 2,
          arbitrary: fc
            .array(fc.tuple(inner, valueText), { maxLength: 4 })
            .map((es) => `{${es.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
        },
        {
          weight: 1,
          arbitrary: fc
            .array(
              fc
                .array(fc.tuple(inner, valueText), { maxLength: 3 })
                .map((es) => `{${es.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
              { maxLength: 3 },
            )
            .map((xs) => `[${xs.join(',')}]`),
        },
      );
      const scenarioText = fc
        .array(fc.tuple(keys, valueOrTree), { maxLength: 6 })
        .map((es) => `{"name":"fuzz"${es.map(([k, v]) => `,"${k}":${v}`).join('')}}`);
      const outcome = (f: () => unknown) => {
        try {
          f();
        } catch (e) {
          if (!(e instanceof ScenarioError)) throw e;
          expect(e.message.length).toBeGreaterThan(0);
        }
        expectNoPollution(before);
      };
      fc.assert(
        fc.property(scenarioText, (text) => {
          outcome(() => loadScenarioText(text, 'fuzz.yaml'));
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            return;
          }
          outcome(() => compileOrThrow(value, 'options'));
        }),
        { numRuns: runs(3000) },
      );
      fc.assert(
        fc.property(fc.string({ maxLength: 300 }), (text) => outcome(() => loadScenarioText(text, 'fuzz.yaml'))),
        { numRuns: runs(2000) },
      );
    },
    runs(120_000),
  );
});
