import { describe, expect, it } from 'vitest';
import { RandomSource } from '../../src/world/random.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * A new challenge's id is a UUID v4: from the machine's crypto source, drawn a pool of bytes at a time, or from the
 * seed, the same ids for a seed from one version of mfa-sim to the next (suites pin them).
 */

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('challenge ids', () => {
  it('over HTTP, ids past several pools of random bytes are all UUIDs v4 and all different', async () => {
    const sim = await simulator();
    const ids: string[] = [];
    // 600 ids of 16 bytes each: more than two pools of 4,096 bytes.
    for (let i = 0; i < 600; i++) {
      const r = await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) });
      ids.push((JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId);
    }
    await sim.close();
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
    // Every hexadecimal place but the version's varies: no byte of the pool is left unwritten or written twice alike.
    const digits = ids[0].replaceAll('-', '').length;
    for (let place = 0; place < digits; place++) {
      const seen = new Set(ids.map((id) => id.replaceAll('-', '')[place]));
      expect(seen.size, `place ${place}`).toBeGreaterThan(place === 12 ? 0 : 3);
    }
  });

  it('a seed gives the same ids as it always has', () => {
    const seeded = new RandomSource(42);
    expect([seeded.uuid(), seeded.uuid(), seeded.uuid()]).toEqual([
      '59e2fcad-f5e7-4423-ac01-be1cb2845c38',
      '2471cd3d-fdf0-489a-ad91-97ce4fdd3686',
      '077bc74a-543b-484f-aa53-e3d0416d4775',
    ]);
    expect(new RandomSource(0).uuid()).toBe('30ae391c-fbaf-4aec-af53-d588a826fd7d');
  });

  it('crypto ids drawn between seeded ones are neither changed by them nor change them', () => {
    const seeded = new RandomSource(42);
    const crypto = new RandomSource();
    const ids = [seeded.uuid(), crypto.uuid(), seeded.uuid(), crypto.uuid()];
    expect(ids[0]).toBe('59e2fcad-f5e7-4423-ac01-be1cb2845c38');
    expect(ids[2]).toBe('2471cd3d-fdf0-489a-ad91-97ce4fdd3686');
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(ids[1]).not.toBe(ids[3]);
  });

  it('crypto integers come from the same pool: all different, all 32-bit, none a piece of an id drawn beside them', () => {
    const crypto = new RandomSource();
    const ints: number[] = [];
    const idHex: string[] = [];
    // 2,000 integers and 200 ids: several pools of 4,096 bytes.
    for (let i = 0; i < 2000; i++) {
      ints.push(crypto.uint32());
      if (i % 10 === 0) idHex.push(crypto.uuid().replaceAll('-', ''));
    }
    for (const n of ints) expect(Number.isInteger(n) && n >= 0 && n < 2 ** 32).toBe(true);
    expect(new Set(ints).size).toBeGreaterThan(1990);
    expect(Math.max(...ints)).toBeGreaterThan(2 ** 31);
    const pieces = new Set(idHex.flatMap((h) => [0, 8, 16, 24].map((at) => h.slice(at, at + 8))));
    const asHex = (n: number) => Buffer.from(new Uint32Array([n]).buffer).toString('hex');
    expect(ints.filter((n) => pieces.has(asHex(n)))).toEqual([]);
  });
});
