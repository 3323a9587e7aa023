// The run's verdict over what every worker met, as `--require-coverage` judges a CI job; a failed one fails the run.
const REQUIRED = [2025, 2028, -2006, -4036, 15000];

module.exports = async () => {
  const sim = globalThis.mfaSim;
  const verdict = sim.verdict({ required: REQUIRED });
  await sim.close();
  if (verdict.status !== 0) throw new Error(`mfa-sim: ${verdict.lines.join('\n')}`);
};
