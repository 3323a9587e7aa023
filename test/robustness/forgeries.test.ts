import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Severity } from '../../src/run/finding-types.js';
import { remote, start } from '../cli-helpers.js';
import { challengeEnvelope, expectEnvelope, raw, send } from '../helpers.js';
import { suites } from '../junit.js';

/**
 * Class: a forger flips the verdict. A request that did not prove who sent it (naming an API user the simulator does
 * not know, with or without a signature; a known API user with a wrong signature; no authentication at all) may be
 * listed among the findings, but never fails a build, at any `--fail-on-findings` level. A real signed client's
 * mistake still does.
 */

const ME = { apiUser: '123456789', secret: 'forgeries-secret' };
const LEVELS: Severity[] = ['info', 'warning', 'error'];
const JSON_TYPE: [string, string] = ['content-type', 'application/json'];

/** Signing headers for `apiUser`, signed with `secret` (a made-up one for a forger). */
function signedAs(apiUser: string, secret: string, time = Date.now()): [string, string][] {
  const nonce = randomUUID();
  const signature = createHmac('sha512', secret).update(`x-svc-utctime: ${time}\nx-svc-cnonce: ${nonce}`).digest('hex');
  return [
    ['x-svc-apiuser', apiUser],
    ['x-svc-utctime', String(time)],
    ['x-svc-cnonce', nonce],
    [
      'authorization',
      `svc-hmac: apiuser=${apiUser},signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=${signature}`,
    ],
    JSON_TYPE,
  ];
}

/** A body a signed client would be told off for: a stale envelope, an id used before, a body as a JSON string. */
const sloppy = (apiUser: string) =>
  JSON.stringify({
    ...challengeEnvelope(apiUser),
    id: 'same-every-time',
    utctime: '1000000000000',
    body: JSON.stringify(challengeEnvelope(apiUser).body),
  });

/** Forged requests of every kind, each sent twice (an id reused, a drifted clock twice), and what each is answered. */
async function forge(url: string): Promise<number[]> {
  const codes: number[] = [];
  const go = async (method: string, path: string, headers: [string, string][], body?: string) =>
    codes.push((await raw(url, method, path, headers, body)).json.code);
  for (let i = 0; i < 2; i++) {
    // An unknown API user: no secret, a made-up one, a sloppy body, a clock ten minutes off.
    await go('GET', '/v1/svc/time', [['x-svc-apiuser', '900000001']]);
    await go('POST', '/v1/svc/challenge', signedAs('900000002', 'made-up'), sloppy('900000002'));
    await go('GET', '/v1/svc/time', signedAs('900000003', 'made-up', Date.now() - 600_000));
    // The known API user, with a wrong signature: a sloppy body, a clock ten minutes off.
    await go('POST', '/v1/svc/challenge', signedAs(ME.apiUser, 'not-the-secret'), sloppy(ME.apiUser));
    await go('GET', '/v1/svc/time', signedAs(ME.apiUser, 'not-the-secret', Date.now() - 600_000));
    // No authentication at all, and a Bearer token naming no one.
    await go('POST', '/v1/svc/challenge', [JSON_TYPE], sloppy(ME.apiUser));
    await go('GET', '/v1/svc/time', [['authorization', 'Bearer forged']]);
  }
  return codes;
}

/** The CLI at `level`, `traffic` sent, stopped with SIGTERM: its exit status, stderr and JUnit file. */
async function runAt(level: Severity, traffic: (url: string) => Promise<unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-forged-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const junit = join(dir, 'junit.xml');
  const s = await start([
    '--port',
    '0',
    '--api-user',
    ME.apiUser,
    '--secret',
    ME.secret,
    '--quiet',
    '--fail-on-findings',
    level,
    '--junit',
    junit,
  ]);
  await traffic(s.url);
  const findings = (await (await fetch(`${s.url}/__sim/findings`)).json()) as {
    findings: { id: string; unsigned?: true }[];
  };
  s.child.kill('SIGTERM');
  return {
    status: await s.exit,
    err: s.err(),
    findings: findings.findings.map((f) => [f.id, f.unsigned]),
    junit: readFileSync(junit, 'utf8'),
  };
}

describe('forgeries never fail a build', () => {
  for (const level of LEVELS) {
    it(`--fail-on-findings ${level}: every kind of forgery, exit 0`, async () => {
      const { status, err, findings, junit } = await runAt(level, async (url) => {
        const codes = await forge(url);
        expect(codes.every((c) => c < 0)).toBe(true);
        expect(codes).toEqual(expect.arrayContaining([-1001, -4001, -4036, -4037]));
      });
      // Listed, for whoever reads the report; failing nothing.
      expect(findings).toEqual([['unknown-api-user', true]]);
      expect(err).not.toContain('the client doctor found');
      expect(suites(junit)[1].failures).toBe(0);
      expect(status).toBe(0);
    });
  }
});

describe("a real signed client's mistake still fails a build", () => {
  /** A signed client's clock ten minutes off twice (drift-not-corrected, an error), an id sent twice (a warning). */
  const mistakes = async (url: string) => {
    const me = remote(url, ME.apiUser, ME.secret);
    for (let i = 0; i < 2; i++)
      expectEnvelope(await send(me, '/v1/svc/time', { method: 'GET', time: Date.now() - 600_000 }), 400, -4036);
    for (let i = 0; i < 2; i++) {
      const body = challengeEnvelope(ME.apiUser, {}, { id: 'again' });
      expectEnvelope(await send(me, '/v1/svc/challenge', { body }), 202, 2025);
    }
  };

  for (const level of LEVELS) {
    it(`--fail-on-findings ${level}: among forgeries, exit 4, naming only the client's findings`, async () => {
      const { status, err } = await runAt(level, async (url) => {
        await forge(url);
        await mistakes(url);
      });
      expect(status).toBe(4);
      expect(err).toContain('drift-not-corrected (API user 123456789');
      expect(err).not.toContain('unknown-api-user');
      if (level !== 'error') expect(err).toContain('envelope-id-reused (API user 123456789');
    });
  }
});
