import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/index.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * How a body's fields are read (src/contract/bodies.ts), through the real server with signed requests: a null counts
 * as absent, and when strict it is a -5075 that names the field; a strict alias (`enableQRCode` for `enableQRcode`)
 * is read in both modes, and naming both is no unknown key; a lenient alias (the typo `challngeId`) only when lenient.
 */
describe('a body field is read by its name, then its aliases; null counts as absent', async () => {
  const lenient = await simulator();
  const strict = await simulator({ strict: true });

  const newChallenge = async (sim: RunningSimulator, body: Record<string, unknown>) =>
    send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id, body) });
  const qrIn = (message: string) => 'challengeQRcode' in (JSON.parse(message) as object);

  it('lenient: null optional fields are absent, each default holds (a QR image is made)', async () => {
    const e = expectEnvelope(
      await newChallenge(lenient, { profile: null, enableQRcode: null, enableAutoVerify: null, challengeExpiry: null }),
      202,
      2025,
    );
    expect(qrIn(e.message)).toBe(true);
  });

  it('strict: a null field is a -5075 that names it, whichever field it is', async () => {
    for (const field of ['profile', 'enableQRcode', 'challengeExpiry']) {
      const r = await newChallenge(strict, { [field]: null });
      expect([r.json.code, r.json.message], field).toEqual([
        -5075,
        `Challenge request body error: \`${field}\` is null`,
      ]);
    }
  });

  it('the strict alias enableQRCode is read in both modes; naming both is no unknown key', async () => {
    for (const sim of [lenient, strict]) {
      const alone = expectEnvelope(
        await newChallenge(sim, { enableQRcode: undefined, enableQRCode: false }),
        202,
        2025,
      );
      expect(qrIn(alone.message)).toBe(false);
      const both = expectEnvelope(await newChallenge(sim, { enableQRcode: true, enableQRCode: false }), 202, 2025);
      // The field's own name comes first.
      expect(qrIn(both.message)).toBe(true);
    }
  });

  it('the typo challngeId is read for challengeId only when lenient', async () => {
    for (const [sim, answer] of [
      [lenient, [-3091, 'Verification still waiting: the user has not answered yet']],
      [strict, [-5075, 'Challenge request body error: `challengeId` is missing']],
    ] as const) {
      const made = expectEnvelope(await newChallenge(sim, {}), 202, 2025);
      const { challengeId } = JSON.parse(made.message) as { challengeId: string };
      const r = await send(sim, '/v1/svc/status', {
        body: {
          id: 'ref-3',
          utctime: String(Date.now()),
          apiUser: sim.apiUser.id,
          type: 171,
          body: { challngeId: challengeId, svcUser: 'user@example.com' },
        },
      });
      expect([r.json.code, r.json.message]).toEqual(answer);
    }
  });
});
