/**
 * Makes the README's pictures: docs/dashboard.png (the dashboard after a short exploration) and docs/phone.png
 * (the phone page). Uses the system's Chromium (see scripts/chromium.ts). Run: `npm run screenshot`.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator } from '../src/index.js';
import { findChromium, INSTALL_HINT, launchChromium } from './chromium.js';

const out = join(import.meta.dirname, '..', 'docs');
const executable = findChromium();
if (!executable) {
  console.error(`No Chromium found: ${INSTALL_HINT}`);
  process.exit(1);
}

// Two scripted people, and a worker whose clock runs an hour ahead, for the Scenario card and the challenges card.
const people = { 'bob@example.com': [{ approve: '5s' }], '*@slow.example.com': [{ deny: '2m' }] };
const sim = await startSimulator({ seed: 7, secret: 'screenshot-secret', port: 0, people });
const worker = sim.simulator.claimApiUser();
sim.simulator.apiUserClocks.advance(worker.apiUser, '1h');
const browser = await launchChromium(executable);
try {
  mkdirSync(out, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1440, height: 1250 } });
  await page.goto(`${sim.url}/__sim/ui`);
  await page.locator('#live', { hasText: 'live' }).waitFor();
  const click = async (kind: string) => {
    await page.click(`button[data-kind="${kind}"]`);
    await page.locator('#result .answer').first().waitFor();
  };
  await click('time');
  await click('challenge');
  const phoneUrl = await page.locator('#phone-link').getAttribute('href');
  await click('status');
  const phone = await browser.newPage({ viewport: { width: 420, height: 760 } });
  await phone.goto(new URL(phoneUrl!, sim.url).href);
  await phone.screenshot({ path: join(out, 'phone.png') });
  await phone.click('button:has-text("Approve")');
  const code = (await phone.locator('#auth-code').textContent())!.trim();
  await page.fill('input[name="authCode"]', '000000');
  await click('verify');
  await page.fill('input[name="authCode"]', code);
  await click('verify');
  await click('bad-signature');
  await click('challenge');
  await page.click('button[data-kind="drift"]');
  await page.locator('#result .answer .pill', { hasText: '-4036' }).waitFor();
  // Any code of the table, forced: a locked account's -2006 on a new challenge.
  await page.selectOption('#force-code', '-2006');
  await page.click('button[data-kind="force"]');
  await page.locator('#result .answer .pill', { hasText: '-2006' }).waitFor();
  await page.locator('#log li').nth(8).waitFor();
  await page.locator('#workers').waitFor();
  await page.locator('#challenges tbody', { hasText: 'verified' }).waitFor();
  await page
    .locator('#log details[data-code="-4037"]')
    .evaluate((d) => ((d as unknown as { open: boolean }).open = true));
  mkdirSync(out, { recursive: true });
  await page.screenshot({ path: join(out, 'dashboard.png') });
  for (const f of ['dashboard.png', 'phone.png']) console.log(`docs/${f}: ${statSync(join(out, f)).size} bytes`);
} finally {
  await browser.close();
  await sim.close();
}
