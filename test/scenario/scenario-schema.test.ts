import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pages } from '../../scripts/check-links.js';
import { ScenarioSchema, scenarioJsonSchema } from '../../src/scenario/schema.js';

/**
 * The scenario schema the package ships (`mfa-sim/scenario.schema.json`), for editors: it is the one schema of the
 * code, and an independent validator (Ajv, where the simulator uses TypeBox) accepts every shipped scenario and
 * every scenario example of the README and docs/ against it.
 */

const root = join(__dirname, '..', '..');
const shipped = readFileSync(join(root, 'scenario.schema.json'), 'utf8');
const validate = new Ajv2020({ strict: true, allErrors: true }).compile(JSON.parse(shipped) as object);
const KEYS = new Set(Object.keys(ScenarioSchema.properties));

describe('the shipped scenario schema', () => {
  it('is the one schema of the code, written by the build', () => {
    expect(JSON.parse(shipped)).toEqual(scenarioJsonSchema());
  });

  const files = readdirSync(join(root, 'scenarios')).filter((f) => f.endsWith('.yaml'));
  for (const file of files) {
    it(`scenarios/${file}: starts with the yaml-language-server modeline and is valid`, () => {
      const text = readFileSync(join(root, 'scenarios', file), 'utf8');
      expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../scenario.schema.json');
      expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
    });
  }

  it('accepts every scenario example in the README and docs/ (those that are scenarios)', () => {
    let examples = 0;
    for (const page of pages(root)) {
      for (const m of readFileSync(page, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)) {
        const value = parse(m[1]) as Record<string, unknown> | null;
        if (!value || typeof value !== 'object' || !Object.keys(value).some((k) => KEYS.has(k))) continue;
        examples++;
        const scenario = { name: 'example', ...value };
        expect(validate(scenario), `${page}:\n${m[1]}\n${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
    expect(examples).toBeGreaterThanOrEqual(4);
  });

  it('refuses what the simulator refuses: an unknown key, a wrong type, a missing name', () => {
    expect(validate({ name: 'x', clock: { ofset: '10m' } })).toBe(false);
    expect(validate({ name: 'x', strict: 'yes' })).toBe(false);
    expect(validate({ description: 'no name' })).toBe(false);
    expect(validate({ name: 'x', rules: [{ fault: 'explode' }] })).toBe(false);
  });
});
