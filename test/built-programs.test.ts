import { isAscii } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runProgram } from '../src/run-program.js';

/**
 * The built programs (the command line's and the package's API) are read as ASCII when they are (src/run-program.ts):
 * a string of one byte per character, decoded three times faster than UTF-8. These tests keep them ASCII, and show
 * that a program that is not is still read right.
 */

const DIST = join(__dirname, '..', 'dist');

describe('the built programs', () => {
  it.each(['library.cjs', 'mfa-sim.cjs'])('%s is ASCII throughout, comments included', (name) => {
    const bytes = readFileSync(join(DIST, name));
    const others: string[] = [];
    for (let i = 0; i < bytes.length && others.length < 5; i++)
      if (bytes[i] > 0x7f) others.push(JSON.stringify(bytes.subarray(Math.max(0, i - 40), i + 8).toString('utf8')));
    expect(others).toEqual([]);
    expect(isAscii(bytes)).toBe(true);
  });

  it("import('mfa-sim') requires the program, not imports it: Node's reader of CommonJS exports is not loaded", () => {
    // Importing a CommonJS file, Node first reads it for its exports' names with a lexer of its own: the entry names
    // them itself.
    const code = `
      const before = new Set(process.moduleLoadList);
      const m = await import(${JSON.stringify(join(DIST, 'index.js'))});
      const loaded = process.moduleLoadList.filter((x) => !before.has(x));
      console.log(JSON.stringify({ lexer: loaded.some((x) => x.includes('cjs-module-lexer')), names: Object.keys(m).length, start: typeof m.startSimulator }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const seen = JSON.parse(r.stdout) as { lexer: boolean; names: number; start: string };
    expect(seen).toEqual({ lexer: false, names: expect.any(Number), start: 'function' });
    expect(seen.names).toBeGreaterThan(20);
  });
});

describe('runProgram reads a program', () => {
  let temp: string;
  beforeEach(() => {
    temp = mkdtempSync(join(tmpdir(), 'run-program-'));
    vi.stubEnv('NODE_DISABLE_COMPILE_CACHE', '1');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(temp, { recursive: true, force: true });
  });

  const run = (text: string) => {
    const file = join(temp, 'program.cjs');
    writeFileSync(file, text);
    return runProgram(file, 'once it has run') as { text: string; length: number };
  };

  it('in ASCII as it is', () => {
    expect(run("module.exports = { text: 'plain ~ text', length: 'plain ~ text'.length };")).toEqual({
      text: 'plain ~ text',
      length: 12,
    });
  });

  it('in UTF-8 when one character is not ASCII, in a string or in a comment', () => {
    expect(run("module.exports = { text: 'µs × 2 … é', length: 'µs × 2 … é'.length };")).toEqual({
      text: 'µs × 2 … é',
      length: 10,
    });
    expect(run("// about 10 µs\nmodule.exports = { text: 'ok', length: 2 };")).toEqual({ text: 'ok', length: 2 });
  });
});
