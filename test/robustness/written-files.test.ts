import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/index.js';
import { run, start } from '../cli-helpers.js';
import { expectEnvelope, send, simulator } from '../helpers.js';
import { expectStillServes } from './support.js';

/**
 * Class: a file mfa-sim writes is reached through a link, or its name holds something that cannot take it. The
 * report, the JUnit report, the coverage and the recording's files never follow a link or replace a file mfa-sim did
 * not make; a path that cannot take the output (a link to a file or to nothing, a FIFO nobody reads, a folder) is
 * refused at start, naming the flag, and nothing outside is written.
 */

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-written-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 'written-files-secret';
const ME = { apiUser: '123456789', secret: SECRET };
const VICTIM_TEXT = 'a file outside, never to be written\n';

/** A file outside the folder a link in it points to; its text is checked to be untouched. */
function victim(name: string): string {
  const file = join(dir, `victim-${name}`);
  writeFileSync(file, VICTIM_TEXT);
  return file;
}

describe('--report, --junit and --coverage-out', () => {
  const FLAGS = ['--report', '--junit', '--coverage-out'];

  it('a link to a file, or a dangling link: refused at start (exit 2), naming the flag; nothing is written', async () => {
    for (const flag of FLAGS) {
      const target = victim(flag.slice(2));
      const link = join(dir, `link${flag}`);
      symlinkSync(target, link);
      const nowhere = join(dir, `created-by-mistake${flag}`);
      const dangling = join(dir, `dangling${flag}`);
      symlinkSync(nowhere, dangling);
      for (const file of [link, dangling]) {
        const r = run(['--port', '0', flag, file]);
        expect(r.status, r.stderr).toBe(2);
        expect(r.stderr).toContain(`mfa-sim: ${flag} ${file}: it is a symbolic link`);
      }
      expect(readFileSync(target, 'utf8')).toBe(VICTIM_TEXT);
      expect(existsSync(nowhere)).toBe(false);
    }
    // A link is followed to a FIFO with a reader, a terminal or /dev/null, which no file is written over through.
    const fifo = join(dir, 'linked-fifo');
    execFileSync('mkfifo', [fifo]);
    const toFifo = join(dir, 'link-to-fifo');
    symlinkSync(fifo, toFifo);
    const toNull = join(dir, 'link-to-null');
    symlinkSync('/dev/null', toNull);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let read = '';
    reader.stdout.on('data', (d) => (read += d));
    const readerDone = new Promise((resolve) => reader.on('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const s = await start(['--port', '0', '--quiet', '--junit', toFifo, '--report', toNull]);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    await readerDone;
    expect(read).toMatch(/<testsuites[^]*<\/testsuites>/);
  });

  it('a FIFO nobody reads: refused at start (exit 2); with a reader, it takes the report, or fails at exit if it left', async () => {
    for (const flag of FLAGS) {
      const fifo = join(dir, `fifo${flag}`);
      execFileSync('mkfifo', [fifo]);
      const began = Date.now();
      const r = run(['--port', '0', flag, fifo]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`mfa-sim: ${flag} ${fifo}: it is a FIFO nobody reads`);
      expect(Date.now() - began).toBeLessThan(5000);
    }
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

    const fifo = join(dir, 'read-fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let read = '';
    reader.stdout.on('data', (d) => (read += d));
    const readerDone = new Promise((resolve) => reader.on('exit', resolve));
    await settle();
    const s = await start(['--port', '0', '--quiet', '--report', fifo]);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    await readerDone;
    expect(read).toMatch(/^## mfa-sim report\n/);

    const gone = join(dir, 'gone-fifo');
    execFileSync('mkfifo', [gone]);
    const leaver = spawn('sh', ['-c', `exec 3<"${gone}"; sleep 0.1`], { stdio: 'ignore' });
    const leaverDone = new Promise((resolve) => leaver.on('exit', resolve));
    await settle();
    const t = await start(['--port', '0', '--quiet', '--coverage-out', gone]);
    await leaverDone;
    t.child.kill('SIGTERM');
    expect(await t.exit).toBe(1);
    expect(t.err()).toMatch(/mfa-sim: cannot write the coverage to .*gone-fifo: nobody reads it any more \(EPIPE\)/);
  });

  it('an existing report file is replaced, a Markdown report appended to; neither is written through a link', async () => {
    const coverage = join(dir, 'coverage.json');
    const report = join(dir, 'summary.md');
    writeFileSync(coverage, 'old coverage');
    writeFileSync(report, '# Earlier step\n\n');
    const s = await start(['--port', '0', '--quiet', '--coverage-out', coverage, '--report', report]);
    // Swapped for links while the simulator runs: the files are written in their place, the links never followed.
    const outside = victim('swapped');
    unlinkSync(coverage);
    symlinkSync(outside, coverage);
    s.child.kill('SIGTERM');
    const status = await s.exit;
    expect(readFileSync(outside, 'utf8')).toBe(VICTIM_TEXT);
    expect(status).toBe(1);
    expect(s.err()).toMatch(/cannot write the coverage to .*coverage\.json: it is a symbolic link/);
    expect(readFileSync(report, 'utf8')).toMatch(/^# Earlier step\n\n## mfa-sim report\n/);
  });
});

describe('the recording folder (--record)', () => {
  const upstreamReady = simulator({ secret: SECRET });

  /** A recording folder, and a proxy recording into it (not started when `startIt` is false). */
  async function recording(prepare: (folder: string) => void) {
    const folder = mkdtempSync(join(dir, 'rec-'));
    prepare(folder);
    const upstream = await upstreamReady;
    return { folder, start: () => simulator({ secret: SECRET, upstream: upstream.url, record: folder }) };
  }
  const traffic = async (px: Awaited<ReturnType<typeof simulator>>, n = 3) => {
    for (let i = 0; i < n; i++) expectEnvelope(await send(px, '/v1/svc/time', { method: 'GET', as: ME }), 200, 15000);
  };

  it('a link left where the scenario is written aside (scenario.yaml.part): never followed', async () => {
    const target = victim('part');
    const { folder, start: go } = await recording((f) => symlinkSync(target, join(f, 'scenario.yaml.part')));
    const px = await go();
    await traffic(px);
    await px.close();
    expect(readFileSync(target, 'utf8')).toBe(VICTIM_TEXT);
    expect(lstatSync(join(folder, 'scenario.yaml')).isFile()).toBe(true);
    expect(loadScenarioFile(join(folder, 'scenario.yaml')).input.rules).toHaveLength(1);
  });

  it('a link, even a dangling one, where scenario.yaml or exchanges.jsonl goes: refused at start', async () => {
    for (const name of ['scenario.yaml', 'exchanges.jsonl']) {
      const nowhere = join(dir, `nowhere-${name}`);
      const { start: go } = await recording((f) => symlinkSync(nowhere, join(f, name)));
      await expect(go()).rejects.toThrow(
        new RegExp(`${name.replace('.', '\\.')} exists: a recording is never written over`),
      );
      expect(existsSync(nowhere)).toBe(false);
      const target = victim(`start-${name}`);
      const { start: again } = await recording((f) => symlinkSync(target, join(f, name)));
      await expect(again()).rejects.toThrow(/exists: a recording is never written over/);
      expect(readFileSync(target, 'utf8')).toBe(VICTIM_TEXT);
    }
  });

  it('files swapped for links while it records: nothing outside is written, and the simulator goes on', async () => {
    const { folder, start: go } = await recording(() => undefined);
    const px = await go();
    await traffic(px, 1);
    const exchangesTarget = victim('exchanges');
    const scenarioTarget = victim('scenario');
    for (const [name, target] of [
      ['exchanges.jsonl', exchangesTarget],
      ['scenario.yaml', scenarioTarget],
    ]) {
      unlinkSync(join(folder, name));
      symlinkSync(target, join(folder, name));
    }
    await traffic(px, 3);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expectStillServes(px);
    await px.close();
    expect(readFileSync(exchangesTarget, 'utf8')).toBe(VICTIM_TEXT);
    expect(readFileSync(scenarioTarget, 'utf8')).toBe(VICTIM_TEXT);
    // The name mfa-sim did not make is left alone: a recording replaces only its own file, and says it stopped.
    expect(lstatSync(join(folder, 'scenario.yaml')).isSymbolicLink()).toBe(true);
    expect(px.simulator.run.failures.list()).toEqual([
      expect.objectContaining({
        observer: 'recorder',
        count: 1,
        message: expect.stringMatching(/scenario\.yaml stopped: it is a symbolic link \(mfa-sim replaces only a file/),
      }),
    ]);
  });
});
