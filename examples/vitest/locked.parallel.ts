import { expect, it } from 'vitest';
import { claimedApiUser } from './claimed.js';

const worker = claimedApiUser();

it('a locked account is refused with -2006', async () => {
  await worker.me.loadScenario('locked-account'); // this worker's API user only
  const answer = await worker.client.newChallenge({ user: 'locked@example.com', challengeType: 'UserKeyAndPattern' });
  expect(answer.code).toBe(-2006);
  expect(await worker.me.journal({ code: -2006 })).toHaveLength(1);
});

it("a rule that refuses every challenge reaches this worker's API user, and no other worker's", async () => {
  await worker.me.loadScenario({ name: 'all-refused', rules: [{ when: { endpoint: 'challenge' }, respond: { code: -2038 } }] });
  expect((await worker.client.newChallenge({ user: 'alice@example.com', challengeType: 'UserKeyAndPattern' })).code).toBe(-2038);
});
