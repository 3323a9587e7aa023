import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * The built package as a suite loads it: `import('mfa-sim')` and `require('mfa-sim')` are one copy (dist/index.js
 * re-exports dist/index.cjs), and a test runner that runs each file in a context of its own (Jest) gets what the
 * package makes in that context. Each script runs in a fresh Node process, nothing of Vitest's loading in between.
 */

const DIST = join(__dirname, '..', '..', 'dist');
let temp: string;

beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'one-copy-'));
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

/** Runs `code` as a script file of its own (an ES module when `.mjs`) and returns what it printed, parsed. */
function runScript(code: string, file = 'suite.mjs'): unknown {
  const path = join(temp, file);
  writeFileSync(path, code);
  const r = spawnSync(process.execPath, [path], { encoding: 'utf8', timeout: 20_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe('the package', () => {
  it('serves a suite: a signed request, a refused one, a QR image, a scenario file loaded through the control API', () => {
    const suite = `
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
      const load = await fetch(sim.url + '/__sim/scenario', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: 'locked.yaml' }) });
      answers.loaded = (await load.json()).active;
      answers.locked = (await challenge('user@example.com')).code;
      await sim.close();
      console.log(JSON.stringify(answers));`;
    expect(runScript(suite)).toEqual({ time: 15000, forged: -4037, qr: true, loaded: 'locked', locked: -2006 });
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
    const seen = runScript(both) as { names: boolean; count: number; thrown: boolean };
    expect(seen).toEqual({ names: true, count: expect.any(Number) as number, thrown: true });
    expect(seen.count).toBeGreaterThan(20);
  });

  it("in a test runner's context of its own (as Jest runs a test file), what the package makes is of that context", () => {
    // A module loader as Jest's: each file compiled in the test's context, with its own require; Node's modules and the
    // package's dependencies shared.
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
  });
});
