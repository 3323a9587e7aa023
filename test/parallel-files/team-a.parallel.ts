import { expect, it } from 'vitest';
import { bothBound, call, control, journalOf, newChallenge, TEAMS } from './team.js';

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
  const mine = await journalOf('a');
  expect(mine.every((e) => e.scenario === 'team-a-locked')).toBe(true);
  expect(mine.some((e) => e.rule?.startsWith('team B'))).toBe(false);
  // The two files ran at the same time: team B's requests sit between team A's first and last.
  for (let i = 0; i < 200 && (await journalOf('b')).length < 80; i++) await new Promise((r) => setTimeout(r, 25));
  const seqs = mine.map((e) => e.seq);
  const theirs = (await journalOf('b')).map((e) => e.seq);
  expect(theirs.some((s) => s > Math.min(...seqs) && s < Math.max(...seqs))).toBe(true);
});
