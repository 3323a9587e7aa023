// A CommonJS module (this package is "type": "commonjs"): `import` compiles to `require`, so the package's
// `require` conditions and its .d.cts declarations are what is checked.
import { ControlError, ScenarioError, signedHeaders, startSimulator, type Challenge, type JournalEntry, type RunningSimulator } from 'mfa-sim';
import { createClient, type Answer, type NewChallengeMessage } from 'mfa-sim/client';

export async function check(): Promise<number> {
  const sim: RunningSimulator = await startSimulator({ secret: 'typed-secret', journalSize: 100 });
  try {
    sim.loadScenario('locked-account');
    sim.loadScenario('name: inline\naccounts:\n  a@example.com: locked\n');
    const headers: Record<string, string> = signedHeaders({ apiUser: sim.apiUser.id, secret: 'typed-secret' });
    const client = createClient({ baseUrl: sim.url, apiUser: sim.apiUser.id, secret: 'typed-secret' });
    const answer: Answer<NewChallengeMessage> = await client.newChallenge({ user: 'a@example.com', challengeType: 'UserKeyAndPattern' });
    const entries: JournalEntry[] = sim.journal({ code: answer.code });
    const challenges: Challenge[] = sim.challenges();
    try {
      sim.approve('no-such-challenge');
    } catch (e) {
      if (e instanceof ControlError) console.log(e.status);
      if (e instanceof ScenarioError) console.log(e.issues.map((i) => i.path.join('.')));
    }
    return Object.keys(headers).length + entries.length + challenges.length;
  } finally {
    await sim.close();
  }
}
