import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { stringToSign } from '../../src/auth/signature.js';
import { formatLine } from '../../src/cli/log.js';
import { challengeEnvelope, expectEnvelope, send, simulator, type SendOptions } from '../helpers.js';

/**
 * One truth about the case of a signature's hexadecimal digits (docs/behaviour.md, "Upper-case hexadecimal"): either
 * case is a correct signature, lenient or strict, and not a client finding; the hints, the log line and the API
 * document never ask for lower case only.
 */

const SECRET = 'hex-case-secret';
const recase =
  (to: (hex: string) => string): SendOptions['mutate'] =>
  (h) => {
    h.Authorization = h.Authorization.replace(/signature=([0-9a-f]+)$/, (_m, hex: string) => `signature=${to(hex)}`);
  };
const upper = recase((hex) => hex.toUpperCase());
const mixed = recase((hex) => hex.replace(/[a-f]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c)));

describe('a signature in upper-case hexadecimal', async () => {
  const lenient = await simulator({ secret: SECRET });
  const strict = await simulator({ secret: SECRET, strict: true });

  for (const [name, sim] of [
    ['lenient', lenient],
    ['strict', strict],
  ] as const) {
    it(`is accepted ${name}, upper and mixed case, and the client doctor finds nothing`, async () => {
      const as = { apiUser: sim.apiUser.id, secret: SECRET };
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as, mutate: upper }), 200, 15000);
      expectEnvelope(
        await send(sim, '/v1/svc/challenge', {
          as,
          body: challengeEnvelope(as.apiUser, {}, { id: `up-${name}` }),
          mutate: upper,
        }),
        202,
        2025,
      );
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as, mutate: mixed }), 200, 15000);
      expect(sim.journal().every((e) => e.hint === undefined)).toBe(true);
      expect(sim.findings()).toEqual([]);
      expect(sim.report('markdown')).not.toMatch(/upper|lower/i);
    });
  }

  it('is refused -4037 when it is the wrong digest, whatever its case, and nothing told asks for lower case', async () => {
    const as = { apiUser: lenient.apiUser.id, secret: 'not-the-secret' };
    const r = expectEnvelope(await send(lenient, '/v1/svc/time', { method: 'GET', as, mutate: upper }), 400, -4037);
    const [entry] = lenient.journal({ limit: 1 });
    expect(entry.hint?.id).toBe('no-known-mistake');
    for (const text of [r.message, entry.hint!.text, formatLine(entry)]) {
      expect(text).toContain('128 hexadecimal characters');
      expect(text).not.toMatch(/lower.case/);
    }
  });

  it('a known mistake written in upper case is still named (an HMAC-SHA256 of the right string)', async () => {
    const as = { apiUser: lenient.apiUser.id, secret: SECRET };
    const sha256 = recase(() => '');
    const r = await send(lenient, '/v1/svc/time', {
      method: 'GET',
      as,
      mutate: (h) => {
        sha256!(h);
        h.Authorization += createHmac('sha256', SECRET)
          .update(stringToSign(h['x-svc-utctime'], h['x-svc-cnonce']))
          .digest('hex')
          .toUpperCase();
      },
    });
    expectEnvelope(r, 400, -4027);
    expect(lenient.journal({ limit: 1 })[0].hint).toMatchObject({ id: 'sha256' });
  });

  it('the API document asks for hexadecimal in either case', async () => {
    const doc = (await (await fetch(`${lenient.url}/openapi.json`)).json()) as {
      components: { securitySchemes: Record<string, { description: string }> };
    };
    const auth = doc.components.securitySchemes.signature;
    expect(auth.description).toContain('as 128 hexadecimal characters (either case)');
    expect(auth.description).not.toMatch(/lower.case/);
  });
});
