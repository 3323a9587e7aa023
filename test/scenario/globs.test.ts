import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/index.js';
import { MAX_GLOB_LENGTH, valueMatcher } from '../../src/scenario/glob.js';
import { cancelEnvelope, challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator } from '../helpers.js';

/**
 * Scenario values (accounts, `when.svcUser`, `when.headers`) are exact or globs, compared case-insensitively (both
 * sides lower-cased): `*` any run of characters, `?` one character (one code point), everything else itself. Each
 * form with the values on both sides of it, its limit, and the same forms read from a scenario and met through the
 * real server. The cost of matching: robustness/cost.test.ts.
 */

function expectMatches(cases: [pattern: string, value: string, expected: boolean][]): void {
  for (const [pattern, value, expected] of cases)
    expect(valueMatcher(pattern)(value), `${pattern} ~ ${JSON.stringify(value)}`).toBe(expected);
}

describe('the glob syntax', () => {
  it('* any run of characters, dots and slashes included; ** the same as *; the whole value must match', () => {
    expectMatches([
      ['*@example.com', 'a.b/c@example.com', true],
      ['*@example.com', '@example.com', true],
      ['*@example.com', 'a@example.com.evil', false],
      ['a**b', 'ab', true],
      ['a**b', 'a-x-b', true],
      ['*', '', true],
      ['a*', 'ba', false],
    ]);
  });

  it('? exactly one character, one code point: an emoji is one', () => {
    expectMatches([
      ['a?c', 'abc', true],
      ['a?c', 'ac', false],
      ['a?c', 'abbc', false],
      ['?@x.io', '😀@x.io', true],
      ['??@x.io', '😀@x.io', false],
    ]);
  });

  it('brackets and braces are themselves; \\x is the character x itself', () => {
    expectMatches([
      ['[ab]*', '[ab]x', true],
      ['[ab]*', 'a', false],
      ['{a,b}@x.io', '{a,b}@x.io', true],
      ['{a,b}@x.io', 'a@x.io', false],
      ['a\\*b@x.io', 'a*b@x.io', true],
      ['a\\*b@x.io', 'axb@x.io', false],
      ['a\\?@x.io', 'a?@x.io', true],
      ['a\\?@x.io', 'ab@x.io', false],
      ['a\\\\*', 'a\\xyz', true],
      ['a\\', 'a\\', true],
    ]);
  });

  it('in any case, both sides lower-cased: ß is not ss, İ is not i', () => {
    expectMatches([
      ['USER-*@Example.COM', 'user-1@example.com', true],
      ['straße-?', 'STRAßE-X', true],
      ['straße-?', 'STRASSE-X', false],
      ['İ*', 'İx', true],
      ['İ*', 'ix', false],
      ['exact@x.io', 'EXACT@X.IO', true],
      ['exact@x.io', 'exact@x.io.', false],
    ]);
  });
});

const A = { apiUser: '123456789', secret: 'glob-secret' };

