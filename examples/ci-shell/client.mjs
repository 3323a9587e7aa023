// The client's integration check in a CI job: the flows it must handle, against the running simulator.
// The package is used here both ways: `import` (this file) and `require` (checked at the end).
import { createRequire } from 'node:module';
import { createClient } from 'mfa-sim/client';

const client = createClient({ baseUrl: process.env.MFA_SIM_URL, apiUser: '123456789', secret: process.env.MFA_SIM_SECRET });
const user = 'ci@example.com';

function expectCode(what, answer, code) {
  console.log(`${what}: ${answer.code} ${answer.ok ? JSON.stringify(answer.message) : answer.message}`);
  if (answer.code !== code) throw new Error(`${what}: expected ${code}, got ${answer.code}`);
}

const created = await client.newChallenge({ user, challengeType: 'UserKeyAndPattern', enableQRcode: false });
expectCode('new challenge', created, 2025);
expectCode('cancel', await client.cancel({ user, challengeId: created.message.challengeId }), 2028);
expectCode('time', await client.time(), 15000);
const wrong = createClient({ baseUrl: process.env.MFA_SIM_URL, apiUser: '123456789', secret: 'not-the-secret' });
expectCode('wrong secret', await wrong.time(), -4037);

const require = createRequire(import.meta.url);
for (const id of ['mfa-sim', 'mfa-sim/client']) {
  const exported = Object.keys(require(id));
  console.log(`require('${id}'): ${exported.length} exports`);
  if (!exported.includes(id === 'mfa-sim' ? 'startSimulator' : 'createClient')) throw new Error(`require('${id}') lacks its entry point`);
}
