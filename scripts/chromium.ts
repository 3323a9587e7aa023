import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Flags for a headless Chromium in a container or CI: no sandbox, no GPU, nothing fetched in the background. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const INSTALL_HINT =
  'install Chromium (Debian/Ubuntu: `sudo apt-get install chromium`) or set CHROMIUM_PATH to a Chromium or Chrome executable';

/**
 * The system's Chromium: `CHROMIUM_PATH`, else `chromium` or `chromium-browser` on the PATH. Undefined when there is
 * none.
 */
export function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  const candidates = given
    ? [given]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .flatMap((dir) => ['chromium', 'chromium-browser'].map((n) => join(dir, n)));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Launches the system's Chromium through playwright-core (never a downloaded browser). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}
