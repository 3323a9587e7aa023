import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * A client that signs correctly with another secret (one copied from another environment, an old one): the signing
 * headers, the Authorization parts and the signature's form are all as expected, and no common mistake in the string
 * signed matches. The answer, the journal and the findings' hints then say that the secret (or the token) differs,
 * after the exact string to sign. Over HTTP, with real signatures.
 */

const SECRET = 'other-secret-right-one';

describe('a signature made with another secret', async () => {
  const sim = await simulator({ secret: SECRET });

  it('-4037 says the secret (or the token) differs, in the answer, the journal and the hints', async () => {
    const as = { apiUser: sim.apiUser.id, secret: 'a-secret-from-another-environment' };
    const sent = await send(sim, '/v1/svc/challenge', { as, body: challengeEnvelope(sim.apiUser.id) });
    const r = expectEnvelope(sent, 400, -4037);
    const said = `the secret most likely differs from API user ${sim.apiUser.id}'s (or the client signs for another identifier token than svc)`;
    expect(r.message).toMatch(/Hint: no common mistake matches; sign exactly "x-svc-utctime: \d+\\nx-svc-cnonce: /);
    expect(r.message).toContain(`Everything else signed is as expected, so ${said}`);
    const [entry] = sim.journal({ limit: 1 });
    expect(entry.hint?.text).toContain(said);
    const hints = (await (await fetch(`${sim.url}/__sim/findings`)).json()) as { hints: { text: string }[] };
    expect(hints.hints.map((h) => h.text)).toEqual([expect.stringContaining(said)]);
    // The right secret is never shown, nor the wrong one.
    for (const secret of [SECRET, as.secret]) expect(sent.text + JSON.stringify(entry)).not.toContain(secret);
  });

  it('a known mistake is named instead (a line break after the secret)', async () => {
    const as = { apiUser: sim.apiUser.id, secret: `${SECRET}\n` };
    const r = expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', as }), 400, -4037);
    expect(r.message).toMatch(/keyed with the secret and a line break after it/);
    expect(r.message).not.toContain('the secret most likely differs');
  });
});
