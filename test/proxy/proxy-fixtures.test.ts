import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/index.js';
import { raw } from '../helpers.js';

/**
 * The published clients' own requests (test/fixtures/client-requests/), sent through a proxy whose upstream is a
 * simulator configured as each file says: they get the answers, the hints and the client findings they get from the
 * simulator itself, and the upstream's answers agree with mfa-sim's.
 */
interface Fixture {
  simulator: { token: string; apiUser: string; secret: string; clockFrozenAtMs: number };
  request: { method: string; path: string; headers: [string, string][]; body: string };
}

const dir = join(__dirname, '..', 'fixtures', 'client-requests');
const fixture = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Fixture;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

/** Each file's request sent in turn to `target`, with the clocks of `clocks` stopped where the file was signed. */
async function replay(
  names: readonly string[],
  viaProxy: boolean,
): Promise<{ target: RunningSimulator; all: RunningSimulator[] }> {
  const first = fixture(names[0]).simulator;
  const options = {
    token: first.token,
    apiUser: first.apiUser,
    secret: first.secret,
    responseStyle: 'sdk' as const,
    clock: { frozenAt: first.clockFrozenAtMs },
  };
  const direct = await startSimulator(options);
  const target = viaProxy ? await startSimulator({ ...options, upstream: direct.url }) : direct;
  const all = viaProxy ? [target, direct] : [direct];
  for (const name of names) {
    const fx = fixture(name);
    for (const sim of all) sim.freeze(fx.simulator.clockFrozenAtMs);
    await raw(
      target.url,
      fx.request.method,
      fx.request.path,
      fx.request.headers,
      fx.request.body === '' ? undefined : fx.request.body,
    );
  }
  return { target, all };
}

const GROUPS = [
  ['python-challenge-new.json', 'python-status.json'],
  ['java-challenge-autoverify-status-poll.json', 'java-challenge-autoverify-status-poll.json'],
  ['java-challenge-new.json', 'java-blocked.json', 'java-challenge-autoverify-status-poll.json'],
  ['php-challenge-new.json', 'php-challenge-new-objbody.json'],
  files,
];

describe("the published clients' requests through the proxy", () => {
  it('has every fixture file', () => {
    expect(files).toHaveLength(19);
  });

  for (const names of GROUPS) {
    it(`${names.length === files.length ? 'all of them' : names.join(', ')}: the answers, hints and findings the simulator itself gives`, async () => {
      const itself = await replay(names, false);
      const proxied = await replay(names, true);
      try {
        // A success's message names a challenge of each simulator's own: its keys are compared, an error's words.
        const said = (m: string | undefined, code: number | undefined) =>
          code !== undefined && code > 0 && m?.startsWith('{') ? Object.keys(JSON.parse(m) as object) : m;
        const strip = (sim: RunningSimulator) =>
          sim
            .journal()
            .map((e) => ({ code: e.code, http: e.http, hint: e.hint?.id, message: said(e.message, e.code) }));
        expect(strip(proxied.target)).toEqual(strip(itself.target));
        const findings = (sim: RunningSimulator) =>
          sim.findings().map(({ id, severity, count, detail }) => ({ id, severity, count, detail }));
        expect(findings(proxied.target)).toEqual(findings(itself.target));
        expect(proxied.target.hints()).toEqual(itself.target.hints());
        // The upstream is mfa-sim with the same settings: every answer agrees with the shadow's.
        for (const e of proxied.target.journal())
          expect(e.upstream).toMatchObject({ deviations: [], mfaSim: { code: e.code } });
      } finally {
        for (const sim of [...itself.all, ...proxied.all]) await sim.close();
      }
    });
  }

  it('the known findings, named', async () => {
    const python = await replay(GROUPS[0], true);
    const java = await replay(GROUPS[2], true);
    const poll = await replay(GROUPS[1], true);
    try {
      expect(python.target.hints()).toEqual([expect.objectContaining({ code: -4027, id: 'object-text', count: 2 })]);
      // Its signature is refused (as the service refuses it): findings come only from what a right signature sent.
      expect(python.target.findings()).toEqual([]);
      expect(java.target.findings().map((f) => f.id)).toEqual(
        expect.arrayContaining([
          'body-relaxed-json',
          'string-booleans',
          'blocked-on-challenge-endpoint',
          'challngeid-typo',
        ]),
      );
      expect(poll.target.findings().map((f) => f.id)).toEqual(
        expect.arrayContaining(['stale-envelope', 'envelope-id-reused']),
      );
    } finally {
      for (const sim of [...python.all, ...java.all, ...poll.all]) await sim.close();
    }
  });
});
