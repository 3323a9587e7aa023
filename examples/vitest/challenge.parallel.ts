import { expect, it } from 'vitest';
import { claimedApiUser } from './claimed.js';

const worker = claimedApiUser();
const user = 'bob@example.com';

it('a challenge is created, then cancelled: 2025, 2028', async () => {
  const created = await worker.client.newChallenge({ user, challengeType: 'UserKeyAndPattern' });
  if (!created.ok) throw new Error(`unexpected ${created.code}: ${created.message}`);
  expect((await worker.client.cancel({ user, challengeId: created.message.challengeId })).code).toBe(2028);
  expect((await worker.me.challenges()).map((c) => c.state)).toEqual(['cancelled']);
});
