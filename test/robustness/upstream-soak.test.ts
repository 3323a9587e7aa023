import { describe, expect, it } from 'vitest';
import { proxySoak } from '../../bench/proxy-soak.js';

/**
 * Class: an upstream's values are kept whole (docs/robustness.md, "Memory"), as the command line meets them. The
 * built `dist/cli.cjs` on a 256 MiB heap, its request log on, forwards 300 new challenges whose ids are 900,000
 * characters and 300 times whose envelopes carry an extra key of 900,000 characters, each different: it stays alive,
 * every answer reaches the client as the upstream sent it, and its journal answers. `npm run soak:proxy` runs the same
 * with 5,000 of each on a 512 MiB heap and judges RSS.
 */

const MiB = 2 ** 20;

describe('the command line in proxy mode, on a 256 MiB heap, before an upstream of 900,000-character values', () => {
  it('takes 300 new challenges named by such ids and 300 envelopes with such keys, and lives', async () => {
    const r = await proxySoak({
      answers: 300,
      kinds: ['ids', 'keys'],
      heapMiB: 256,
      every: 150,
      secret: true,
      log: () => {},
    });
    expect(r.died).toBeUndefined();
    expect(r.kinds.map((k) => [k.kind, k.answered, k.bad])).toEqual([
      ['ids', 300, 0],
      ['keys', 300, 0],
    ]);
    expect(r.journal).toMatchObject({ status: 200 });
    // The journal's 1,000 entries, each under 64 KiB.
    expect(r.journal!.bytes).toBeLessThan(64 * MiB);
    expect(r.journal!.ms).toBeLessThan(5000);
  }, 120_000);
});
