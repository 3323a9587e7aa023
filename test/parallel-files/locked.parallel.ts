import { expect, it } from 'vitest';
import { BREAKS_EVERYONE, claimedWorker } from './worker.js';

const worker = claimedWorker();

it("a locked account is refused (-2006), under this worker's scenario only", async () => {
  await worker.me.loadScenario('locked-account');
  for (let i = 0; i < 10; i++)
    expect(
      (await worker.client.newChallenge({ user: 'locked@example.com', challengeType: 'UserKeyAndPattern' })).code,
    ).toBe(-2006);
  expect((await worker.me.journal({ code: -2006 })).length).toBe(10);
});

it('a scenario that would break every other worker breaks only this one', async () => {
  await worker.me.loadScenario(BREAKS_EVERYONE);
  for (let i = 0; i < 10; i++)
    expect(
      (await worker.client.newChallenge({ user: 'someone@example.com', challengeType: 'UserKeyAndPattern' })).code,
    ).toBe(-2038);
});
