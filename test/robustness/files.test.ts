import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../cli-helpers.js';
import { simulator } from '../helpers.js';
import { control, expectStillServes } from './support.js';

/**
 * Class: a path that is not a scenario file the operator allowed. The control API reads only files inside the
 * scenario directories named at start, only regular files, at most 1 MiB counted while reading, without blocking;
 * anything else gets one answer whether the path exists or not. The command line and in-process calls (whose
 * caller chose the path) read any regular file, and never a device, a FIFO or an endless file.
 */

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-files-'));
const allowed = join(dir, 'scenarios');
mkdirSync(allowed);
writeFileSync(join(allowed, 'mine.yaml'), 'name: mine\ndescription: allowed\n');
writeFileSync(join(dir, 'outside.yaml'), 'name: outside\n');
writeFileSync(join(allowed, 'huge.yaml'), `name: huge\ndescription: ${'x'.repeat(1024 * 1024)}\n`);
const fifo = join(allowed, 'pipe.yaml');
execFileSync('mkfifo', [fifo]);
const fifoOutside = join(dir, 'pipe-outside');
execFileSync('mkfifo', [fifoOutside]);
symlinkSync('/etc/passwd', join(allowed, 'passwd.yaml'));
symlinkSync(join(dir, 'outside.yaml'), join(allowed, 'escape.yaml'));

describe('the control API reads only files the operator allowed', async () => {
  const sim = await simulator({ scenarioDirs: [allowed] });

  it('a file inside a scenario directory loads, by path or by name', async () => {
    expect((await control(sim, 'POST', '/__sim/scenario', { file: join(allowed, 'mine.yaml') })).json).toMatchObject({
      active: 'mine',
    });
    expect((await control(sim, 'POST', '/__sim/scenario', { file: 'mine.yaml' })).json).toMatchObject({
      active: 'mine',
    });
    expect((await control(sim, 'POST', '/__sim/scenario', { name: 'mine' })).json).toMatchObject({ active: 'mine' });
    expect((await control(sim, 'PUT', '/__sim/bindings/111222333', { file: 'mine.yaml' })).json).toMatchObject({
      scenario: 'mine',
    });
    sim.loadScenario('default');
  });

  it('paths outside get one answer, whether they exist or not, and quote nothing of any file', async () => {
    const outside = [
      '/etc/passwd',
      '/etc/no-such-file',
      join(dir, 'outside.yaml'),
      join(dir, 'missing.yaml'),
      '../outside.yaml',
      '../../../../etc/passwd',
      `${allowed}/../outside.yaml`,
      'escape.yaml',
      'passwd.yaml',
      '/proc/self/environ',
      '/dev/zero',
      fifoOutside,
      'no-such.yaml',
    ];
    const answers = new Set<string>();
    for (const file of outside) {
      for (const [method, path] of [
        ['POST', '/__sim/scenario'],
        ['PUT', '/__sim/bindings/111222333'],
      ]) {
        const r = await control(sim, method, path, { file });
        expect(r.status, file).toBe(400);
        expect(r.text).not.toMatch(/root:|PATH=|ENOENT|unknown key/);
        answers.add(r.text);
      }
    }
    expect([...answers]).toEqual([
      JSON.stringify({ error: `the file is not in this simulator's scenario directories (${allowed})` }),
    ]);
    await expectStillServes(sim);
  });

  it('a name is a shipped scenario or <name>.yaml in a scenario directory, never a path', async () => {
    for (const name of ['/dev/zero', '/etc/passwd', '../outside', 'outside', '..', fifo, 'pipe/../mine']) {
      const r = await control(sim, 'POST', '/__sim/scenario', { name });
      expect(r.status, name).toBe(400);
      expect(r.text).not.toMatch(/root:/);
    }
    await expectStillServes(sim);
  });

  it('inside a directory, a FIFO is refused at once and nothing waits for a writer', async () => {
    const [r, health] = await Promise.all([
      control(sim, 'POST', '/__sim/scenario', { file: 'pipe.yaml' }),
      control(sim, 'GET', '/__sim/health'),
    ]);
    expect(health.status).toBe(200);
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/is not a regular file/);
    expect((await control(sim, 'POST', '/__sim/scenario', { name: 'pipe' })).json.error).toMatch(
      /is not a regular file/,
    );
    await expectStillServes(sim);
  });

  it('a file over 1 MiB is refused while it is read', async () => {
    const r = await control(sim, 'POST', '/__sim/scenario', { file: 'huge.yaml' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/larger than 1024 KiB/);
  });

  it('a simulator started without scenario directories reads no files and says how to allow them', async () => {
    const bare = await simulator();
    const r = await control(bare, 'POST', '/__sim/scenario', { file: join(allowed, 'mine.yaml') });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/--scenario-dir/);
    expect((await control(bare, 'POST', '/__sim/scenario', { name: 'locked-account' })).status).toBe(200);
  });

  it('by default the folder of --scenario (a file) is the scenario directory', async () => {
    const started = await simulator({ scenario: join(allowed, 'mine.yaml') });
    expect((await control(started, 'POST', '/__sim/scenario', { file: 'mine.yaml' })).status).toBe(200);
    expect((await control(started, 'POST', '/__sim/scenario', { file: join(dir, 'outside.yaml') })).status).toBe(400);
  });
});

