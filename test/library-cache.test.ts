import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheFileName, withDigest } from './code-cache-files.js';

/**
 * The package's API keeps V8's code cache of its program, as the command line does (compile-cache.test.ts has the
 * cache's own rules: where it lives, what it trusts): `import('mfa-sim')` and `require('mfa-sim')` run dist/library.cjs
 * through dist/index.cjs, which reads what V8 compiled at an earlier start. Each test gives its processes a home and a
 * cache folder of their own, and runs them as a suite does: a script file, with node's default flags.
 */

const DIST = join(__dirname, '..', 'dist');
const PROGRAM = join(DIST, 'library.cjs');

let temp: string;
let folder: string;
let env: Record<string, string>;

beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'library-cache-'));
  mkdirSync(join(temp, 'home'));
  folder = join(temp, 'cache', 'mfa-sim', 'compile-cache');
  env = { ...process.env, HOME: join(temp, 'home'), XDG_CACHE_HOME: join(temp, 'cache'), NODE_OPTIONS: '' };
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

const cacheName = () => cacheFileName(PROGRAM);

/** Runs `code` as a script file of its own (an ES module when `.mjs`) and returns what it printed, parsed. */
function runScript(code: string, file = 'suite.mjs', more: Record<string, string> = {}): unknown {
  const path = join(temp, file);
  writeFileSync(path, code);
  const r = spawnSync(process.execPath, [path], { env: { ...env, ...more }, encoding: 'utf8', timeout: 20_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

/**
 * A suite's use of the package: a simulator started, a signed request, a refused one, a QR image, a scenario file
 * loaded through the control API.
 */
const suite = () => `
  import { writeFileSync } from 'node:fs';
  import { join } from 'node:path';
  const { startSimulator, signedHeaders } = await import(${JSON.stringify(join(DIST, 'index.js'))});
  writeFileSync(join(${JSON.stringify(temp)}, 'locked.yaml'), 'name: locked\\naccounts:\\n  "*@example.com": locked\\n');
  const sim = await startSimulator({ secret: 's', scenarioDirs: [${JSON.stringify(temp)}] });
  const post = (path, secret, body) => fetch(sim.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signedHeaders({ apiUser: sim.apiUser.id, secret, time: sim.simulator.now() }) },
    body: body && JSON.stringify(body),
  }).then((r) => r.json());
  const challenge = (svcUser) => post('/v1/svc/challenge', 's', { id: 'ref-1', utctime: String(sim.simulator.now()), apiUser: sim.apiUser.id, type: 150, body: { svcUser, challengeType: 'UserKeyAndPattern', challengeExpiry: 'FiveMins', enableQRcode: true } });
  const answers = { time: (await post('/v1/svc/time', 's')).code, forged: (await post('/v1/svc/time', 'not-the-secret')).code };
  const qr = await challenge('user@example.com');
  answers.qr = JSON.parse(qr.message).challengeQRcode.startsWith('data:image/png;base64,');
  // A file of a scenario directory, read with node:fs/promises, which the program loads when first needed.
  const load = await fetch(sim.url + '/__sim/scenario', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: 'locked.yaml' }) });
  answers.loaded = (await load.json()).active;
  answers.locked = (await challenge('user@example.com')).code;
  await sim.close();
  console.log(JSON.stringify(answers));`;
const answers = { time: 15000, forged: -4037, qr: true, loaded: 'locked', locked: -2006 };

describe('the package keeps V8 code cache of its program', () => {
  it('writes it as the first suite exits, whole and for the user only; later suites read it and are served alike', () => {
    expect(runScript(suite())).toEqual(answers);
    expect(readdirSync(folder)).toEqual([cacheName()]);
    const file = join(folder, cacheName());
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = readFileSync(file);
    expect(written.equals(withDigest(written.subarray(20)))).toBe(true);
    expect(written.length - 20).toBeGreaterThan(100_000);
    const first = statSync(file).ino;
    // V8 took it: a cache it refused would be written again as the suite exits.
    expect(runScript(suite())).toEqual(answers);
    expect(runScript(suite())).toEqual(answers);
    expect(readdirSync(folder)).toEqual([cacheName()]);
    expect(statSync(file).ino).toBe(first);
  });

  it('writes it while a long suite runs: a suite stopped by a signal never exits normally', async () => {
    const path = join(temp, 'long.mjs');
    writeFileSync(
      path,
      `const { startSimulator } = await import(${JSON.stringify(join(DIST, 'index.js'))});
       await startSimulator({ secret: 's' });
       console.log('listening');`,
    );
    const child = spawn(process.execPath, [path], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const file = join(folder, cacheName());
      for (let waited = 0; !existsSync(file) && waited < 10_000; waited += 100) await sleep(100);
      const written = readFileSync(file);
      expect(written.equals(withDigest(written.subarray(20)))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    expect(readdirSync(folder)).toEqual([cacheName()]);
  });

  it('is made again, before the program runs, where a suite that tunes V8 as it runs made one V8 refuses', () => {
    const tuning = suite().replace(
      'const sim = await startSimulator(',
      "(await import('node:v8')).setFlagsFromString('--allow-natives-syntax');\n  const sim = await startSimulator(",
    );
    expect(tuning).toContain('setFlagsFromString');
    const inode = () => statSync(join(folder, cacheName())).ino;
    expect(runScript(tuning)).toEqual(answers);
    const refused = inode();
    expect(runScript(tuning)).toEqual(answers);
    // Written again, before the program ran: made under the flags a start compiles with, V8 takes it from then on.
    const remade = inode();
    expect(remade).not.toBe(refused);
    expect(runScript(tuning)).toEqual(answers);
    expect(runScript(tuning)).toEqual(answers);
    expect(inode()).toBe(remade);
  });

  it("finds its own files where a page's globals exist (Vitest's jsdom and happy-dom environments)", () => {
    // A page's document, as those environments put on Node's own global, before the package is imported.
    const withDocument = `globalThis.document = { baseURI: 'http://localhost:3000/', currentScript: null };\n${suite()}`;
    expect(runScript(withDocument)).toEqual(answers);
    const byName = `
      globalThis.document = { baseURI: 'http://localhost:3000/', currentScript: null };
      const { startSimulator } = await import(${JSON.stringify(join(DIST, 'index.js'))});
      const sim = await startSimulator({ secret: 's', scenario: 'locked-account' });
      console.log(JSON.stringify(sim.simulator.scenario.name));
      await sim.close();`;
    expect(runScript(byName)).toBe('locked-account');
  });

  it('runs the programs in strict mode, as their ES module sources were written', () => {
    for (const program of ['library.cjs', 'mfa-sim.cjs'])
      expect(readFileSync(join(DIST, program), 'utf8').split('\n', 1)[0], program).toBe('"use strict";');
  });

  it('keeps nothing when NODE_DISABLE_COMPILE_CACHE is set', () => {
    expect(runScript(suite(), 'suite.mjs', { NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual(answers);
    expect(readdirSync(temp).sort()).toEqual(['home', 'locked.yaml', 'suite.mjs']);
  });

  it('is one copy whether imported or required: a suite that does both gets the same classes and functions', () => {
    const both = `
      const { createRequire } = await import('node:module');
      const required = createRequire(import.meta.url)(${JSON.stringify(join(DIST, 'index.cjs'))});
      const imported = await import(${JSON.stringify(join(DIST, 'index.js'))});
      const names = Object.keys(required);
      console.log(JSON.stringify({
        names: names.length === Object.keys(imported).length && names.every((n) => imported[n] === required[n]),
        count: names.length,
        thrown: (() => { try { new imported.Simulator({ bodyLimit: -1 }); } catch (e) { return e instanceof required.OptionsError; } })(),
      }));`;
    expect(runScript(both)).toEqual({ names: true, count: expect.any(Number) as number, thrown: true });
    expect((runScript(both) as { count: number }).count).toBeGreaterThan(20);
  });

  it("in a test runner's context of its own (as Jest runs a test file), what the package makes is of that context", () => {
    // A module loader as Jest's: each file compiled in the test's context, with its own require; Node's modules and the
    // package's dependencies shared. The package's entry is required there, never run in Node's own context.
    const inContext = `
      const vm = require('node:vm');
      const { readFileSync } = require('node:fs');
      const { createRequire, isBuiltin } = require('node:module');
      const { dirname } = require('node:path');
      const shared = ['process', 'Buffer', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'setTimeout',
        'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'console',
        'performance', 'AbortController', 'AbortSignal', 'structuredClone', 'fetch', 'Headers', 'Response'];
      const context = vm.createContext(Object.fromEntries(shared.map((k) => [k, globalThis[k]])));
      const loaded = new Map();
      function load(file) {
        if (loaded.has(file)) return loaded.get(file).exports;
        const module = { exports: {} };
        loaded.set(file, module);
        const wrapped = vm.runInContext('(function (exports, require, module, __filename, __dirname) {' +
          readFileSync(file, 'utf8') + '\\n})', context, { filename: file });
        const own = createRequire(file);
        const require = (id) => isBuiltin(id) || !/^[./]/.test(id) ? own(id) : load(own.resolve(id));
        wrapped(module.exports, require, module, file, dirname(file));
        return module.exports;
      }
      const lib = load(${JSON.stringify(join(DIST, 'index.cjs'))});
      let thrown;
      try { new lib.Simulator({ bodyLimit: -1 }); } catch (e) { thrown = e; }
      const ContextError = vm.runInContext('Error', context);
      console.log(JSON.stringify({
        code: thrown.code, ofContext: thrown instanceof ContextError, ofNode: thrown instanceof Error,
        mfaSim: lib.isMfaSimError(thrown, 'MFA_SIM_OPTIONS'),
      }));`;
    expect(runScript(inContext, 'suite.cjs')).toEqual({
      code: 'MFA_SIM_OPTIONS',
      ofContext: true,
      ofNode: false,
      mfaSim: true,
    });
    // Required there as any module is: no cache of the program was made in Node's context.
    expect(readdirSync(temp).sort()).toEqual(['home', 'suite.cjs']);
  });
});
