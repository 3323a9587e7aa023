// What each worker file does first: claim an API user of its own for its tests, the default scenario before each test.
const { connect } = require('mfa-sim/control');
const { createClient } = require('mfa-sim/client');

function claimedApiUser() {
  const worker = {};
  beforeAll(async () => {
    worker.me = await connect(process.env.MFA_SIM_URL).claimApiUser();
    worker.client = createClient({ baseUrl: worker.me.url, apiUser: worker.me.apiUser, secret: worker.me.secret });
  });
  beforeEach(() => worker.me.loadScenario('default'));
  afterAll(async () => {
    // Nothing another worker sent is in this one's journal.
    expect((await worker.me.journal()).every((e) => e.apiUser === worker.me.apiUser)).toBe(true);
    await worker.me.release();
  });
  return worker;
}

module.exports = { claimedApiUser };
