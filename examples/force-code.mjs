// Asks a simulator running the catalog scenario for one code, with nothing but Node itself.
//   npx mfa-sim --scenario catalog --secret dev-secret      (in one terminal)
//   MFA_SIM_SECRET=dev-secret node node_modules/mfa-sim/examples/force-code.mjs -4036   (in your project, beside mfa-sim)
import { createHmac, randomUUID } from 'node:crypto';

const code = process.argv[2] ?? '-4036';
const base = process.env.MFA_SIM_URL ?? 'http://127.0.0.1:8080';
const apiUser = process.env.MFA_SIM_API_USER ?? '123456789';
const secret = process.env.MFA_SIM_SECRET ?? 'dev-secret';

const utctime = String(Date.now());
const nonce = randomUUID();
const signature = createHmac('sha512', secret).update(`x-svc-utctime: ${utctime}\nx-svc-cnonce: ${nonce}`).digest('hex');
const headers = {
  authorization: `svc-hmac: apiuser=${apiUser},signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=${signature}`,
  'x-svc-apiuser': apiUser,
  'x-svc-utctime': utctime,
  'x-svc-cnonce': nonce,
  'x-sim-code': code,
};

// The time endpoint takes most codes; codes that belong to challenges need a challenge request.
const response = await fetch(`${base}/v1/svc/challenge`, {
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify({ apiUser, type: 150, body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: false } }),
});
const answer = await response.json();
console.log(response.status, answer.code, answer.message);
