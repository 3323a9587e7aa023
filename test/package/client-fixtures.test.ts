import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/index.js';
import { CHECKS, codeInfo } from '../../src/contract/codes.js';
import { expectEnvelope, raw } from '../helpers.js';

/**
 * Requests captured byte for byte from the service's published client libraries (Java, PHP, Python),
 * replayed unchanged against a simulator configured as each file's `simulator` block says.
 */
interface Fixture {
  client: string;
  operation: string;
  simulator: { token: string; apiUser: string; secret: string; strict: boolean; clockFrozenAtMs: number };
  request: { method: string; path: string; headers: [string, string][]; body: string };
  expect: { http: number; code: number } | null;
  note?: string;
}

/**
 * Where a fixture's `expect` is null, the answer belonged to work not yet specified; these are the answers
 * the simulator now gives, each a decision in the README: a status or verify of a challenge this simulator
 * never issued is -3087, and a blocked check with no IP rules is 6020 (type 950 on /challenge too, when lenient).
 */
const DECIDED: Record<string, { http: number; code: number }> = {
  'java-blocked.json': { http: 200, code: 6020 },
  'java-challenge-autoverify-status-poll.json': { http: 400, code: -3087 },
  'java-status.json': { http: 400, code: -3087 },
  'java-verify.json': { http: 400, code: -3087 },
  'php-blocked-explicit-ct.json': { http: 200, code: 6020 },
  'php-verify.json': { http: 400, code: -3087 },
};

const dir = join(__dirname, '..', 'fixtures', 'client-requests');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('requests from the published client libraries, replayed unchanged', () => {
  it('has every fixture file', () => {
    expect(files.length).toBe(19);
  });

  for (const file of files) {
    const fx = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Fixture;
    const want = fx.expect ?? DECIDED[file];
    it(`${file}: ${fx.request.method} ${fx.request.path} -> ${want?.http} ${want?.code}`, async () => {
      expect(want, `no expectation for ${file}`).toBeDefined();
      const sim = await startSimulator({
        token: fx.simulator.token,
        apiUser: fx.simulator.apiUser,
        secret: fx.simulator.secret,
        strict: fx.simulator.strict,
        responseStyle: 'sdk',
        clock: { frozenAt: fx.simulator.clockFrozenAtMs },
      });
      try {
        const r = await raw(
          sim.url,
          fx.request.method,
          fx.request.path,
          fx.request.headers,
          fx.request.body === '' ? undefined : fx.request.body,
        );
        expectEnvelope(r, want.http, want.code, 'sdk');
        if (want.code === 2025) {
          const message = JSON.parse(r.json.message) as Record<string, string>;
          expect(message.challengeId).toMatch(/^[0-9a-f-]{36}$/);
          expect(message.challengeQRcodeUrl).toBe(`${sim.url}/phone/${message.challengeId}`);
          expect(message.challengeQRcode).toMatch(/^data:image\/png;base64,/);
        }
        if (want.code === 15000) {
          expect(JSON.parse(r.json.message)).toEqual({
            'utc-time': String(Math.floor(fx.simulator.clockFrozenAtMs / 1000)),
          });
        }
        // The same bytes again are a replay whenever the request got past the signature: its nonce was remembered.
        if (CHECKS.indexOf(codeInfo(want.code)!.check) > CHECKS.indexOf('timestamp-reuse')) {
          const again = await raw(
            sim.url,
            fx.request.method,
            fx.request.path,
            fx.request.headers,
            fx.request.body === '' ? undefined : fx.request.body,
          );
          expectEnvelope(again, 400, -4034, 'sdk');
        }
      } finally {
        await sim.close();
      }
    });
  }
});

describe("the published client libraries' table (docs/client-doctor.md) says what the client doctor names", () => {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'client-doctor.md'), 'utf8');
  const named = (library: string) => {
    const row = new RegExp(`^\\| ${library} \\| [^|]+ \\| (.+) \\|$`, 'm').exec(page);
    expect(row, library).not.toBeNull();
    return new Set([...row![1].matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]));
  };

  for (const [library, client] of [
    ['PHP', 'php'],
    ['Python', 'python'],
    ['Java', 'java'],
  ] as const) {
    it(`${library}: its captured requests, replayed in order, give exactly the findings and hints its row names`, async () => {
      const fixtures = files
        .filter((f) => f.startsWith(`${client}-`))
        .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Fixture);
      const sim = await startSimulator({
        token: 'gridy',
        apiUser: '123456789',
        secret: fixtures[0].simulator.secret,
        responseStyle: 'sdk',
        clock: { frozenAt: fixtures[0].simulator.clockFrozenAtMs },
      });
      try {
        for (const fx of fixtures)
          await raw(
            sim.url,
            fx.request.method,
            fx.request.path,
            fx.request.headers,
            fx.request.body === '' ? undefined : fx.request.body,
          );
        // A challenge left open is what replaying single requests does (their status polls name another challenge), not
        // the client.
        const found = new Set([
          ...sim
            .findings(true)
            .map((f) => f.id)
            .filter((id) => id !== 'challenge-abandoned'),
          ...sim.hints().map((h) => h.id),
        ]);
        expect([...found].sort()).toEqual([...named(library)].sort());
      } finally {
        await sim.close();
      }
    });
  }
});