describe('the command line and in-process calls read regular files only, bounded', () => {
  it.each([
    ['a device', '/dev/zero', /is not a regular file/],
    ['a FIFO', fifo, /is not a regular file/],
    ['a directory', allowed, /is not a regular file|EISDIR/],
    ['an endless /proc file', '/proc/self/stat', /is neither|name: is required|must be a mapping|cannot be/],
    ['a file over 1 MiB', join(allowed, 'huge.yaml'), /larger than 1024 KiB/],
  ])('--scenario %s: exit 2 at once, naming the file', (_what, file, message) => {
    const r = run(['--scenario', file, '--port', '0']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(message);
  });

  it('--scenario-dir naming no directory: exit 2 at once, naming the flag and the path', () => {
    for (const [given, problem] of [
      [join(dir, 'missing'), 'there is no such directory'],
      [join(allowed, 'mine.yaml'), 'it is not a directory'],
    ]) {
      const r = run(['--scenario-dir', given, '--port', '0']);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`mfa-sim: --scenario-dir ${given}: ${problem}.`);
    }
  });

  it('the same through the environment (MFA_SIM_SCENARIO)', () => {
    for (const file of [fifo, '/dev/zero']) {
      const r = run(['--port', '0'], { MFA_SIM_SCENARIO: file });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/is not a regular file/);
    }
  });

  it('--coverage-out naming a FIFO nobody reads does not hold the start: exit 2 at once, saying why', () => {
    const out = join(dir, 'coverage-fifo');
    execFileSync('mkfifo', [out]);
    const r = run(['--port', '0', '--coverage-out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--coverage-out .*coverage-fifo: it is a FIFO nobody reads/);
  });

  it('in-process, loadScenario of a FIFO or a device throws a ScenarioError at once', async () => {
    const sim = await simulator();
    expect(() => sim.loadScenario(fifo)).toThrow(/is not a regular file/);
    expect(() => sim.loadScenario('/dev/zero')).toThrow(/is not a regular file/);
    await expectStillServes(sim);
  });
});

describe('--upstream-ca reads a regular file only, bounded, however it is given', () => {
  // A FIFO with no writer would hold the start for ever; /dev/zero would be read without end.
  const hugeCa = join(dir, 'huge.pem');
  writeFileSync(hugeCa, `-----BEGIN CERTIFICATE-----\n${'A'.repeat(2 * 1024 * 1024)}\n`);
  const cases = [
    ['a device', '/dev/zero', /is not a regular file/],
    ['a FIFO with no writer', fifo, /is not a regular file/],
    ['a directory', allowed, /is not a regular file/],
    ['a file over 1 MiB', hugeCa, /is larger than 1048576 bytes: not a CA certificate file/],
  ] as const;
  const UPSTREAM = 'https://127.0.0.1:9';

  it.each(cases)(
    'the flag and MFA_SIM_UPSTREAM_CA, %s: exit 2 at once, naming the option and the file',
    (_w, file, message) => {
      for (const [args, env] of [
        [['--upstream', UPSTREAM, '--upstream-ca', file], {}],
        [['--upstream', UPSTREAM], { MFA_SIM_UPSTREAM_CA: file }],
      ] as const) {
        const began = Date.now();
        const r = run([...args, '--port', '0'], env);
        expect(r.status, r.stderr).toBe(2);
        expect(Date.now() - began).toBeLessThan(5000);
        expect(r.stderr).toContain(`upstreamCa: ${file}`);
        expect(r.stderr).toMatch(message);
      }
    },
  );

  it.each(cases)('mfa-sim probe --upstream-ca, %s: exit 2 at once, naming the file', (_w, file, message) => {
    const r = run(['probe', '--upstream', UPSTREAM, '--api-user', '123456789', '--secret', 's', '--upstream-ca', file]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(message);
  });

  it('in process, the upstreamCa option: an OptionsError at once, and the process goes on', async () => {
    for (const [, file, message] of cases) {
      await expect(simulator({ upstream: UPSTREAM, upstreamCa: file })).rejects.toThrow(message);
    }
    await expectStillServes(await simulator());
  });
});
