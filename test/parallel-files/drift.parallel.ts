import { expect, it } from 'vitest';
import { createClient } from '../../src/client.js';
import { claimedWorker, user } from './worker.js';

const worker = claimedWorker();

it('a client clock 400 s behind is refused (-4036); the journal holds this test only', async () => {
  const behind = createClient({
    baseUrl: worker.me.url,
    apiUser: worker.me.apiUser,
    secret: worker.me.secret,
    now: () => Date.now() - 400_000,
  });
  for (let i = 0; i < 10; i++) expect((await behind.time()).code).toBe(-4036);
  expect((await worker.me.journal()).map((e) => e.code)).toEqual(Array(10).fill(-4036));
});

it('new challenges succeed here, whatever the other workers load (2025)', async () => {
  for (let i = 0; i < 10; i++)
    expect((await worker.client.newChallenge({ user: user(), challengeType: 'UserKeyAndPattern' })).code).toBe(2025);
  expect(await worker.me.challenges()).toHaveLength(10);
});
