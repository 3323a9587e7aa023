import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findShippedScenario, shippedScenarioNames } from '../src/scenario/catalog.js';
import { loadScenarioText } from '../src/scenario/load.js';

/**
 * The built package loads its heavier dependencies on first use, each in its quickest form: a shipped scenario
 * without YAML (parsed by the build, dist/scenarios.json), YAML pre-bundled into one file beside the package
 * (dist/vendor/yaml.cjs) with the first scenario file of the user's, and only the QR matrix of `qrcode` (not its
 * renderers) with the first QR image. Checked in a fresh process, from the ES module and the CommonJS builds, by
 * what Node's module cache holds, and by the answers (each scenario read is the one in force).
 */
const DIST = join(__dirname, '..', 'dist');

const script = (load: string) => `
  ${load}
  const { createRequire } = require('node:module');
  const cache = createRequire(${JSON.stringify(join(DIST, 'index.js'))}).cache;
  const held = () => Object.keys(cache).map((k) => k.replace(${JSON.stringify(join(__dirname, '..'))} + '/', ''));
  const has = (part) => held().some((k) => k.includes(part));
  const state = () => ({ vendorYaml: has('dist/vendor/yaml.cjs'), yamlPackage: has('node_modules/yaml/'), qrCore: has('node_modules/qrcode/lib/core/qrcode.js'), qrRenderers: has('node_modules/qrcode/lib/renderer/') || has('node_modules/pngjs/') });
  const sim = await startSimulator({ secret: 's' });
  const challenge = (user, enableQRcode) => {
    const time = String(sim.simulator.now());
    const body = JSON.stringify({ id: 'ref-1', utctime: time, apiUser: sim.apiUser.id, type: 150, body: { svcUser: user, challengeType: 'UserKeyAndPattern', challengeExpiry: 'FiveMins', enableQRcode } });
    return fetch(sim.url + '/v1/svc/challenge', { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders({ apiUser: sim.apiUser.id, secret: 's', time: Number(time) }) }, body }).then((r) => r.json());
  };
  const steps = {};
  steps.started = { ...state(), code: (await challenge('user@example.com', false)).code };
  sim.loadScenario('locked-account');
  steps.shippedLoaded = { ...state(), code: (await challenge('locked@example.com', false)).code };
  // Named as a shipped scenario is, in a folder of its own: its own text is the one read.
  const file = require('node:path').join(require('node:fs').mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'mfa-sim-lazy-')), 'locked-account.yaml');
  require('node:fs').writeFileSync(file, 'name: from-a-file\\naccounts:\\n  "*@example.com": disabled\\n');
  sim.loadScenario(file);
  steps.fileLoaded = { ...state(), code: (await challenge('user@example.com', false)).code };
  sim.loadScenario('default');
  const qr = await challenge('user@example.com', true);
  steps.qrImage = { ...state(), code: qr.code, png: JSON.parse(qr.message).challengeQRcode.startsWith('data:image/png;base64,') };
  console.log(JSON.stringify(steps));
  await sim.close();`;

const expected = {
  started: { vendorYaml: false, yamlPackage: false, qrCore: false, qrRenderers: false, code: 2025 },
  shippedLoaded: { vendorYaml: false, yamlPackage: false, qrCore: false, qrRenderers: false, code: -2006 },
  fileLoaded: { vendorYaml: true, yamlPackage: false, qrCore: false, qrRenderers: false, code: -2007 },
  qrImage: { vendorYaml: true, yamlPackage: false, qrCore: true, qrRenderers: false, code: 2025, png: true },
};

async function run(args: string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(process.execPath, args, { encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(stdout);
}

describe('dependencies loaded on first use, in their quickest form', () => {
  it('from the ES module build', async () => {
    const load = `import { createRequire as made } from 'node:module'; const require = made(import.meta.url);
      const { startSimulator, signedHeaders } = await import(${JSON.stringify(join(DIST, 'index.js'))});`;
    expect(await run(['--input-type=module', '-e', script(load)])).toEqual(expected);
  });

  it('from the CommonJS build', async () => {
    const load = `const { startSimulator, signedHeaders } = require(${JSON.stringify(join(DIST, 'index.cjs'))});`;
    expect(await run(['-e', `(async () => { ${script(load)} })()`])).toEqual(expected);
  });
});

describe('the shipped scenarios the build parsed', () => {
  it('are, scenario by scenario, what parsing their YAML gives', async () => {
    const built = JSON.parse(readFileSync(join(DIST, 'scenarios.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(built)).toEqual(shippedScenarioNames());
    for (const name of shippedScenarioNames()) {
      const file = findShippedScenario(name)!;
      expect(built[name], name).toEqual(loadScenarioText(readFileSync(file, 'utf8'), file).input);
    }
  });
});

describe("the pages' browser scripts (src/browser/)", () => {
  it('are files of their own in dist/browser/, which importing the package never parses: a page reads its script when it is asked for', () => {
    const script = (name: string) => readFileSync(join(DIST, 'browser', `${name}.js`), 'utf8');
    expect(script('dashboard')).toContain('new EventSource("/__sim/events")');
    expect(script('phone')).toContain('location.reload()');
    for (const bundle of ['library.cjs', 'mfa-sim.cjs']) {
      const text = readFileSync(join(DIST, bundle), 'utf8');
      expect(text, bundle).not.toContain('EventSource');
      expect(text, bundle).not.toContain('location.reload');
    }
  });
});
