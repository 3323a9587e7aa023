import { describe, expect, it } from 'vitest';
import { ScenarioError, type ScenarioIssue } from '../src/scenario/errors.js';
import { compileOrThrow, loadScenarioText } from '../src/scenario/load.js';
import { startSimulator } from '../src/index.js';

/**
 * A scenario's problems all come in one pass, each with its file, line and key: those of shape (unknown keys, wrong
 * types) and those of meaning (an unknown account state, a code not in the table) together, a misspelled key's value
 * checked as the key it is near; and none that only a value already refused could have caused.
 */

function problems(text: string): string[] {
  try {
    loadScenarioText(text, 's.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return (e as Error).message.split('\n');
  }
  throw new Error('the scenario was accepted');
}

function issues(value: unknown): ScenarioIssue[] {
  try {
    compileOrThrow(value, 'options');
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return (e as ScenarioError).issues;
  }
  throw new Error('the scenario was accepted');
}

describe('every problem of a scenario in one pass', () => {
  it("a newcomer's first scenario: unknown keys, a misspelled value and an unknown account state, in the order of the file", () => {
    const text = [
      'name: newcomer',
      'acounts:',
      '  locked@example.com: lockd',
      'rules:',
      '  - when: { endpoint: challenges }',
      '    delay: 1500ms',
      '  - afer: 2',
      '    times: 1',
      '    respond: { code: -5000 }',
    ].join('\n');
    expect(problems(text)).toEqual([
      's.yaml:2: acounts: unknown key (did you mean "accounts"?)',
      expect.stringMatching(/^s\.yaml:3: acounts\["locked@example\.com"\]: unknown account state `lockd` \(did you mean "locked"\? one of: active, /),
      's.yaml:5: rules[0].when.endpoint: must be one of: challenge, time, status, verify, blocked (did you mean "challenge"?)',
      's.yaml:7: rules[1].afer: unknown key (did you mean "after"?)',
    ]);
  });

  it('a value under a misspelled key is checked as the key it is near: its own problems, at the key as written', () => {
    expect(problems('name: x\nrules:\n  - afer: two\n    respond: { cod: -5000 }\n  - respond: { code: -99999 }\n')).toEqual([
      's.yaml:3: rules[0].afer: unknown key (did you mean "after"?)',
      's.yaml:3: rules[0].afer: must be a whole number',
      // Not "code is required" as well: the misspelled key is read as code.
      's.yaml:4: rules[0].respond.cod: unknown key (did you mean "code"?)',
      's.yaml:5: rules[1].respond.code: -99999 is not a code of the code table (see `mfa-sim --codes`)',
    ]);
    expect(problems('name: x\nclok:\n  ofset: soon\n  maxDrift: 5 minutes\n')).toEqual([
      's.yaml:2: clok: unknown key (did you mean "clock"?)',
      's.yaml:3: clok.ofset: unknown key (did you mean "offset"?)',
      expect.stringMatching(/^s\.yaml:3: clok\.ofset: `soon` is not a duration/),
      expect.stringMatching(/^s\.yaml:4: clok\.maxDrift: `5 minutes` is not a duration/),
    ]);
  });

  it('a missing name does not hide the rest', () => {
    expect(problems('accounts:\n  a@example.com: frozen\n')).toEqual([
      's.yaml:1: name: is required',
      expect.stringMatching(/^s\.yaml:2: accounts\["?a@example\.com"?\]: unknown account state `frozen`/),
    ]);
  });

  it('reports nothing that only a refused value could have caused', () => {
    // A rule whose respond is misspelled does something; a hang with a misspelled fault is not "hangFor without hang";
    // a rule naming an API user whose entry is refused is not "not in apiUsers"; a bad offset does not move frozenAt.
    // (A rule, API user, account or setting with a refused value has its problems of meaning reported once it is
    // mended: they may depend on that value.)
    const text = [
      'name: x',
      'apiUsers:',
      '  - id: 123456789',
      '    secret: s',
      'clock:',
      '  offset: 99999999999999999',
      '  frozenAt: 2026-01-01T00:00:00Z',
      'rules:',
      '  - respond: { cod: -5000 }',
      '  - fault: hangs',
      '    hangFor: 1s',
      '  - when: { apiUser: "123456789" }',
      '    respond: { code: -5000 }',
      '  - every: 3',
      '    times: 2',
      '    respond: { code: -5000 }',
    ].join('\n');
    expect(problems(text)).toEqual([
      's.yaml:3: apiUsers[0].id: must be a string',
      expect.stringMatching(/^s\.yaml:6: clock\.offset: /),
      's.yaml:9: rules[0].respond.cod: unknown key (did you mean "code"?)',
      expect.stringMatching(/^s\.yaml:10: rules\[1\]\.fault: must be one of: reset, hang, .* \(did you mean "hang"\?\)$/),
      // A rule read whole still has its problems of meaning reported.
      's.yaml:14: rules[3].every: impossible: every 3th request within only 2',
    ]);
  });

  it('in-process options too: every problem, by key, and the caller\'s value unchanged', async () => {
    const options = { name: 'x', acounts: { 'a@example.com': 'lockd' }, rules: [{ respond: { code: 12345 } }], ['__proto__']: { polluted: true } };
    Object.defineProperty(options, '__proto__', { value: { polluted: true }, enumerable: true });
    const before = JSON.stringify(options);
    expect(issues(options).map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'acounts: unknown key (did you mean "accounts"?)',
      '__proto__: unknown key (known keys: name, description, token, strict, responseStyle, hints, auth, clock, replay, apiUsers, accounts, defaultAccountState, autoVerify, rules)',
      expect.stringMatching(/^acounts\.a@example\.com: unknown account state `lockd`/),
      '0: 12345 is not a code of the code table (see `mfa-sim --codes`)'.replace('0', 'rules.0.respond.code'),
    ]);
    expect(JSON.stringify(options)).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expect(startSimulator({ acounts: {}, defaultAccountState: 'lockd' } as never)).rejects.toThrow(
      /acounts: unknown key \(did you mean "accounts"\?\)\n.*defaultAccountState: unknown account state `lockd`/,
    );
  });

  it('a value that is no scenario at all, or too broken to mend, gets its problems of shape alone', () => {
    expect(issues(['name', 'x']).map((i) => i.message)).toEqual(['must be a mapping (key: value)']);
    expect(issues({ name: 5, accounts: { 'a@example.com': 'lockd' } }).map((i) => i.path.join('.'))).toEqual(['name', 'accounts.a@example.com']);
  });
});
