import { expect, it } from 'vitest';
import { bothBound, call, control, expectIsolated, newChallenge, TEAMS } from './team.js';

it("team A's scenario (every account locked) applies to team A's API user only", async () => {
  await control('PUT', `bindings/${TEAMS.a.apiUser}`, {
    name: 'team-a-locked',
    rules: [{ name: 'team A: every account locked', when: { endpoint: 'challenge' }, respond: { code: -2006 } }],
  });
  await bothBound();
  for (let i = 0; i < 40; i++) {
    const c = await newChallenge('a');
    expect(c.code).toBe(-2006);
    const t = await call('a', '/v1/svc/time');
    expect(t.code).toBe(15000); // team B's time outage never reaches team A
  }
  await expectIsolated('a', 'team-a-locked', 'team B');
});
