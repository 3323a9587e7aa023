// Signs and sends a new challenge to mfa-sim with nothing but Node itself (20 or later).
//   MFA_SIM_SECRET=dev-secret node node_modules/mfa-sim/examples/send-challenge.mjs   (in your project, beside mfa-sim)
import { createHmac, randomUUID } from 'node:crypto';

const base = process.env.MFA_SIM_URL ?? 'http://127.0.0.1:8080';
const apiUser = process.env.MFA_SIM_API_USER ?? '123456789';
const secret = process.env.MFA_SIM_SECRET ?? 'dev-secret';
const token = 'svc';

// The string-to-sign is two header lines; the signature is HMAC-SHA512 of it, keyed with the secret, in hex.
const utctime = String(Date.now());
const nonce = randomUUID();
const signature = createHmac('sha512', secret).update(`x-${token}-utctime: ${utctime}\nx-${token}-cnonce: ${nonce}`).digest('hex');

const response = await fetch(`${base}/v1/svc/challenge`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json; charset=utf-8',
    authorization: `${token}-hmac: apiuser=${apiUser},signedheaders=x-${token}-utctime;x-${token}-cnonce,algorithm=${token}-hmac512,signature=${signature}`,
    [`x-${token}-apiuser`]: apiUser,
    [`x-${token}-utctime`]: utctime,
    [`x-${token}-cnonce`]: nonce,
  },
  body: JSON.stringify({
    // Each request its own id: the client doctor reports a reused one (envelope-id-reused).
    id: `first-${utctime}`,
    utctime,
    apiUser,
    type: 150,
    body: { [`${token}User`]: 'user@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: false },
  }),
});
const answer = await response.json();
console.log(response.status, answer.code, answer.message);
