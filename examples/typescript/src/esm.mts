// An ES module under NodeNext resolution: the package's `import` conditions and its .d.ts declarations.
import { createApp, startSimulator, CODES, type RunningSimulator, type ScenarioInput, type SimulatorApp } from 'mfa-sim';
import { createClient } from 'mfa-sim/client';

const scenario: ScenarioInput = { name: 'typed', clock: { offset: '10m' }, rules: [{ when: { endpoint: 'time' }, respond: { code: -5000 } }] };
const sim: RunningSimulator = await startSimulator(scenario);
const app: SimulatorApp = createApp({ secret: 'x' });
const client = createClient({ baseUrl: sim.url, apiUser: sim.apiUser.id, secret: sim.apiUser.secret, responseStyle: 'document' });
const time = await client.time();
if (time.ok) console.log(time.message['utc-time']);
else console.log(time.code, CODES.find((c) => c.code === time.code)?.title, typeof app.simulator.now());
await sim.close();
