import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest's global setup: every temporary file of a run (the suites', and the command lines and servers they start,
 * which inherit TMPDIR) goes into one folder, removed when the run ends.
 */
export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'mfa-sim-tests-'));
  process.env.TMPDIR = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}
