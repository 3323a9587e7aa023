// One simulator for every Jest worker, started once; the workers find it by MFA_SIM_URL.
const { startSimulator } = require('mfa-sim');

module.exports = async () => {
  const sim = await startSimulator();
  process.env.MFA_SIM_URL = sim.url; // workers start after the global set-up, with its environment
  globalThis.mfaSim = sim; // the global teardown runs in this same process
};
