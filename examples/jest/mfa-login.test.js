// Jest, default configuration, CommonJS: an in-process simulator for the whole file, a scenario per test, and at the
// end the run's verdict: every code these tests must meet was met, across every test's scenario.
const { startSimulator } = require('mfa-sim');
const { createClient } = require('mfa-sim/client');
const { startLogin, loginState } = require('./mfa-login');

let sim;
let config;

beforeAll(async () => {
  sim = await startSimulator({ secret: 'jest-secret' });
  config = { baseUrl: sim.url, apiUser: sim.apiUser.id, secret: 'jest-secret' };
});

// What `--require-coverage` demands of a CI job, in process: the run covers every test, whatever scenario each loaded.
afterAll(async () => {
  expect(sim.verdict({ required: [2025, -2006, -4036] })).toEqual({ status: 0, lines: [], unmet: [] });
  await sim.close();
});

beforeEach(() => sim.loadScenario('default'));

test('a login is approved once the user approves on the phone', async () => {
  const login = await startLogin(config, 'alice@example.com');
  expect(login.challengeId).toMatch(/^[0-9a-f-]{36}$/);
  expect(await loginState(config, 'alice@example.com', login.challengeId)).toBe('waiting');
  sim.approve(login.challengeId);
  expect(await loginState(config, 'alice@example.com', login.challengeId)).toBe('approved');

  // What the client sent, as the simulator recorded it.
  const [sent] = sim.journal({ code: 2025 });
  const envelope = JSON.parse(sent.request.body);
  expect(envelope).toMatchObject({ apiUser: '123456789', type: 150, body: { svcUser: 'alice@example.com', challengeType: 'UserKeyAndPattern' } });
  expect(envelope.utctime).toBe(sent.request.headers['x-svc-utctime']);
});

test('a locked account is reported, not retried', async () => {
  sim.loadScenario('locked-account');
  const login = await startLogin(config, 'locked@example.com');
  expect(login.error).toBe(-2006);
  expect(login.reason).toMatch(/^Account locked/);
  expect(sim.journal({ apiUser: '123456789' })).toHaveLength(1);
});

test('a server clock ten minutes ahead: the application gets -4036; a clock-correcting client recovers', async () => {
  sim.loadScenario('clock-ahead');
  expect((await startLogin(config, 'alice@example.com')).error).toBe(-4036);

  const client = createClient({ ...config, correctClock: true });
  const answer = await client.newChallenge({ user: 'alice@example.com', challengeType: 'UserKeyAndPattern' });
  expect(answer.code).toBe(2025);
  expect(answer.retried).toBe(true);
  expect(sim.journal().map((e) => e.code)).toEqual([2025, -4036, -4036]);
});

test("the coverage: this test's scenario alone, and the whole run so far", async () => {
  await startLogin(config, 'bob@example.com');
  expect(sim.coverage('scenario').met).toEqual([2025]);
  expect(sim.coverage().met).toEqual(expect.arrayContaining([2025, -2006, -4036]));
});
