const { connect } = require('mfa-sim/control');
const { claimedApiUser } = require('./claimed');
const { startLogin, loginState } = require('./mfa-login');

const worker = claimedApiUser();

test('a login approved on the phone, then a second one cancelled: 2025, 2028', async () => {
  const config = { baseUrl: worker.me.url, apiUser: worker.me.apiUser, secret: worker.me.secret };
  const login = await startLogin(config, 'carol@example.com');
  await connect(process.env.MFA_SIM_URL).approve(login.challengeId);
  expect(await loginState(config, 'carol@example.com', login.challengeId)).toBe('approved');
  const second = await worker.client.newChallenge({ user: 'carol@example.com', challengeType: 'UserKeyAndPattern' });
  expect((await worker.client.cancel({ user: 'carol@example.com', challengeId: second.message.challengeId })).code).toBe(2028);
  expect((await worker.me.challenges()).map((c) => c.state)).toEqual(['cancelled', 'approved']);
});
