import { describe, expect, it } from 'vitest';
import { expectEnvelope, send, simulator, type SendOptions } from '../helpers.js';

/**
 * The format of each authentication header and Authorization part, at its edges: the whole value must match (junk
 * before or after it is refused), and the lengths the code table gives are the limits, both ways.
 */
const MAIN = { apiUser: '123456789', secret: 'format-secret' };
const HEX = 'a'.repeat(128);

describe('header formats, verified', async () => {
  const sim = await simulator({ name: 'formats', apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }] });
  const time = (opts: SendOptions) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, ...opts });
  const signature = (edit: (sig: string) => string) => (h: Record<string, string>) =>
    (h.Authorization = h.Authorization.replace(/signature=([0-9a-f]+)/, (_m, sig: string) => `signature=${edit(sig)}`));

  it('x-svc-utctime: 1 to 16 digits, nothing before or after', async () => {
    const t = String(sim.simulator.now());
    for (const bad of [`x${t}`, `${t}x`, '12345678901234567', `-${t}`]) {
      expectEnvelope(await time({ mutate: (h) => (h['x-svc-utctime'] = bad) }), 400, -4005);
    }
    // 16 digits and 1 digit are well formed: they are then judged on drift.
    for (const far of ['1234567890123456', '7'])
      expectEnvelope(await time({ mutate: (h) => (h['x-svc-utctime'] = far) }), 400, -4036);
  });

  it('x-svc-cnonce: 8 to 128 of letters, digits, - and _, nothing before or after', async () => {
    for (const bad of ['abcdefg', 'n'.repeat(129), '!abcdefgh', 'abcdefgh!', 'abcd efgh', 'abcdéfgh']) {
      expectEnvelope(await time({ mutate: (h) => (h['x-svc-cnonce'] = bad) }), 400, -4007);
    }
    // At each length limit the nonce is well formed, and the request is judged on its signature.
    expectEnvelope(await time({ nonce: 'Ab-_1234' }), 200, 15000);
    expectEnvelope(await time({ nonce: 'N'.repeat(128) }), 200, 15000);
  });

  it('x-svc-apiuser: exactly 9 digits', async () => {
    for (const bad of ['x123456789', '123456789x', '1234567890', '12345678']) {
      expectEnvelope(await time({ mutate: (h) => (h['x-svc-apiuser'] = bad) }), 400, -4009);
    }
  });

  it("the apiuser part: exactly 9 digits, and the header's", async () => {
    const part = (v: string) => (h: Record<string, string>) =>
      (h.Authorization = h.Authorization.replace(/apiuser=\d+/, `apiuser=${v}`));
    for (const bad of ['x123456789', '1234567890', '12345678'])
      expectEnvelope(await time({ mutate: part(bad) }), 400, -4029);
    const other = await time({ mutate: part('987654321') });
    expectEnvelope(other, 400, -4029);
    expect(other.json.message).toMatch(/: apiuser differs from the x-svc-apiuser header$/);
  });

  it('the signature part: exactly 128 hexadecimal characters, either case', async () => {
    for (const edit of [
      (s: string) => `z${s.slice(1)}`,
      (s: string) => `${s.slice(1)}z`,
      (s: string) => s.slice(1),
      (s: string) => `${s}0`,
      (s: string) => `${s}z`,
      () => `${HEX.slice(2)}0x`,
    ]) {
      expectEnvelope(await time({ mutate: signature(edit) }), 400, -4027);
    }
    expectEnvelope(await time({ mutate: signature((s) => s.toUpperCase()) }), 200, 15000);
    // Well formed but not the HMAC: the signature check itself.
    expectEnvelope(await time({ mutate: signature(() => HEX) }), 400, -4037);
  });
});

describe('header formats under auth: log (only what would fail is written down)', async () => {
  const sim = await simulator({
    name: 'formats-log',
    auth: 'log',
    apiUsers: [{ id: MAIN.apiUser, secret: MAIN.secret }],
  });
  const time = (opts: SendOptions) => send(sim, '/v1/svc/time', { method: 'GET', as: MAIN, ...opts });
  const wouldFail = () => sim.journal({ limit: 1 })[0].wouldFail?.map((w) => w.code);
  const auth = (edit: (a: string) => string) => (h: Record<string, string>) =>
    (h.Authorization = edit(h.Authorization));

  it('a signature is judged only when the time, the nonce and a well-formed signature are all there', async () => {
    expectEnvelope(await time({ mutate: (h) => delete h['x-svc-cnonce'] }), 200, 15000);
    expect(wouldFail()).toEqual([-4006]);
    expectEnvelope(await time({ mutate: (h) => delete h['x-svc-utctime'] }), 200, 15000);
    expect(wouldFail()).toEqual([-4004]);
    expectEnvelope(await time({ mutate: auth((a) => a.replace(/,signature=[0-9a-f]+/, '')) }), 200, 15000);
    expect(wouldFail()).toEqual([-4026]);
    expectEnvelope(await time({ mutate: auth((a) => a.replace(/signature=[0-9a-f]{4}/, 'signature=')) }), 200, 15000);
    expect(wouldFail()).toEqual([-4027]);
  });

  it('an Authorization that does not parse is one failure; the parts are then not judged', async () => {
    expectEnvelope(await time({ mutate: auth((a) => a.replace('svc-hmac:', 'Bearer')) }), 200, 15000);
    expect(wouldFail()).toEqual([-4001]);
    expectEnvelope(
      await time({ mutate: auth((a) => a.replace('algorithm=svc-hmac512', 'algorithm=sha1')) }),
      200,
      15000,
    );
    expect(wouldFail()).toEqual([-4031]);
  });
});
