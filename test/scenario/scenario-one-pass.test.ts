import { describe, expect, it } from 'vitest';
import { ScenarioError, type ScenarioIssue } from '../../src/contract/errors.js';
import { compileOrThrow, loadScenarioText } from '../../src/scenario/load.js';
import { startSimulator } from '../../src/index.js';

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
      expect.stringMatching(
        /^s\.yaml:3: acounts\["locked@example\.com"\]: unknown account state `lockd` \(did you mean "locked"\? one of: active, /,
      ),
      's.yaml:5: rules[0].when.endpoint: must be one of: challenge, time, status, verify, blocked (did you mean "challenge"?)',
      's.yaml:7: rules[1].afer: unknown key (did you mean "after"?)',
    ]);
  });

  it('a value under a misspelled key is checked as the key it is near: its own problems, at the key as written', () => {
    expect(
      problems('name: x\nrules:\n  - afer: two\n    respond: { cod: -5000 }\n  - respond: { code: -99999 }\n'),
    ).toEqual([
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
      expect.stringMatching(
        /^s\.yaml:10: rules\[1\]\.fault: must be one of: reset, hang, .* \(did you mean "hang"\?\)$/,
      ),
      // A rule read whole still has its problems of meaning reported.
      's.yaml:14: rules[3].every: impossible: every 3th request within only 2',
    ]);
  });

  it("in-process options too: every problem, by key, and the caller's value unchanged", async () => {
    const options = {
      name: 'x',
      acounts: { 'a@example.com': 'lockd' },
      rules: [{ respond: { code: 12345 } }],
      ['__proto__']: { polluted: true },
    };
    Object.defineProperty(options, '__proto__', { value: { polluted: true }, enumerable: true });
    const before = JSON.stringify(options);
    expect(issues(options).map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'acounts: unknown key (did you mean "accounts"?)',
      '__proto__: unknown key (known keys: name, description, token, strict, responseStyle, hints, auth, clock, replay, apiUsers, accounts, defaultAccountState, people, magicAddresses, autoVerify, rules)',
      expect.stringMatching(/^acounts\.a@example\.com: unknown account state `lockd`/),
      '0: 12345 is not a code of the code table (see `mfa-sim --codes`)'.replace('0', 'rules.0.respond.code'),
    ]);
    expect(JSON.stringify(options)).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expect(startSimulator({ acounts: {}, defaultAccountState: 'lockd' } as never)).rejects.toThrow(
      /acounts: unknown key \(did you mean "accounts"\?\)\n.*defaultAccountState: unknown account state `lockd`/,
    );
  });

  it('a key with no near known key is set aside with its part: a rule that only misnames its respond is not also "does nothing"', () => {
    expect(
      problems(
        'name: x\nrules:\n  - reply: { code: -5000 }\n  - every: 3\n    times: 2\n    respond: { code: -5000 }\n',
      ),
    ).toEqual([
      's.yaml:3: rules[0].reply: unknown key (known keys: name, when, after, times, every, respond, delay, fault, hangFor)',
      's.yaml:4: rules[1].every: impossible: every 3th request within only 2',
    ]);
  });

  it('an API user set aside takes with it the rules that name API users, and nothing else', () => {
    const text =
      'name: x\napiUsers:\n  - id: 123456789\n    secret: s\nrules:\n  - when: { apiUser: "123456789" }\n    respond: { code: -5000 }\n  - every: 3\n    times: 2\n    respond: { code: -5000 }\n';
    expect(problems(text)).toEqual([
      's.yaml:3: apiUsers[0].id: must be a string',
      's.yaml:8: rules[1].every: impossible: every 3th request within only 2',
    ]);
  });

  it('which rule an earlier one beats is told only when every rule was read whole', () => {
    // The misspelled endpoint stands in as the first of the list (challenge): read so, the first rule would beat the
    // second.
    const setAside =
      'name: x\nrules:\n  - when: { endpoint: challenges }\n    respond: { code: -5000 }\n  - when: { endpoint: challenge }\n    respond: { code: -2006 }\n';
    expect(problems(setAside)).toEqual([
      's.yaml:3: rules[0].when.endpoint: must be one of: challenge, time, status, verify, blocked (did you mean "challenge"?)',
    ]);
    const whole =
      'name: x\nacounts: {}\nrules:\n  - when: { endpoint: challenge }\n    respond: { code: -5000 }\n  - when: { endpoint: challenge }\n    respond: { code: -2006 }\n';
    expect(problems(whole)).toEqual([
      's.yaml:2: acounts: unknown key (did you mean "accounts"?)',
      expect.stringMatching(/^s\.yaml:6: rules\[1\]: impossible: rules\[0\] before it decides/),
    ]);
  });

  it('values of the wrong kind (a list for a mapping, a mapping for a list) stand aside and the rest is still read', () => {
    expect(problems('name: x\napiUsers: [5]\nrules: 5\naccounts: [1]\ndefaultAccountState: lockd\n')).toEqual([
      's.yaml:2: apiUsers[0]: must be a mapping (key: value)',
      's.yaml:3: rules: must be a list',
      's.yaml:4: accounts: must be a mapping (key: value)',
      expect.stringMatching(/^s\.yaml:5: defaultAccountState: unknown account state `lockd` \(did you mean "locked"\?/),
    ]);
  });

  it('misspellings nested three deep are each read as meant, and the value under them checked', () => {
    expect(
      problems('name: x\napiUser:\n  - id: "123456789"\n    secret: s\n    ipRule:\n      blok: [300.1.2.3/8]\n'),
    ).toEqual([
      's.yaml:2: apiUser: unknown key (did you mean "apiUsers"?)',
      's.yaml:5: apiUser[0].ipRule: unknown key (did you mean "ipRules"?)',
      's.yaml:6: apiUser[0].ipRule.blok: unknown key (did you mean "block"?)',
      's.yaml:6: apiUser[0].ipRule.blok[0]: `300.1.2.3/8` is not an IPv4 address or CIDR block',
    ]);
  });

  it('at most 20 problems: those of shape, then the first of meaning, in the order of the file', () => {
    const text = [
      'name: x',
      'accounts:',
      ...Array.from({ length: 25 }, (_, i) => `  u${i}@example.com: lockd`),
      'acountz: 1',
    ].join('\n');
    const got = problems(text);
    expect(got).toHaveLength(20);
    expect(got[0]).toMatch(/^s\.yaml:3: accounts\["u0@example\.com"\]: unknown account state/);
    expect(got[18]).toMatch(/^s\.yaml:21: accounts\["u18@example\.com"\]: unknown account state/);
    expect(got[19]).toBe('s.yaml:28: acountz: unknown key (did you mean "accounts"?)');
  });

  it("nothing of the caller's value is changed, however deep the misspelling", () => {
    const rule = { afer: 1, respond: { code: -5000, mesage: 'x' } };
    const options = { name: 'x', rules: [rule] };
    expect(issues(options).map((i) => i.path.join('.'))).toEqual(['rules.0.afer', 'rules.0.respond.mesage']);
    expect(options.rules[0]).toBe(rule);
    expect(rule).toEqual({ afer: 1, respond: { code: -5000, mesage: 'x' } });
  });

  it("a rule's own problems of meaning still count when another rule is set aside", () => {
    const text =
      'name: x\napiUsers:\n  - id: "123456789"\n    secret: s\nrules:\n  - fault: hangs\n  - when: { apiUser: "987654321" }\n    respond: { code: -5000 }\n';
    expect(problems(text)).toEqual([
      expect.stringMatching(/^s\.yaml:6: rules\[0\]\.fault: must be one of: /),
      "s.yaml:7: rules[1].when.apiUser: impossible: API user 987654321 is not in this scenario's apiUsers",
    ]);
  });

  it('a value set aside outside the rules leaves which rule beats which to be told', () => {
    expect(
      problems('name: x\nstrict: maybe\nrules:\n  - respond: { code: -5000 }\n  - respond: { code: -5000 }\n'),
    ).toEqual([
      's.yaml:2: strict: must be true or false',
      expect.stringMatching(/^s\.yaml:5: rules\[1\]: impossible: rules\[0\] before it decides/),
    ]);
  });

  it('a number, a duration or a count of the wrong kind stands aside as one of the right kind: the rest is read', () => {
    const text =
      'name: x\nclock:\n  offset: [1]\n  frozenAt: someday\nrules:\n  - times: two\n    respond: { code: -5000 }\n  - after: -1\n    respond: { code: -5000 }\ndefaultAccountState: lockd\n';
    expect(problems(text)).toEqual([
      expect.stringMatching(/^s\.yaml:3: clock\.offset: must be a duration/),
      expect.stringMatching(/^s\.yaml:4: clock\.frozenAt: /),
      's.yaml:6: rules[0].times: must be a whole number',
      's.yaml:8: rules[1].after: must be at least 0',
      expect.stringMatching(/^s\.yaml:10: defaultAccountState: unknown account state `lockd`/),
    ]);
  });

  it('a value that is no scenario at all, or too broken to mend, gets its problems of shape alone', () => {
    for (const value of [null, 'name: x', 5, ['name', 'x']])
      expect(
        issues(value).map((i) => `${i.path.join('.')}: ${i.message}`),
        String(value),
      ).toEqual([': must be a mapping (key: value)']);
    expect(issues({ name: 5, accounts: { 'a@example.com': 'lockd' } }).map((i) => i.path.join('.'))).toEqual([
      'name',
      'accounts.a@example.com',
    ]);
  });
});
