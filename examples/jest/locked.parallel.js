const { claimedApiUser } = require('./claimed');
const { startLogin } = require('./mfa-login');

const worker = claimedApiUser();
const config = () => ({ baseUrl: worker.me.url, apiUser: worker.me.apiUser, secret: worker.me.secret });

test('a locked account is reported, under this worker\'s scenario only', async () => {
  await worker.me.loadScenario('locked-account');
  expect((await startLogin(config(), 'locked@example.com')).error).toBe(-2006);
  expect(await worker.me.journal({ code: -2006 })).toHaveLength(1);
});

test('a rule that refuses every challenge reaches this worker alone', async () => {
  await worker.me.loadScenario({ name: 'all-refused', rules: [{ when: { endpoint: 'challenge' }, respond: { code: -2038 } }] });
  expect((await startLogin(config(), 'alice@example.com')).error).toBe(-2038);
});
