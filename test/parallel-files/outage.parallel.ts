import { expect, it } from 'vitest';
import { claimedWorker, user } from './worker.js';

const worker = claimedWorker();

it('the time endpoint down for this worker only (-5000)', async () => {
  await worker.me.loadScenario({
    name: 'time-down',
    rules: [{ name: 'time is down', when: { endpoint: 'time' }, respond: { code: -5000, message: 'time is down' } }],
  });
  for (let i = 0; i < 10; i++)
    expect(await worker.client.time()).toMatchObject({ code: -5000, message: 'time is down' });
});

it('a challenge can be cancelled (2028)', async () => {
  for (let i = 0; i < 10; i++) {
    const who = user();
    const created = await worker.client.newChallenge({ user: who, challengeType: 'UserKeyAndPattern' });
    if (!created.ok) throw new Error(created.text);
    expect((await worker.client.cancel({ user: who, challengeId: created.message.challengeId })).code).toBe(2028);
  }
});
