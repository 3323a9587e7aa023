import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedReadme } from '../scripts/docs.js';
import { simulator } from './helpers.js';

const root = join(__dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('the README', () => {
  it('has its generated sections (code table, shipped scenarios) up to date: run `npm run docs`', () => {
    expect(readme).toBe(generatedReadme(readme));
  });

  it('names the test command that .ci/run runs', () => {
    expect(readme).toContain('npm ci && npm test');
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm test$/m);
  });

  it('its example sends a signed challenge and gets 2025', async () => {
    const sim = await simulator({ secret: 'dev-secret' });
    // Asynchronously: the simulator answers from this same process.
    const { stdout: out } = await promisify(execFile)(process.execPath, [join(root, 'examples', 'send-challenge.mjs')], {
      env: { ...process.env, MFA_SIM_URL: sim.url, MFA_SIM_SECRET: 'dev-secret' },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(out).toMatch(/^202 2025 \{"challengeId":"[0-9a-f-]{36}","challengeQRcodeUrl":"http:\/\/127\.0\.0\.1:\d+\/phone\/[0-9a-f-]{36}"\}\n$/);
  });

  it('its catalog example forces the code asked for', async () => {
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
