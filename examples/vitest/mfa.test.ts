// Vitest, ESM and TypeScript: an in-process simulator for the file, a scenario per test, the typed client, and at the
// end the run's verdict: every code these tests must meet was met, across every test's scenario.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type JournalEntry, type RunningSimulator } from 'mfa-sim';
import { createClient, type MfaClient } from 'mfa-sim/client';

let sim: RunningSimulator;
let client: MfaClient;
const user = 'alice@example.com';

beforeAll(async () => {
  sim = await startSimulator({ seed: 7 });
  client = createClient({ baseUrl: sim.url, apiUser: sim.apiUser.id, secret: sim.apiUser.secret });
});

// What `--require-coverage` demands of a CI job, in process: the run covers every test, whatever scenario each loaded.
afterAll(async () => {
  expect(sim.verdict({ required: [2025, -3091, 3080, -2004, -2006, -4036, 15000] })).toEqual({ status: 0, lines: [], unmet: [] });
  await sim.close();
});

beforeEach(() => {
  sim.loadScenario('default');
});

describe('an MFA login against mfa-sim', () => {
  it('creates a challenge, waits, and is approved', async () => {
    const created = await client.newChallenge({ user, challengeType: 'UserKeyAndPattern', enableQRcode: true });
    if (!created.ok) throw new Error(`unexpected ${created.code}: ${created.message}`);
    const { challengeId, challengeQRcode } = created.message;
    expect(challengeQRcode).toMatch(/^data:image\/png;base64,/);
    expect((await client.status({ user, challengeId })).code).toBe(-3091);
    sim.approve(challengeId, '314159');
    const verified = await client.verify({ user, challengeId, authCode: '314159' });
    expect(verified.ok && verified.message.status).toBe('VERIFIED');

    const sent: JournalEntry[] = sim.journal({ code: 2025 });
    expect(JSON.parse(sent[0].request.body).body).toEqual({ svcUser: user, challengeType: 'UserKeyAndPattern', enableQRcode: true });
  });

  it('meets every account state of the account-states scenario', async () => {
    sim.loadScenario('account-states');
    const blocked = await client.newChallenge({ user: 'blocked@example.com', challengeType: 'UserKeyAndPattern' });
    const locked = await client.newChallenge({ user: 'locked@example.com', challengeType: 'UserKeyAndPattern' });
    expect([blocked.code, locked.code]).toEqual([-2004, -2006]);
    expect(blocked.ok).toBe(false);
    expect(sim.coverage('scenario').met).toEqual([-2004, -2006]); // this test's scenario; sim.coverage() is the whole run
  });

  it('binds a scenario to one API user only', async () => {
    sim.bindScenario(sim.apiUser.id, { name: 'drift-for-me', clock: { offset: '-10m' } });
    expect((await client.time()).code).toBe(-4036);
    sim.unbindScenario(sim.apiUser.id);
    expect((await client.time()).code).toBe(15000);
    expect(sim.journal({ code: -4036 })).toHaveLength(1);
  });
});
