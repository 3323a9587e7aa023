import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeFolders } from '../../src/files/folders.js';

/** makeFolders (src/files/folders.ts): mkdir -p that ends, used by the code cache and proxy mode's --record. */

let temp: string;
beforeEach(() => (temp = mkdtempSync(join(tmpdir(), 'folders-'))));
afterEach(() => rmSync(temp, { recursive: true, force: true }));

describe('makeFolders', () => {
  it('makes every missing folder, with the mode given, and takes one that exists', () => {
    const deep = join(temp, 'a', 'b', 'c');
    makeFolders(deep, 0o700);
    for (const p of [join(temp, 'a'), join(temp, 'a', 'b'), deep]) {
      expect(statSync(p).isDirectory()).toBe(true);
      expect(statSync(p).mode & 0o777).toBe(0o700);
    }
    makeFolders(deep, 0o700);
    mkdirSync(join(temp, 'made'));
    makeFolders(join(temp, 'made'));
    expect(statSync(join(temp, 'made')).isDirectory()).toBe(true);
  });

  it('throws as mkdir does: EEXIST for a file where the folder goes, ENOTDIR for one on the way', () => {
    writeFileSync(join(temp, 'file'), 'x');
    expect(() => makeFolders(join(temp, 'file'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => makeFolders(join(temp, 'file', 'below'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  it.runIf(process.platform === 'linux')('ends where a folder cannot be made though its parent exists (/proc)', () => {
    expect(() => makeFolders('/proc/mfa-sim/compile-cache')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
