import { describe, expect, it } from 'vitest';
import { startSimulator } from '../src/index.js';
import { compileGlob, GlobError, MAX_GLOB_ALTERNATIVES, MAX_GLOB_LENGTH } from '../src/world/glob.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from './helpers.js';

/**
 * The glob syntax of scenario values (accounts, `when.svcUser`, `when.headers`), each form as docs/scenarios.md
 * describes it, with the values on both sides of it; its limits at their exact values; and the same forms read from
 * a scenario and met through the real server. Folding and characters beyond ASCII: case-folding.test.ts; the cost of
 * matching: robustness/cost.test.ts.
 */

const matches = (pattern: string, value: string) => compileGlob(pattern)(value);

function expectMatches(cases: [pattern: string, value: string, expected: boolean][]): void {
  for (const [pattern, value, expected] of cases)
    expect(matches(pattern, value), `${pattern} ~ ${JSON.stringify(value)}`).toBe(expected);
}

describe('the glob syntax', () => {
  it('* any run of characters, dots and slashes included; ** the same as *; the whole value must match', () => {
    expectMatches([
      ['*@x.io', 'a.b/c@x.io', true],
      ['*@x.io', '@x.io', true],
      ['*@x.io', 'a@x.io.evil', false],
      ['a**b', 'ab', true],
      ['a**b', 'a-b', true],
      ['a*b*c', 'abc', true],
      ['a*b*c', 'acb', false],
    ]);
  });

  it('? exactly one character', () => {
    expectMatches([
      ['a?c', 'abc', true],
      ['a?c', 'ac', false],
      ['a?c', 'abbc', false],
      ['??', 'ab', true],
    ]);
  });

  it('[abc], [a-z], [!a-z] and [^a-z]; ] first is itself, - last is itself, an unclosed [ is itself', () => {
    expectMatches([
      ['[abc]x', 'bx', true],
      ['[abc]x', 'dx', false],
      ['[a-c]x', 'cx', true],
      ['[a-c]x', 'dx', false],
      ['[!a-c]x', 'dx', true],
      ['[!a-c]x', 'ax', false],
      ['[^a-c]x', 'dx', true],
      ['[^a-c]x', 'bx', false],
      ['[]a]x', ']x', true],
      ['[]a]x', 'ax', true],
      ['[!]a]x', 'bx', true],
      ['[!]a]x', ']x', false],
      ['[a-]x', '-x', true],
      ['[a-]x', 'ax', true],
      ['[a-]x', 'bx', false],
      ['[-a]x', '-x', true],
      ['a[b', 'a[b', true],
      ['a[b*', 'a[bc', true],
      ['a[b*', 'abc', false],
    ]);
  });

  it('{a,b} one of the alternatives, nested and empty ones too; an unclosed { is itself', () => {
    expectMatches([
      ['{a,b}@x.io', 'b@x.io', true],
      ['{a,b}@x.io', 'c@x.io', false],
      ['x{a,{b,c}d}y', 'xcdy', true],
      ['x{a,{b,c}d}y', 'xay', true],
      ['x{a,{b,c}d}y', 'xcy', false],
      ['x{,a}y', 'xy', true],
      ['x{,a}y', 'xay', true],
      ['a{b*', 'a{bc', true],
      ['a{b*', 'abc', false],
      ['{a,b}{c,d}', 'bd', true],
    ]);
  });

  it('\\x the character x itself: \\*, \\?, \\[, \\{, and a backslash at the end is a backslash', () => {
    expectMatches([
      ['a\\*', 'a*', true],
      ['a\\*', 'ab', false],
      ['a\\?', 'a?', true],
      ['a\\?', 'ab', false],
      ['\\[a]*', '[a]x', true],
      ['\\[a]*', 'ax', false],
      ['\\{a,b}*', '{a,b}x', true],
      ['\\{a,b}*', 'ax', false],
      ['x{a,\\}}y', 'x}y', true],
      ['*a\\', 'ba\\', true],
      ['*a\\', 'ba', false],
    ]);
  });

  it(`at most ${MAX_GLOB_LENGTH} characters and ${MAX_GLOB_ALTERNATIVES} alternatives: the last one allowed matches, one more is a GlobError naming the limit`, () => {
    const longest = `*${'a'.repeat(MAX_GLOB_LENGTH - 1)}`;
    expect(matches(longest, 'a'.repeat(MAX_GLOB_LENGTH - 1))).toBe(true);
    expect(() => compileGlob(`${longest}a`)).toThrow(new GlobError(`a glob is at most ${MAX_GLOB_LENGTH} characters`));
    // 4 × 4 × 4 × 4 = 256 alternatives; one more choice in the first brace makes 320.
    const many = '{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}';
    expect(matches(many, 'dcba')).toBe(true);
    const refused = (() => {
      try {
        compileGlob(`{a,b,c,d,e}${many.slice(9)}`);
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(GlobError);
    expect(refused).toMatchObject({
      name: 'GlobError',
      message: `a glob stands for at most ${MAX_GLOB_ALTERNATIVES} alternatives once its braces are expanded`,
    });
  });
});

describe('globs read from a scenario and met through the server', async () => {
  const A = { apiUser: '123456789', secret: 'globs-secret' };
  const sim = await simulator({
    name: 'globs',
    apiUsers: [{ id: A.apiUser, secret: A.secret }],
    accounts: {
      '{alice,bob}@team.example': 'locked',
      'user[0-9]@digits.example': 'blocked',
      'user-?@one.example': 'disabled',
      'star\\*@literal.example': 'invalid',
    },
    rules: [{ name: 'by header', when: { headers: { 'x-case': 'drift-{a,b}[!0-9]*' } }, respond: { code: -5000 } }],
  });
  const challenge = (svcUser: string, headers: Record<string, string> = {}) =>
    send(sim, '/v1/svc/challenge', { as: A, headers, body: challengeEnvelope(A.apiUser, { svcUser }) });

  it('accounts by alternatives, sets, ? and an escaped *', async () => {
    expectEnvelope(await challenge('BOB@team.example'), 400, -2006);
    expectEnvelope(await challenge('carol@team.example'), 202, 2025);
    expectEnvelope(await challenge('user7@digits.example'), 400, -2004);
    expectEnvelope(await challenge('userx@digits.example'), 202, 2025);
    expectEnvelope(await challenge('user-1@one.example'), 400, -2007);
    expectEnvelope(await challenge('user-12@one.example'), 202, 2025);
    expectEnvelope(await challenge('star*@literal.example'), 400, -2003);
    expectEnvelope(await challenge('starry@literal.example'), 202, 2025);
  });

  it('a rule by a header glob', async () => {
    expectEnvelope(await challenge('u@example.com', { 'x-case': 'drift-ax' }), 500, -5000);
    expectEnvelope(await challenge('u@example.com', { 'x-case': 'DRIFT-Bx-more' }), 500, -5000);
    expectEnvelope(await challenge('u@example.com', { 'x-case': 'drift-a1' }), 202, 2025);
    expectEnvelope(await challenge('u@example.com', { 'x-case': 'drift-c' }), 202, 2025);
  });

  it('a glob past its limits is refused when the scenario is read, naming where', async () => {
    await expect(startSimulator({ accounts: { [`*${'a'.repeat(MAX_GLOB_LENGTH)}`]: 'locked' } })).rejects.toThrow(
      `a glob is at most ${MAX_GLOB_LENGTH} characters`,
    );
    await expect(
      startSimulator({
        rules: [{ when: { svcUser: '{a,b,c,d,e}{a,b,c,d}{a,b,c,d}{a,b,c,d}@x.io' }, respond: { code: -2004 } }],
      }),
    ).rejects.toThrow(/rules\[0\]\.when\.svcUser: a glob stands for at most 256 alternatives/);
  });
});
