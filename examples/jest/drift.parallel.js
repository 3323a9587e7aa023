const { claimedApiUser } = require('./claimed');
const { startLogin } = require('./mfa-login');

const worker = claimedApiUser();

test('a server clock ten minutes ahead: -4036', async () => {
  await worker.me.loadScenario('clock-ahead');
  expect((await startLogin({ baseUrl: worker.me.url, apiUser: worker.me.apiUser, secret: worker.me.secret }, 'alice@example.com')).error).toBe(-4036);
});

test('the time, under the default scenario again: 15000', async () => {
  expect((await worker.client.time()).code).toBe(15000);
});
