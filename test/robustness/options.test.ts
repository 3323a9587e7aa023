import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionsError, ScenarioError, startSimulator, type StartOptions } from '../../src/index.js';
import { simulator } from '../helpers.js';
import { expectStillServes } from './support.js';

/**
 * Class 1 on the in-process interface: options and method arguments a JavaScript caller can get wrong. Each is
 * refused with an error naming what is wrong (an OptionsError for options, a ControlError with status 400 for a
 * method), never a RangeError from deep inside Node, an allocation of gigabytes, or a simulator that half works.
 */

const aFile = join(mkdtempSync(join(tmpdir(), 'mfa-sim-options-')), 'file.yaml');
writeFileSync(aFile, 'name: x\n');

const BAD: [Partial<Record<keyof StartOptions, unknown>>, RegExp][] = [
  [{ journalSize: Number.NaN }, /journalSize: must be a whole number/],
  [{ journalSize: 1e9 }, /journalSize: must be at most 100000/],
  [{ requestTimeout: 1e300 }, /requestTimeout: must be at most 3600000/],
  [{ headersTimeout: Number.POSITIVE_INFINITY }, /headersTimeout: must be a whole number/],
  [{ bodyLimit: -1 }, /bodyLimit: must be at least 1/],
  [{ maxChallenges: 1.5 }, /maxChallenges: must be a whole number/],
  [{ replayCap: 0 }, /replayCap: must be at least 1/],
  [{ port: 70_000 }, /port: must be at most 65535/],
  [{ seed: -1 }, /seed: must be at least 0/],
  [{ publicUrl: 'javascript:alert(1)' }, /publicUrl: must be an http:\/\/ or https:\/\/ URL/],
  [{ apiUser: '12' }, /apiUser: must be exactly 9 digits/],
  [{ secret: '' }, /secret: must not be empty/],
  [{ scenarioDirs: 'dir' }, /scenarioDirs: must be a list/],
  [
    { scenarioDirs: ['/no/such/mfa-sim-dir'] },
    /scenarioDirs\[0\]: "\/no\/such\/mfa-sim-dir": there is no such directory/,
  ],
  [{ scenarioDirs: [tmpdir(), aFile] }, /scenarioDirs\[1\]: ".*file\.yaml": it is not a directory/],
  [{ scenarioDirs: [join(aFile, 'below')] }, /scenarioDirs\[0\]: ".*file\.yaml\/below": there is no such directory/],
  [{ allowedHosts: [42] }, /allowedHosts\[0\]: must be a string/],
];

describe('bad options are refused, naming the option', () => {
  for (const [options, message] of BAD) {
    it(`${JSON.stringify(options)}`, async () => {
      const started = startSimulator(options as StartOptions);
      await expect(started).rejects.toThrow(OptionsError);
      await expect(started).rejects.toMatchObject({ code: 'MFA_SIM_OPTIONS' });
      await expect(started).rejects.toThrow(message);
    });
  }

  it('options that are not an object at all', async () => {
    await expect(startSimulator(null as unknown as StartOptions)).rejects.toThrow(/options: must be an object/);
    await expect(startSimulator('')).rejects.toThrow(/scenario: must not be empty/);
  });
});

describe('in-process methods refuse arguments of the wrong kind with a 400', async () => {
  const sim = await simulator();
  const calls: [string, () => unknown][] = [
    ['approve(undefined)', () => sim.approve(undefined as unknown as string)],
    ['deny(42)', () => sim.deny(42 as unknown as string)],
    ['expire({})', () => sim.expire({} as unknown as string)],
    ['approve(id, 123456)', () => sim.approve('x', 123456 as unknown as string)],
    ['approve(id, "")', () => sim.approve('x', '')],
    ['journal(null)', () => sim.journal(null as unknown as undefined)],
    ['advance(undefined)', () => sim.advance(undefined as unknown as string)],
    ['freeze({})', () => sim.freeze({} as unknown as string)],
    ['loadScenario(null)', () => sim.loadScenario(null as unknown as string)],
    ['loadScenario(42)', () => sim.loadScenario(42 as unknown as string)],
    ['bindScenario(null, x)', () => sim.bindScenario(null as unknown as string, 'default')],
    ['journal({ limit: -1 })', () => sim.journal({ limit: -1 })],
    ['journal({ limit: 1.5 })', () => sim.journal({ limit: 1.5 })],
    ['journal({ limit: "5" })', () => sim.journal({ limit: '5' as unknown as number })],
    ['journal({ code: "x" })', () => sim.journal({ code: 'x' as unknown as number })],
    ['journal({ code: [2025, NaN] })', () => sim.journal({ code: [2025, Number.NaN] })],
    ['journal({ apiUser: 123456789 })', () => sim.journal({ apiUser: 123456789 as unknown as string })],
    ['report("html")', () => sim.report('html' as unknown as 'markdown')],
    [
      'report("markdown", { failOn: "fatal" })',
      () => sim.report('markdown', { failOn: 'fatal' as unknown as 'error' }),
    ],
    ['report("junit", { required: [-9999] })', () => sim.report('junit', { required: [-9999] })],
    [
      'report("markdown", { required: "all" })',
      () => sim.report('markdown', { required: 'all' as unknown as number[] }),
    ],
  ];
  for (const [label, call] of calls) {
    it(label, async () => {
      let thrown: unknown;
      try {
        call();
      } catch (e) {
        thrown = e;
      }
      expect(thrown, label).toBeInstanceOf(Error);
      expect(thrown).not.toBeInstanceOf(TypeError);
      const status = (thrown as { status?: number }).status;
      expect(status === 400 || status === 404 || thrown instanceof ScenarioError, String(thrown)).toBe(true);
      await expectStillServes(sim);
    });
  }
});

describe('in-process filters and report gates answer as the control API does', async () => {
  const sim = await simulator();
  await expectStillServes(sim);

  it('a journal limit of 0 or more and codes as numbers filter; the refusals name the filter', async () => {
    expect(sim.journal({ limit: 0 })).toEqual([]);
    expect(sim.journal({ limit: 1 })).toHaveLength(1);
    expect(sim.journal({ code: [15000], limit: 99 }).every((e) => e.code === 15000)).toBe(true);
    expect(() => sim.journal({ limit: -1 })).toThrow('limit must be a whole number');
    expect(() => sim.journal({ code: 'x' as unknown as number })).toThrow('code must be a code or a list of codes');
    expect(() => sim.journal({ apiUser: 5 as unknown as string })).toThrow('apiUser must be a string');
  });

  it('a report in a format it has, with gates it knows', () => {
    expect(sim.report('junit', { required: [15000], failOn: 'error' })).toMatch(/^<\?xml/);
    expect(() => sim.report('html' as unknown as 'markdown')).toThrow('format must be markdown or junit');
    expect(() => sim.report('markdown', { failOn: 'fatal' as unknown as 'error' })).toThrow(
      'failOn must be one of info, warning, error',
    );
    expect(() => sim.report('markdown', { required: [2025, -9999] })).toThrow(
      'required must be a list of codes of the service',
    );
  });
});
