import { expect, it } from 'vitest';
import { bothBound, call, control, expectIsolated, newChallenge, TEAMS } from './team.js';

it("team B's scenario (the time endpoint is down) applies to team B's API user only", async () => {
  await control('PUT', `bindings/${TEAMS.b.apiUser}`, {
    name: 'team-b-time-outage',
    rules: [{ name: 'team B: time endpoint down', when: { endpoint: 'time' }, respond: { code: -5000, message: 'time is down for team B' } }],
  });
  await bothBound();
  for (let i = 0; i < 40; i++) {
    const t = await call('b', '/v1/svc/time');
    expect(t).toEqual({ status: 500, code: -5000, message: 'time is down for team B' });
    const c = await newChallenge('b');
    expect(c.code).toBe(2025); // team A's locked accounts never reach team B
  }
  await expectIsolated('b', 'team-b-time-outage', 'team A');
});
