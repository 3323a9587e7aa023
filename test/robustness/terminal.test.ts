import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/index.js';
import { terminalText } from '../../src/output/terminal.js';
import { run, start } from '../cli-helpers.js';
import { challengeEnvelope, raw } from '../helpers.js';
import { runs } from './support.js';

/**
 * Class: characters a terminal acts on, written by the command line. Error messages quote what a client sent, and the
 * request log shows it: an ESC starts an escape sequence (a window title, a cleared screen), a C1 control is one by
 * itself (U+009B is CSI), a bidi control reorders what follows. Whatever the command line writes (log lines as text
 * or JSON, the banner, errors) passes one function that shows every C0 control but the line break, DEL, every C1
 * control and the bidi controls escaped, as \u001b.
 */

/** What a terminal acts on, and the line break the output's lines end with. */
// eslint-disable-next-line no-control-regex -- the control characters are what this test looks for
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** A module preloaded into the command line that emits a process warning quoting a terminal's escape sequence. */
const WARN_AT_START = join(mkdtempSync(join(tmpdir(), 'mfa-sim-warning-')), 'warn.cjs');
writeFileSync(WARN_AT_START, "setTimeout(() => process.emitWarning('a library says \\u001b]0;PWN\\u0007'), 100);\n");

describe('the text the command line writes holds no character a terminal acts on', () => {
  it('terminalText shows each such character escaped and leaves everything else, line breaks included', () => {
    expect(terminalText('\u001b]0;PWNED\u0007\u001b[2J')).toBe('\\u001b]0;PWNED\\u0007\\u001b[2J');
    expect(terminalText('12\u009b2J')).toBe('12\\u009b2J');
    expect(terminalText('a\u202eb\u2066c\u200fd\u061ce\u007ff\u0000g\th\ri')).toBe(
      'a\\u202eb\\u2066c\\u200fd\\u061ce\\u007ff\\u0000g\\u0009h\\u000di',
    );
    expect(terminalText('line one\nline two\n')).toBe('line one\nline two\n');
    expect(terminalText('é 漢字 🙂 \u00a0\u00ff\u0100 \\u001b')).toBe('é 漢字 🙂 \u00a0\u00ff\u0100 \\u001b');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const shown = terminalText(s);
        expect(shown).not.toMatch(ACTED_ON);
        // Nothing else changes: unescaping what was escaped gives the text back.
        expect(
          shown.replace(/\\u([0-9a-f]{4})/g, (m, hex: string) =>
            ACTED_ON.test(String.fromCharCode(parseInt(hex, 16))) ? String.fromCharCode(parseInt(hex, 16)) : m,
          ),
        ).toBe(s);
      }),
      { numRuns: runs(2000) },
    );
  });

  for (const log of ['text', 'json'] as const) {
    it(`the request log (--log ${log}): an OSC title and a clear-screen in a body value, a C1 control in a header, bidi controls`, async () => {
      const s = await start(['--port', '0', '--secret', 'term-secret', '--log', log]);
      const signed = () =>
        Object.entries(
          signedHeaders({ apiUser: '123456789', secret: 'term-secret', time: Date.now(), nonce: randomUUID() }),
        );
      const hostile = '\u001b]0;PWNED\u0007\u001b[2J';
      await raw(
        s.url,
        'POST',
        '/v1/svc/challenge',
        [...signed(), ['content-type', 'application/json']],
        JSON.stringify(challengeEnvelope('123456789', { challengeType: hostile })),
      );
      await raw(
        s.url,
        'POST',
        '/v1/svc/challenge',
        [...signed(), ['content-type', 'application/json']],
        JSON.stringify(
          challengeEnvelope('123456789', { challengeType: 'a\u202eb\u2066c', challengeExpiry: 'x\u009b\u007f' }),
        ),
      );
      await raw(s.url, 'GET', '/v1/svc/time', [['x-svc-apiuser', '12\u009b2J']]);
      await new Promise((r) => setTimeout(r, 300));
      s.child.kill('SIGTERM');
      await s.exit;
      const out = s.out();
      expect(out.split('\n').filter((l) => ACTED_ON.test(l))).toEqual([]);
      expect(s.err()).not.toMatch(ACTED_ON);
      if (log === 'text') {
        expect(out).toContain('\\u001b]0;PWNED\\u0007\\u001b[2J');
        expect(out).toContain(' 12\\u009b2J -> 400 -4000');
        expect(out).toContain('x\\u009b\\u007f');
      } else {
        // Still JSON, and each value exactly what was sent.
        const messages = out
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => JSON.parse(l) as { message?: string; apiUser?: string });
        expect(messages.some((m) => m.message?.includes(hostile))).toBe(true);
        expect(messages.some((m) => m.apiUser === '12\u009b2J')).toBe(true);
      }
    });
  }

  it("what a library prints: JSON5's console warnings for a client's body, the YAML parser's process warnings for a scenario", async () => {
    const s = await start(['--port', '0', '--quiet']);
    try {
      // JSON5 warns once per U+2028 in a string: unauthenticated, one body would print 3,000 lines of it.
      const body = JSON.stringify({
        id: 'r',
        utctime: '1',
        apiUser: '123456789',
        type: 150,
        body: `{svcUser:'a@x.com',challengeType:'${'\u2028'.repeat(3000)}'}`,
      });
      for (let i = 0; i < 5; i++)
        await raw(s.url, 'POST', '/v1/svc/challenge', [['content-type', 'application/json']], body);
      // A collection as a key makes the YAML parser emit a process warning that quotes the key, controls and all.
      const yamlKey = 'name: a\n? ["\\e]0;PWN\\a \\u202e evil \\u2028 x \\u0085 y \\u009b z"]\n: 1\n';
      const load = await fetch(`${s.url}/__sim/scenario`, {
        method: 'POST',
        headers: { 'content-type': 'application/yaml' },
        body: yamlKey,
      });
      expect(load.status).toBe(400);
      // Any other process warning is printed through the terminal writer too.
      await fetch(`${s.url}/__sim/health`);
    } finally {
      s.child.kill('SIGTERM');
      await s.exit;
    }
    expect(s.err()).not.toMatch(ACTED_ON);
    expect(s.err()).not.toContain('JSON5');
    expect(s.err().split('\n').length).toBeLessThan(5);
  });

  it('a process warning is shown through the terminal writer, its controls escaped', async () => {
    const s = await start(['--port', '0', '--quiet'], {
      NODE_OPTIONS: `--require ${JSON.stringify(WARN_AT_START)}`,
    });
    await new Promise((r) => setTimeout(r, 300));
    s.child.kill('SIGTERM');
    await s.exit;
    expect(s.err()).toContain('mfa-sim: Warning: a library says \\u001b]0;PWN\\u0007');
    expect(s.err()).not.toMatch(ACTED_ON);
  });

  it('errors on standard error: a flag value with controls in it', () => {
    const r = run(['--log', 'x\u009b\u202e\u001b[2J']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--log');
    expect(r.stderr).not.toMatch(ACTED_ON);
  });
});