describe('globs read from a scenario, met through the real server', async () => {
  const sim = await simulator({
    name: 'globs',
    apiUsers: [{ id: A.apiUser, secret: A.secret }],
    accounts: {
      'Locked@Example.COM': 'locked',
      // The same in another case: the first written wins.
      'LOCKED@EXAMPLE.com': 'blocked',
      'user?@digits.example': 'disabled',
      '*@team.example': 'locked',
    },
    rules: [
      { name: 'by header', when: { headers: { 'x-case': 'drift-*' } }, respond: { code: -5000 } },
      { name: 'Latin-1 or UTF-8', when: { headers: { 'x-word': 'größe-?' } }, respond: { code: -4034 } },
    ],
  });
  const challenge = (svcUser: string, headers: Record<string, string> = {}) =>
    send(sim, '/v1/svc/challenge', { as: A, headers, body: challengeEnvelope(A.apiUser, { svcUser }) });

  it('accounts exact in any case, then globs in the order written', async () => {
    expectEnvelope(await challenge('locked@example.com'), 400, -2006);
    expectEnvelope(await challenge('LOCKED@EXAMPLE.COM'), 400, -2006);
    expectEnvelope(await challenge('locked@example.org'), 202, 2025);
    expectEnvelope(await challenge('user7@digits.example'), 400, -2007);
    expectEnvelope(await challenge('user77@digits.example'), 202, 2025);
    expectEnvelope(await challenge('BOB@team.example'), 400, -2006);
  });

  it('a rule by a header glob, in any case', async () => {
    expectEnvelope(await challenge('u@example.com', { 'x-case': 'drift-ax' }), 500, -5000);
    expectEnvelope(await challenge('u@example.com', { 'x-case': 'DRIFT-Bx-more' }), 500, -5000);
    expectEnvelope(await challenge('u@example.com', { 'x-case': 'drif-a1' }), 202, 2025);
  });

  it('a header value written in UTF-8 (curl; Node with a body) is met as one written in Latin-1 (fetch, requests, Java)', async () => {
    /** The value's UTF-8 bytes, as Node hands them over (one character a byte). */
    const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const time = (headers: Record<string, string>) => send(sim, '/v1/svc/time', { method: 'GET', as: A, headers });
    expectEnvelope(await time({ 'x-word': 'größe-x' }), 400, -4034);
    expectEnvelope(await time({ 'x-word': utf8('GRÖßE-€') }), 400, -4034);
    expectEnvelope(await time({ 'x-word': utf8('größe-xx') }), 200, 15000);
    // A byte-order mark the client sent is part of the value: not dropped for it to match.
    expectEnvelope(await time({ 'x-word': utf8('\ufeffgröße-x') }), 200, 15000);
    // Node's client writes headers in UTF-8 when the request has a body: the rule meets them all the same.
    expectEnvelope(await challenge('u@example.com', { 'x-word': 'größe-y' }), 400, -4034);
  });

  it('a challenge belongs to its user in any case: looked up and cancelled by the e-mail written otherwise', async () => {
    const created = await challenge('Owner@Example.com');
    expectEnvelope(created, 202, 2025);
    const { challengeId } = JSON.parse(created.json.message) as { challengeId: string };
    const status = (user: string) =>
      send(sim, '/v1/svc/status', { as: A, body: lookupEnvelope(A.apiUser, 171, challengeId, {}, user) });
    expect((await status('OWNER@example.COM')).json.code).toBe(-3091);
    expectEnvelope(await status('owner2@example.com'), 400, -3087);
    const cancel = cancelEnvelope(A.apiUser, challengeId, 'owner@EXAMPLE.com');
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: A, body: cancel }), 202, 2028);
  });

  it('a glob past its limit is refused when the scenario is read, naming where', async () => {
    await expect(startSimulator({ accounts: { [`*${'a'.repeat(MAX_GLOB_LENGTH)}`]: 'locked' } })).rejects.toThrow(
      `a glob is at most ${MAX_GLOB_LENGTH} characters`,
    );
    await expect(
      startSimulator({ rules: [{ when: { svcUser: `${'?'.repeat(MAX_GLOB_LENGTH)}*` }, respond: { code: -2004 } }] }),
    ).rejects.toThrow(/rules\[0\]\.when\.svcUser: a glob is at most 256 characters/);
  });

  it('an exact account no request can carry is refused when the scenario is read, naming it', async () => {
    for (const email of ['İlker@x.io', 'user@localhost', 'two words@x.io', 'straße@x.io', 'a@b@x.io']) {
      await expect(startSimulator({ accounts: { [email]: 'locked' } }), email).rejects.toThrow(
        `accounts[${JSON.stringify(email)}]: must be an e-mail address a request can carry`,
      );
    }
    const ok = await startSimulator({ accounts: { 'Mixed.Case+tag@Sub.Example.org': 'locked' } });
    await ok.close();
  });
});
