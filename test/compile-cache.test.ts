import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { version } from '../package.json';
import { CLI, remote, run, start } from './cli-helpers.js';
import { cacheFileName, withDigest } from './code-cache-files.js';
import { challengeEnvelope, send } from './helpers.js';

/**
 * The command line's code cache (src/bin.ts, src/compile-cache.ts): `npx mfa-sim` keeps what V8 compiled of
 * dist/mfa-sim.cjs in the user's cache folder, and reads it at later starts when it can be trusted. Each test gives
 * the command a home and a cache folder of its own (HOME, XDG_CACHE_HOME).
 */

const PROGRAM = join(CLI, '..', 'mfa-sim.cjs');
const uid = process.getuid?.();

let temp: string;
let env: Record<string, string>;
let folder: string;
let cacheFile: string;

const cacheName = (nodeOptions = '') => cacheFileName(PROGRAM, nodeOptions);

beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'compile-cache-'));
  mkdirSync(join(temp, 'home'));
  env = { HOME: join(temp, 'home'), XDG_CACHE_HOME: join(temp, 'cache'), NODE_OPTIONS: '' };
  folder = join(temp, 'cache', 'mfa-sim', 'compile-cache');
  cacheFile = join(folder, cacheName());
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

/** `mfa-sim --version`, which must work whatever the cache holds. */
function versionRun(more: Record<string, string> = {}) {
  const r = run(['--version'], { ...env, ...more });
  expect({ status: r.status, out: r.stdout.trim(), err: r.stderr }).toEqual({ status: 0, out: version, err: '' });
}

/** A file written again (aside, then renamed over it) is a new file. */
const inode = (file: string) => statSync(file).ino;

function ownFolder(): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
}

