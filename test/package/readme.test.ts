import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apiReference, BLOCKS, filesOf, filled } from '../../scripts/docs.js';
import { brokenLinks, pages } from '../../scripts/check-links.js';
import { simulator } from '../helpers.js';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('the README and docs/', () => {
  for (const page of Object.keys(BLOCKS)) {
    it(`${page}: its generated blocks are up to date (run \`npm run docs\`)`, () => {
      const text = readFileSync(join(root, page), 'utf8');
      expect(text).toBe(filled(page, text));
    });
  }

  it('the API reference TypeDoc makes (docs/api/ in the package) documents every export', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mfa-sim-api-'));
    try {
      const undocumented = await apiReference(out);
      expect(undocumented).toEqual([]);
      const files = filesOf(out);
      expect(Object.keys(files)).toEqual(
        expect.arrayContaining(['index.md', 'mfa-sim.md', 'mfa-sim/client.md', 'mfa-sim/control.md']),
      );
      expect(files['mfa-sim.md']).toMatch(/startSimulator/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);

  it('every relative link and image resolves', () => {
    expect(pages(root).flatMap((f) => brokenLinks(root, f))).toEqual([]);
  });

  it('names the test command that .ci/run runs', () => {
    expect(readme).toContain('npm ci && npm test');
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm test$/m);
  });

  it('its set-up tells a project that installs the package from a clone of the repository, two commands each', () => {
    const setUp = /^## Set-up\n([\s\S]*?)^## /m.exec(readme)![1];
    const blocks = [...setUp.matchAll(/\*\*(In [^*]+)\*\*[^`]*```sh\n([\s\S]*?)```/g)].map(([, where, commands]) => [
      where,
      commands
        .trim()
        .split('\n')
        .map((c) => c.replace(/\s+#.*$/, '')),
    ]);
    expect(blocks).toEqual([
      ['In your project:', ['npm install --save-dev mfa-sim', 'npx mfa-sim --secret dev-secret']],
      ['In a clone of this repository', ['npm ci && npm start -- --secret dev-secret', 'npm ci && npm test']],
    ]);
  });

  it('its whole request, copied into a shell twice, gets 2025 each time with an id of its own (no finding)', async () => {
    const sim = await simulator({ secret: 'dev-secret' });
    const block = /<!-- example:request -->\n```sh\n([\s\S]*?)```\n<!-- \/example:request -->/.exec(readme);
    expect(block).not.toBeNull();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      // Asynchronously: the simulator answers from this same process.
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', block![1]], {
        env: { ...process.env, MFA_SIM_URL: sim.url },
        encoding: 'utf8',
        timeout: 10_000,
      });
      const answer = JSON.parse(stdout) as { id: string; status: number; code: number; message: string };
      expect(answer).toMatchObject({ id: expect.stringMatching(/^ref-\d{13}$/), status: 202, code: 2025 });
      expect(JSON.parse(answer.message)).toMatchObject({ challengeId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      ids.push(answer.id);
    }
    expect(new Set(ids).size).toBe(2);
    // A person who tries it twice is not told that their client reuses envelope ids.
    expect(sim.findings().map((f) => f.id)).not.toContain('envelope-id-reused');
  });

  it('the example script sends a signed challenge and gets 2025, run after run with no finding', async () => {
    const sim = await simulator({ secret: 'dev-secret' });
    for (let i = 0; i < 2; i++) {
      const { stdout: out } = await promisify(execFile)(
        process.execPath,
        [join(root, 'examples', 'send-challenge.mjs')],
        {
          env: { ...process.env, MFA_SIM_URL: sim.url, MFA_SIM_SECRET: 'dev-secret' },
          encoding: 'utf8',
          timeout: 10_000,
        },
      );
      expect(out).toMatch(
        /^202 2025 \{"challengeId":"[0-9a-f-]{36}","challengeQRcodeUrl":"http:\/\/127\.0\.0\.1:\d+\/phone\/[0-9a-f-]{36}"\}\n$/,
      );
    }
    expect(sim.findings().map((f) => f.id)).not.toContain('envelope-id-reused');
  });

  it('the catalog example forces the code asked for', async () => {
    const sim = await simulator({ scenario: 'catalog', secret: 'dev-secret' });
    for (const code of ['-4036', '-2004', '2025']) {
      const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'examples', 'force-code.mjs'), code], {
        env: { ...process.env, MFA_SIM_URL: sim.url, MFA_SIM_SECRET: 'dev-secret' },
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(stdout.split(' ').slice(1, 2)).toEqual([code]);
    }
  });
});
