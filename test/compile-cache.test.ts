import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { version } from '../package.json';
import { CLI, remote, run, start } from './cli-helpers.js';
import { challengeEnvelope, send } from './helpers.js';

/**
 * The command line's code cache (src/bin.ts): `npx mfa-sim` keeps what V8 compiled of dist/mfa-sim.cjs in the user's
 * own directory under the temporary directory, and reads it at later starts. Each test gives the command a temporary
 * directory of its own (TMPDIR).
 */

const PROGRAM = join(CLI, '..', 'mfa-sim.cjs');
const uid = process.getuid?.();
const own = process.platform !== 'win32' && uid !== undefined;

let temp: string;
let folder: string;
let cacheFile: string;

beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'compile-cache-'));
  folder = join(temp, `mfa-sim-compile-cache-${uid ?? 'user'}`);
  const digest = createHash('sha1').update(readFileSync(PROGRAM)).digest('hex');
  cacheFile = join(folder, `${process.version}-${process.arch}-${digest}`);
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

/** `mfa-sim --version` with the test's temporary directory. */
function version_(env: Record<string, string> = {}) {
  const r = run(['--version'], { TMPDIR: temp, ...env });
  expect({ status: r.status, out: r.stdout.trim(), err: r.stderr }).toEqual({ status: 0, out: version, err: '' });
}

/** The file's identity: a file written again (aside, then renamed) is a new one. */
const identity = (file: string) => {
  const s = statSync(file);
  return `${s.ino}:${s.mtimeMs}:${s.size}`;
};

describe.runIf(own)('the command line keeps V8 code cache of its program', () => {
  it('writes it at the first start, in a directory only the user can read, and reads it at the next', () => {
    version_();
    expect(readdirSync(folder)).toEqual([cacheFile.slice(folder.length + 1)]);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(statSync(cacheFile).size).toBeGreaterThan(10_000);
    const first = identity(cacheFile);
    // V8 took it: a cache it refused would be written again as the command exits.
    version_();
    version_();
    expect(identity(cacheFile)).toBe(first);
  });

  it('serves from the cached program: signatures checked, scenarios loaded by name and from a file', async () => {
    version_();
    const before = identity(cacheFile);
    const scenarios = join(temp, 'scenarios');
    mkdirSync(scenarios);
    writeFileSync(join(scenarios, 'drift.yaml'), 'name: drift\nclock:\n  offset: 10m\n');
    const sim = await start(
      ['--port', '0', '--secret', 'compile-cache-secret', '--quiet', '--scenario-dir', scenarios],
      { TMPDIR: temp },
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
    expect(identity(cacheFile)).toBe(before);
  });

  it('replaces a damaged cache file, and the command runs as without one', () => {
    mkdirSync(folder, { mode: 0o700 });
    writeFileSync(cacheFile, Buffer.alloc(4096, 0x5a), { mode: 0o600 });
    version_();
    const replaced = readFileSync(cacheFile);
    expect(replaced.equals(Buffer.alloc(4096, 0x5a))).toBe(false);
    const kept = identity(cacheFile);
    version_();
    expect(identity(cacheFile)).toBe(kept);
  });

  it('leaves a directory others can write to alone: someone else could have put code there', () => {
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    version_();
    chmodSync(folder, 0o775);
    version_();
    expect(readdirSync(folder)).toEqual([]);
  });

  // Only root can give a directory to someone else.
  it.runIf(uid === 0)("leaves another user's directory alone, even one only they can write to", () => {
    mkdirSync(folder, { mode: 0o700 });
    chownSync(folder, 1, 1);
    version_();
    expect(readdirSync(folder)).toEqual([]);
  });

  it('follows no link put where its directory goes', () => {
    const elsewhere = join(temp, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, folder);
    version_();
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('keeps nothing when NODE_DISABLE_COMPILE_CACHE is set', () => {
    version_({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(readdirSync(temp)).toEqual([]);
  });

  it('keeps the newest 8 files: one per version of mfa-sim and of Node run', () => {
    mkdirSync(folder, { mode: 0o700 });
    const old = Array.from({ length: 9 }, (_, i) => `v0.0.${i}-x64-${String(i).repeat(40)}`);
    old.forEach((name, i) => {
      writeFileSync(join(folder, name), 'older', { mode: 0o600 });
      const at = new Date(Date.UTC(2026, 0, 1 + i));
      utimesSync(join(folder, name), at, at);
    });
    version_();
    expect(readdirSync(folder).sort()).toEqual([...old.slice(2), cacheFile.slice(folder.length + 1)].sort());
  });

  it('starts as without a cache where the temporary directory cannot be written', () => {
    const missing = join(temp, 'no', 'such');
    writeFileSync(join(temp, 'no'), 'a file where a directory would be');
    const r = run(['--version'], { TMPDIR: missing });
    expect({ status: r.status, out: r.stdout.trim(), err: r.stderr }).toEqual({ status: 0, out: version, err: '' });
  });
});