describe.runIf(process.platform === 'linux')('the command line keeps V8 code cache of its program', () => {
  it('writes it at the first start, whole and for the user only, and reads it at the next', () => {
    versionRun();
    expect(readdirSync(folder)).toEqual([cacheName()]);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    const written = readFileSync(cacheFile);
    expect(written.length).toBeGreaterThan(10_000);
    expect(written.equals(withDigest(written.subarray(20)))).toBe(true);
    const first = inode(cacheFile);
    // V8 took it: a cache it refused would be written again as the command exits.
    versionRun();
    versionRun();
    expect(inode(cacheFile)).toBe(first);
  });

  it('serves from the cached program: signatures checked, scenarios loaded by name and from a file', async () => {
    versionRun();
    const before = inode(cacheFile);
    const scenarios = join(temp, 'scenarios');
    mkdirSync(scenarios);
    writeFileSync(join(scenarios, 'drift.yaml'), 'name: drift\nclock:\n  offset: 10m\n');
    const sim = await start(
      ['--port', '0', '--secret', 'compile-cache-secret', '--quiet', '--scenario-dir', scenarios],
      env,
    );
    const load = async (what: Record<string, string>) => {
      const r = await fetch(`${sim.url}/__sim/scenario`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(what),
      });
      return { status: r.status, active: ((await r.json()) as { active?: string }).active };
    };
    try {
      const as = remote(sim.url, '123456789', 'compile-cache-secret');
      expect((await send(as, '/v1/svc/time')).json.code).toBe(15000);
      const spoilt = await send(as, '/v1/svc/time', {
        // One hexadecimal digit of the signature changed.
        mutate: (h) =>
          (h.Authorization = h.Authorization.replace(/signature=(.)/, (_, d) => `signature=${d === '0' ? 1 : 0}`)),
      });
      expect(spoilt.json.code).toBe(-4037);
      // Both read files with node:fs/promises, which the program loads when first needed.
      expect(await load({ name: 'locked-account' })).toEqual({ status: 200, active: 'locked-account' });
      const locked = await send(as, '/v1/svc/challenge', {
        body: challengeEnvelope('123456789', { svcUser: 'locked@example.com' }),
      });
      expect(locked.json.code).toBe(-2006);
      expect(await load({ file: 'drift.yaml' })).toEqual({ status: 200, active: 'drift' });
    } finally {
      sim.child.kill('SIGTERM');
      await sim.exit;
    }
    expect(inode(cacheFile)).toBe(before);
  });

  it('never hands V8 a damaged file (a damaged body would crash every start): it is written again', () => {
    versionRun();
    const good = readFileSync(cacheFile);
    const damaged = Buffer.from(good);
    for (let i = 0; i < 4096; i++) damaged[Math.floor(good.length / 2) + i] ^= 0xa5;
    for (const bad of [damaged, good.subarray(0, good.length - 1), Buffer.alloc(4096, 0x5a), Buffer.alloc(0)]) {
      writeFileSync(cacheFile, bad, { mode: 0o600 });
      versionRun();
      const replaced = readFileSync(cacheFile);
      expect(replaced.equals(withDigest(replaced.subarray(20)))).toBe(true);
      const kept = inode(cacheFile);
      versionRun();
      expect(inode(cacheFile)).toBe(kept);
    }
  });

  it('writes again a whole file V8 refuses (made for another program or other flags)', () => {
    ownFolder();
    writeFileSync(cacheFile, withDigest(Buffer.alloc(4096, 0x5a)), { mode: 0o600 });
    const refused = inode(cacheFile);
    versionRun();
    expect(inode(cacheFile)).not.toBe(refused);
    const kept = inode(cacheFile);
    versionRun();
    expect(inode(cacheFile)).toBe(kept);
  });

  it('keeps a file for each set of node flags: alternating them writes none again', () => {
    versionRun();
    versionRun({ NODE_OPTIONS: '--max-old-space-size=300' });
    const flagged = join(folder, cacheName('--max-old-space-size=300'));
    expect(readdirSync(folder).sort()).toEqual([cacheName(), cacheName('--max-old-space-size=300')].sort());
    const [plain, other] = [inode(cacheFile), inode(flagged)];
    versionRun();
    versionRun({ NODE_OPTIONS: '--max-old-space-size=300' });
    expect([inode(cacheFile), inode(flagged)]).toEqual([plain, other]);
  });

  it('uses no file but a regular one of its own, reached directly, alone: a link, a FIFO, a hard link', () => {
    versionRun();
    const good = readFileSync(cacheFile);
    // A link to a good cache elsewhere.
    const elsewhere = join(temp, 'elsewhere');
    writeFileSync(elsewhere, good, { mode: 0o600 });
    rmSync(cacheFile);
    symlinkSync(elsewhere, cacheFile);
    versionRun();
    expect(lstatSync(cacheFile).isFile()).toBe(true);
    expect(inode(cacheFile)).not.toBe(inode(elsewhere));
    // A FIFO: never waited on (the start would hang).
    rmSync(cacheFile);
    execFileSync('mkfifo', [cacheFile]);
    versionRun();
    expect(statSync(cacheFile).isFile()).toBe(true);
    // A second name for the file: someone who could change it there changes this one.
    const second = join(temp, 'second-name');
    linkSync(cacheFile, second);
    const linked = inode(cacheFile);
    versionRun();
    expect(inode(cacheFile)).not.toBe(linked);
  });

  it('leaves alone a folder others can write to: they could have put code there', () => {
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o777);
    versionRun();
    chmodSync(folder, 0o775);
    versionRun();
    expect(readdirSync(folder)).toEqual([]);
  });

  // Only root can give a folder or a file to someone else.
  it.runIf(uid === 0)("leaves alone another user's folder, and another user's file in its own", () => {
    ownFolder();
    chownSync(folder, 1, 1);
    versionRun();
    expect(readdirSync(folder)).toEqual([]);
    chownSync(folder, 0, 0);
    versionRun();
    chownSync(cacheFile, 1, 1);
    versionRun();
    expect(statSync(cacheFile).uid).toBe(0);
  });

  it('follows no link put where its folder goes', () => {
    const elsewhere = join(temp, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(join(temp, 'cache', 'mfa-sim'), { recursive: true });
    symlinkSync(elsewhere, folder);
    versionRun();
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('keeps nothing when NODE_DISABLE_COMPILE_CACHE is set', () => {
    versionRun({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(readdirSync(temp).sort()).toEqual(['home']);
  });

  it('keeps the 8 cache files used last, drops files left half-written, and touches nothing else', () => {
    ownFolder();
    const older = Array.from({ length: 9 }, (_, i) => `v0.0.${i}-x64-${String(i).repeat(40)}`);
    const at = (name: string, day: number) => {
      const when = new Date(Date.UTC(2026, 0, day));
      utimesSync(join(folder, name), when, when);
    };
    older.forEach((name, i) => {
      writeFileSync(join(folder, name), 'older', { mode: 0o600 });
      at(name, 1 + i);
    });
    const leftBehind = `${older[0]}.00000000-0000-4000-8000-000000000000.tmp`;
    const beingWritten = `${older[1]}.11111111-1111-4111-8111-111111111111.tmp`;
    for (const name of [leftBehind, beingWritten, 'notes.txt']) writeFileSync(join(folder, name), 'x');
    at(leftBehind, 1);
    at('notes.txt', 1);
    versionRun();
    expect(readdirSync(folder).sort()).toEqual([...older.slice(2), cacheName(), beingWritten, 'notes.txt'].sort());
  });

  it('counts a file as used when it is read', () => {
    versionRun();
    const longAgo = new Date(Date.UTC(2026, 0, 1));
    utimesSync(cacheFile, longAgo, longAgo);
    versionRun();
    expect(statSync(cacheFile).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
  });

  it('starts as without a cache where the cache folder cannot be made, and ignores a relative XDG_CACHE_HOME', () => {
    writeFileSync(join(temp, 'cache'), 'a file where a folder would be');
    versionRun();
    // A folder that cannot be made though its parent exists (Node's recursive mkdir retried it for ever).
    versionRun({ XDG_CACHE_HOME: '/proc' });
    versionRun({ XDG_CACHE_HOME: 'relative/cache' });
    expect(readdirSync(join(temp, 'home', '.cache', 'mfa-sim', 'compile-cache'))).toEqual([cacheName()]);
  });
});
