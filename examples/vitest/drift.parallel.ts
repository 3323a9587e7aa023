import { expect, it } from 'vitest';
import { createClient } from 'mfa-sim/client';
import { claimedApiUser } from './claimed.js';

const worker = claimedApiUser();

it('a client clock ten minutes behind gets -4036; a clock-correcting client recovers', async () => {
  const behind = { baseUrl: worker.me.url, apiUser: worker.me.apiUser, secret: worker.me.secret, now: () => Date.now() - 600_000 };
  expect((await createClient(behind).time()).code).toBe(-4036);
  const corrected = await createClient({ ...behind, correctClock: true }).time();
  expect([corrected.code, corrected.retried]).toEqual([15000, true]);
});
