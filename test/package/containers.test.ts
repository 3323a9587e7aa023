import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { version } from '../../package.json';

/**
 * The container recipes: the repository's Dockerfile and the one docs/containers.md gives package users. No Docker
 * engine runs where mfa-sim is built, so they are linted (dockerfile-utils, every severity) and checked for what a
 * container user relies on: a non-root user, the port, listening beyond loopback, the health check, the entry point.
 */
const root = join(__dirname, '..', '..');
const repository = readFileSync(join(root, 'Dockerfile'), 'utf8');
const documented = /<!-- example:dockerfile -->\n```dockerfile\n([\s\S]*?)```\n<!-- \/example:dockerfile -->/.exec(
  readFileSync(join(root, 'docs', 'containers.md'), 'utf8'),
)?.[1];

describe('the container recipes', () => {
  for (const [name, text] of [
    ['Dockerfile', repository],
    ['docs/containers.md', documented],
  ] as const) {
    it(`${name}: lints clean, runs as node on 0.0.0.0:8080 with a health check`, () => {
      expect(text, `${name} has no Dockerfile`).toBeDefined();
      expect(
        validate(text!).map(
          (d) => `${d.range.start.line + 1}: ${typeof d.message === 'string' ? d.message : d.message.value}`,
        ),
      ).toEqual([]);
      // The stage that runs: from the last FROM on.
      const last = text!.slice(Math.max(...[...text!.matchAll(/^FROM /gm)].map((m) => m.index)));
      expect(last).toMatch(/^FROM node:20-alpine$/m);
      expect(last).toMatch(/^USER node$/m);
      expect(last).toMatch(/^EXPOSE 8080$/m);
      expect(last).toMatch(/MFA_SIM_HOST=0\.0\.0\.0/);
      expect(last).toMatch(
        /^HEALTHCHECK .*\\\n\s+CMD wget -q -O \/dev\/null http:\/\/127\.0\.0\.1:8080\/__sim\/health/m,
      );
      expect(last).toMatch(/^ENTRYPOINT \["mfa-sim"\]$/m);
    });
  }

  it('the documented one installs this version from the registry', () => {
    expect(documented).toContain(`mfa-sim@${version}`);
  });
});
