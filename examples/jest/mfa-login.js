// The code under test: how an application asks the MFA service for a challenge and waits for the user.
// It is plain CommonJS with its own signing, as an application's client would be.
const { createHmac, randomUUID } = require('node:crypto');

function signedHeaders({ apiUser, secret }) {
  const utctime = String(Date.now());
  const nonce = randomUUID();
  const signature = createHmac('sha512', secret).update(`x-svc-utctime: ${utctime}\nx-svc-cnonce: ${nonce}`).digest('hex');
  return {
    'content-type': 'application/json',
    authorization: `svc-hmac: apiuser=${apiUser},signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=${signature}`,
    'x-svc-apiuser': apiUser,
    'x-svc-utctime': utctime,
    'x-svc-cnonce': nonce,
  };
}

async function call(config, path, type, body) {
  const headers = signedHeaders(config);
  const res = await fetch(`${config.baseUrl}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ utctime: headers['x-svc-utctime'], apiUser: config.apiUser, type, body }),
  });
  return res.json();
}

/** Starts a second-factor login: { challengeId } or { error: code }. */
async function startLogin(config, email) {
  const answer = await call(config, '/v1/svc/challenge', 150, { svcUser: email, challengeType: 'UserKeyAndPattern', enableQRcode: false });
  if (answer.code !== 2025) return { error: answer.code, reason: answer.message };
  return { challengeId: JSON.parse(answer.message).challengeId };
}

/** Whether the user approved: 'approved', 'waiting' or 'rejected'. */
async function loginState(config, email, challengeId) {
  const answer = await call(config, '/v1/svc/status', 171, { svcUser: email, challengeId });
  if (answer.code === 3080) return 'approved';
  if (answer.code === -3091) return 'waiting';
  return 'rejected';
}

module.exports = { startLogin, loginState };
