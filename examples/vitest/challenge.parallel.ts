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

it("a scripted person: approve@ approves 1 s after the challenge is made, on this worker's own clock", async () => {
  const person = 'approve@example.com';
  const created = await worker.client.newChallenge({ user: person, challengeType: 'UserKeyAndPattern' });
  if (!created.ok) throw new Error(`unexpected ${created.code}: ${created.message}`);
  const challengeId = created.message.challengeId;
  expect((await worker.client.status({ user: person, challengeId })).code).toBe(-3091);
  await worker.me.advance('2s'); // this worker's clock only; the other workers' time does not move
  expect((await worker.client.status({ user: person, challengeId })).code).toBe(3080);
});
