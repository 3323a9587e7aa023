import { describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../src/index.js';
import { foldCase, foldChar } from '../src/world/fold-case.js';
import { compileGlob } from '../src/world/glob.js';
import { cancelEnvelope, challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator } from './helpers.js';

/**
 * Scenario values are compared case-insensitively, by one folding for exact values and globs alike: each character
 * folded to one character (Unicode's simple case folding). Through the API, an e-mail is ASCII (the service refuses
 * any other with -5079) and a header value Latin-1; the folding beyond them is checked on its own below.
 */

const A = { apiUser: '123456789', secret: 'fold-case-a' };

const challenge = (sim: RunningSimulator, svcUser: string, headers: Record<string, string> = {}) =>
  send(sim, '/v1/svc/challenge', { as: A, headers, body: challengeEnvelope(A.apiUser, { svcUser }) });

describe('case-insensitive scenario values', async () => {
  const sim = await simulator({
    name: 'case folding',
    apiUsers: [{ id: A.apiUser, secret: A.secret }],
    accounts: {
      'Locked@Example.COM': 'locked',
      // Folds as the key above: the first written wins.
      'LOCKED@EXAMPLE.com': 'blocked',
      'İ*@x.io': 'disabled',
      '?@one.example': 'blocked',
    },
    rules: [
      { name: 'Latin-1 glob', when: { headers: { 'x-case': 'STRA?E-[À-Þ]' } }, respond: { code: -5000 } },
      { name: 'micro sign and mu', when: { headers: { 'x-unit': 'μs' } }, respond: { code: -4036 } },
      { name: 'UTF-8 or Latin-1', when: { headers: { 'x-word': 'größe-?' } }, respond: { code: -4034 } },
      { name: 'Latin-1 that is UTF-8 too', when: { headers: { 'x-pair': 'Â©*' } }, respond: { code: -4034 } },
    ],
  });

  it('an exact account is met in any case', async () => {
    expectEnvelope(await challenge(sim, 'locked@example.com'), 400, -2006);
    expectEnvelope(await challenge(sim, 'LOCKED@EXAMPLE.COM'), 400, -2006);
    expectEnvelope(await challenge(sim, 'locked@example.org'), 202, 2025);
  });

  it('a glob beginning with İ is not met by an ASCII i (lowering İ made it i and a combining dot, and the glob compared the i)', async () => {
    expectEnvelope(await challenge(sim, 'ix@x.io'), 202, 2025);
    expectEnvelope(await challenge(sim, 'IX@x.io'), 202, 2025);
  });

  it('? is one character, whatever its case', async () => {
    expectEnvelope(await challenge(sim, 'a@one.example'), 400, -2004);
    expectEnvelope(await challenge(sim, 'A@ONE.EXAMPLE'), 400, -2004);
    expectEnvelope(await challenge(sim, 'ab@one.example'), 202, 2025);
  });

  it('a header value in Latin-1 is folded as the rule is: ß for ?, a set of capitals met by small letters and by ×, not ÷, µ and μ one letter', async () => {
    // A request without a body: Node's client writes its headers in Latin-1 then (with a body, in the body's UTF-8).
    const time = (headers: Record<string, string>) => send(sim, '/v1/svc/time', { method: 'GET', as: A, headers });
    expectEnvelope(await time({ 'x-case': 'straße-é' }), 500, -5000);
    expectEnvelope(await time({ 'x-case': 'STRAßE-Ê' }), 500, -5000);
    expectEnvelope(await time({ 'x-case': 'STRASSE-é' }), 200, 15000);
    expectEnvelope(await time({ 'x-case': 'straße-÷' }), 200, 15000);
    expectEnvelope(await time({ 'x-case': 'straße-×' }), 500, -5000);
    // U+00B5 (the micro sign, Latin-1) against U+03BC in the rule: one letter for a regular expression with i and u.
    expectEnvelope(await time({ 'x-unit': 'µS' }), 400, -4036);
    expectEnvelope(await time({ 'x-unit': 'ms' }), 200, 15000);
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
    // Bytes that are UTF-8 too (C2 A9, ©) keep their Latin-1 reading (Â©); bytes that are not are read as Latin-1
    // alone.
    expectEnvelope(await time({ 'x-pair': 'Â©' }), 400, -4034);
    expectEnvelope(await time({ 'x-word': `${utf8('größe-')}\xff` }), 200, 15000);
    // Node's client writes headers in UTF-8 when the request has a body: the rule meets them all the same.
    expectEnvelope(await challenge(sim, 'u@example.com', { 'x-word': 'größe-y' }), 400, -4034);
  });

  it('a challenge belongs to its user in any case: looked up and cancelled by the e-mail written otherwise', async () => {
    const created = await challenge(sim, 'Owner@Example.com');
    expectEnvelope(created, 202, 2025);
    const { challengeId } = JSON.parse(created.json.message) as { challengeId: string };
    const status = await send(sim, '/v1/svc/status', {
      as: A,
      body: lookupEnvelope(A.apiUser, 171, challengeId, {}, 'OWNER@example.COM'),
    });
    expect(status.json.code).not.toBe(-3087);
    expectEnvelope(
      await send(sim, '/v1/svc/status', {
        as: A,
        body: lookupEnvelope(A.apiUser, 171, challengeId, {}, 'owner2@example.com'),
      }),
      400,
      -3087,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', {
        as: A,
        body: cancelEnvelope(A.apiUser, challengeId, 'owner@EXAMPLE.com'),
      }),
      202,
      2028,
    );
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

describe('the folding itself', () => {
  it('folds each character to one, as a regular expression with the i and u flags compares, over every code point', () => {
    const escape = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    const byFold = new Map<string, string>();
    let tooLoose = 0;
    let notOne = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      const f = foldChar(ch);
      if ([...f].length !== 1) notOne++;
      // Every character folded together is one letter for the regular expression: nothing is matched too widely.
      const first = byFold.get(f);
      if (first === undefined) byFold.set(f, ch);
      else if (!new RegExp(`^${escape(first)}$`, 'iu').test(ch)) tooLoose++;
    }
    expect(notOne).toBe(0);
    expect(tooLoose).toBe(0);
    // ... nor too narrowly: a character and its one-character upper and lower cases fold together when the regular
    // expression joins them.
    let tooStrict = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      // A character no case mapping changes has no other one to be joined with by them.
      if (ch.toUpperCase() === ch && ch.toLowerCase() === ch) continue;
      const same = new RegExp(`^${escape(ch)}$`, 'iu');
      for (const other of [ch.toUpperCase(), ch.toLowerCase(), ch.toUpperCase().toLowerCase()]) {
        if ([...other].length === 1 && same.test(other) && foldChar(other) !== foldChar(ch)) tooStrict++;
      }
    }
    expect(tooStrict).toBe(0);
  });

  it('a text folds as its characters do one by one, whatever stands around them (a final Σ, İ, the letters lowering keeps)', () => {
    const byChar = (text: string) => [...text].map(foldChar).join('');
    let differ = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (foldCase(ch) !== foldChar(ch)) differ++;
    }
    expect(differ).toBe(0);
    // In context: lowering a whole text makes ς of a Σ that ends a word, and i with a combining dot of İ.
    const pieces = ['Σ', 'σ', 'ς', 'α', ' ', 'İ', 'i', 'ı', 'I', '\u0307', 'µ', 'ſ', 'S', 'ß', 'ẞ', '😀', 'ᲀ', '@'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: 1 + (next() % 12) }, () => pieces[next() % pieces.length]).join('');
      expect(foldCase(text), JSON.stringify(text)).toBe(byChar(text));
    }
  });

  it('a text folds character by character; ASCII as the engine lowers it', () => {
    expect(foldCase('User@Example.COM')).toBe('user@example.com');
    expect(foldCase('İSTANBUL')).toBe('İstanbul');
    expect(foldCase('ΟΔΟΣ ΟΔΟΣ')).toBe('οδοσ οδοσ');
    expect(foldCase('a😀B')).toBe('a😀b');
    expect(foldCase('ẞ')).toBe('ß');
  });

  it('a glob counts characters, not UTF-16 units, in ?, sets, literals and its least length', () => {
    const cases: [string, string, boolean][] = [
      ['a?b', 'a😀b', true],
      ['a??b', 'a😀b', false],
      ['??', '😀😀', true],
      ['?', '😀😀', false],
      ['[😀-😂]', '😁', true],
      ['[!😀-😂]', '😁', false],
      ['[!😀-😂]', '😃', true],
      ['\\😀*', '😀x', true],
      ['*😀', 'x😀', true],
      ['*😀', 'x😁', false],
      ['İ*', 'İx', true],
      ['İ*', 'ix', false],
      ['a?İ', 'abİ', true],
      ['[İ]', 'İ', true],
      ['[İ]', 'i', false],
      ['[σ]*', 'ς', true],
      // A range folded as a whole, not by its two ends: [À-Þ] holds × and not ÷; [A-z] holds _ and `; [Z-a] holds A.
      ['[À-Þ]', '×', true],
      ['[À-Þ]', '÷', false],
      ['[À-Þ]', 'é', true],
      ['[A-z]', '_', true],
      ['[a-z]', '_', false],
      ['[Z-a]', 'A', true],
      ['[z-a]', 'M', true],
      ['[!A-Z]', 'q', false],
      ['[!A-Z]', '1', true],
      ['[]]', ']', true],
      ['[\\d]', 'd', true],
      ['[\\d]', '5', false],
      ['*Σ', 'ος', true],
    ];
    for (const [pattern, value, matches] of cases)
      expect(compileGlob(pattern)(value), `${pattern} ~ ${value}`).toBe(matches);
  });
});
