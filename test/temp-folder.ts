import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest's global setup: every temporary file of a run (the suites', and the command lines and browsers they start,
 * which inherit TMPDIR) goes into one folder, removed when the run ends. Each project runs this setup; the first
 * makes the folder and the others use it (a folder in a folder makes Chromium's socket path too long).
 */
export default function setup(): () => void {
  if (process.env.MFA_SIM_TEST_TMPDIR) return () => {};
  const folder = mkdtempSync(join(tmpdir(), 'mfa-sim-tests-'));
  process.env.TMPDIR = process.env.MFA_SIM_TEST_TMPDIR = folder;
  return () => {
    rmSync(folder, { recursive: true, force: true });
    delete process.env.MFA_SIM_TEST_TMPDIR;
  };
}
