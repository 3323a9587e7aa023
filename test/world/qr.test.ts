import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

function decode(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
}

describe('challenges: ids, QR codes, the QR URL, expiry', async () => {
  const sim = await simulator({ clock: { frozenAt: '2026-06-01T09:00:00Z' } });
  const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
  const create = async (body: Record<string, unknown>) => {
    const r = await send(sim, '/v1/svc/challenge', { as: who, body: challengeEnvelope(who.apiUser, body) });
    return JSON.parse(expectEnvelope(r, 202, 2025).message) as Record<string, string>;
  };

  it('carries a real PNG that decodes to the challenge URL, which the simulator serves', async () => {
    const m = await create({ enableQRcode: true });
    expect(Object.keys(m)).toEqual(['challengeId', 'challengeQRcodeUrl', 'challengeQRcode']);
    const png = Buffer.from(m.challengeQRcode.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(decode(png)).toBe(m.challengeQRcodeUrl);
    expect(m.challengeQRcodeUrl).toBe(`${sim.url}/phone/${m.challengeId}`);
    const page = await fetch(m.challengeQRcodeUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(m.challengeId);
    const image = await fetch(`${m.challengeQRcodeUrl}/qr.png`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(decode(Buffer.from(await image.arrayBuffer()))).toBe(m.challengeQRcodeUrl);
  });

  it('sends the QR image by default, and only the URL when enableQRcode is false', async () => {
    expect(Object.keys(await create({ enableQRcode: undefined }))).toContain('challengeQRcode');
    expect(Object.keys(await create({ enableQRcode: false }))).toEqual(['challengeId', 'challengeQRcodeUrl']);
  });

  it('makes a fresh id for every challenge', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await create({})).challengeId);
    expect(ids.size).toBe(20);
  });

  it('keeps expiry per challengeExpiry on the virtual clock', async () => {
    const three = await create({ challengeExpiry: 'ThreeMins' });
    const fifteen = await create({ challengeExpiry: undefined });
    const state = (id: string) => sim.simulator.challenges().find((c) => c.id === id)!.state;
    sim.simulator.clock.advance(3 * 60_000 - 1);
    expect(state(three.challengeId)).toBe('waiting');
    sim.simulator.clock.advance(1);
    expect(state(three.challengeId)).toBe('expired');
    expect(state(fifteen.challengeId)).toBe('waiting');
    sim.simulator.clock.advance(12 * 60_000);
    expect(state(fifteen.challengeId)).toBe('expired');
    // An expired challenge cannot be cancelled.
    const cancel = await send(sim, '/v1/svc/challenge', {
      as: who,
      body: {
        apiUser: who.apiUser,
        type: 151,
        body: { challengeId: three.challengeId, svcUser: 'user@example.com', status: 'CANCEL' },
      },
    });
    expectEnvelope(cancel, 400, -2035);
  });
});
