import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, INSTALL_HINT, launchChromium } from '../../scripts/chromium.js';
import { challengeEnvelope, send as sendApi, simulator } from '../helpers.js';
import { server } from '../proxy-support.js';

const executable = findChromium();
const ci = Boolean(process.env.CI);
if (!executable && !ci)
  console.warn(`\n[mfa-sim] browser tests skipped: no Chromium found. To run them, ${INSTALL_HINT}.\n`);

describe('a browser to run the dashboard tests in', () => {
  // Under CI a missing browser fails the run; on a developer machine the browser tests skip with the notice above.
  it.runIf(ci || executable)('is installed', () => {
    expect(executable, `no Chromium found: ${INSTALL_HINT}`).toBeTruthy();
  });
});

/** The little of the DOM the layout checks read in the page (the tests are type-checked without the DOM's types). */
interface PageElement {
  tagName: string;
  id: string;
  classList: Iterable<string>;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  lastElementChild: PageElement | null;
  getBoundingClientRect(): { left: number; right: number; bottom: number; width: number };
  querySelectorAll(selector: string): Iterable<PageElement>;
  closest(selector: string): PageElement | null;
}
interface PageWindow {
  document: {
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): Iterable<PageElement>;
    documentElement: PageElement;
  };
  innerWidth: number;
  getComputedStyle(e: PageElement): { overflowX: string };
}

describe.runIf(executable)('the dashboard in headless Chromium', { timeout: 45_000 }, async () => {
  const sim = await simulator({ secret: 'browser-secret-1c9e' });
  let browser: Browser;
  const errors: string[] = [];
  beforeAll(async () => {
    browser = await launchChromium(executable!);
    // Fail with the step that did not happen, well inside the test's own timeout.
    browser.contexts().forEach((c) => c.setDefaultTimeout(5000));
  });
  afterAll(() => browser?.close());

  const open = async (path: string): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.setDefaultTimeout(5000);
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${sim.url}${path}`);
    return page;
  };
  /** Clicks an explorer button and returns the code shown for its (last) answer. */
  const send = async (page: Page, kind: string) => {
    await page.click(`button[data-kind="${kind}"]`);
    const pill = page.locator('#result .answer .pill').last();
    await pill.waitFor();
    return (await pill.textContent())!.trim();
  };
  const logCodes = (page: Page) =>
    page.locator('#log details').evaluateAll((ds) => ds.map((d) => d.getAttribute('data-code')));

  it('send a challenge from the explorer, approve it on the phone page, see it verified and every step in the log', async () => {
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    await page.fill('input[name="user"]', 'carol@example.com');

    expect(await send(page, 'challenge')).toBe('2025');
    const id = await page.inputValue('input[name="challengeId"]');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await send(page, 'status')).toBe('-3091');
    await page.locator(`#challenges [data-challenge="${id}"]`, { hasText: 'waiting' }).waitFor();

    // The link to challengeQRcodeUrl opens the user's phone in a new tab.
    const [phone] = await Promise.all([page.context().waitForEvent('page'), page.click('#phone-link')]);
    phone.on('pageerror', (e) => errors.push(e.message));
    await phone.waitForLoadState();
    expect(phone.url()).toBe(`${sim.url}/phone/${id}`);
    await expect.poll(() => phone.textContent('body')).toContain('carol@example.com');
    await phone.click('button:has-text("Approve")');
    const code = (await phone.locator('#auth-code').textContent())!.trim();
    expect(code).toMatch(/^\d{6}$/);
    expect(await phone.locator('button:has-text("Approve")').count()).toBe(0);
    // Back to the dashboard's tab, as a person would (a tab in the background gets few animation frames).
    await page.bringToFront();

    expect(await send(page, 'status')).toBe('3080');
    await page.locator(`#challenges [data-challenge="${id}"]`, { hasText: 'approved' }).waitFor();
    await page.fill('input[name="authCode"]', code);
    expect(await send(page, 'verify')).toBe('3080');
    await expect.poll(() => page.locator('#result').textContent()).toContain('VERIFIED');
    await page.locator(`#challenges [data-challenge="${id}"]`, { hasText: 'verified' }).waitFor();

    // The live log, newest first: challenge, status waiting, status approved, verify.
    await expect.poll(() => logCodes(page)).toEqual(['3080', '3080', '-3091', '2025']);
    const newest = page.locator('#log details').first();
    await newest.locator('summary').click();
    await expect.poll(() => newest.locator('pre').first().textContent()).toContain('POST /v1/svc/verify');
    expect(await newest.textContent()).toContain(`"authCode": "${code}"`);
    expect(await page.content()).not.toContain('browser-secret-1c9e');

    mkdirSync(join(__dirname, '..', '..', 'test-results'), { recursive: true });
    await page.screenshot({ path: join(__dirname, '..', '..', 'test-results', 'dashboard.png') });
    await phone.close();
    await page.close();
  });

  it('deny and expire from the challenges table; the broken requests show their codes', async () => {
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    expect(await send(page, 'challenge')).toBe('2025');
    const first = await page.inputValue('input[name="challengeId"]');
    await page.click(`#challenges [data-challenge="${first}"] button[data-act="deny"]`);
    await page.locator(`#challenges [data-challenge="${first}"]`, { hasText: 'denied' }).waitFor();
    expect(await send(page, 'status')).toBe('-3092');

    expect(await send(page, 'challenge')).toBe('2025');
    const second = await page.inputValue('input[name="challengeId"]');
    await page.click(`#challenges [data-challenge="${second}"] button[data-act="expire"]`);
    await page.locator(`#challenges [data-challenge="${second}"]`, { hasText: 'expired' }).waitFor();
    expect(await send(page, 'status')).toBe('-3092');

    expect(await send(page, 'bad-signature')).toBe('-4037');
    expect(await send(page, 'replay')).toBe('-4034');
    expect(await send(page, 'drift')).toBe('-4036');
    // The -4037 row shows the string the simulator expected to be signed.
    const row = page.locator('#log details[data-code="-4037"]').first();
    await row.locator('summary').click();
    await expect.poll(() => row.textContent()).toMatch(/expected to be signedx-svc-utctime: \d+\nx-svc-cnonce: /);
    // And what the client likely did wrong: the doctor's hint.
    await expect
      .poll(() => row.locator('p.hint').textContent())
      .toMatch(/^no common mistake matches; sign exactly "x-svc-utctime: \d+\\nx-svc-cnonce: /);
    await page.close();
  });

  it("shows the client findings, as a client makes them, and not the explorer's own mistakes", async () => {
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    expect(await page.textContent('#findings')).toBe('Nothing found yet.');
    // Two drifts from the explorer: a client doing this would be told drift-not-corrected; the explorer is not one.
    expect(await send(page, 'drift')).toBe('-4036');
    expect(await send(page, 'drift')).toBe('-4036');
    await expect
      .poll(() => page.locator('#log details[data-code="-4036"] .what').first().textContent())
      .toMatch(/ · \d{9} · explorer$/);
    const as = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
    for (let i = 0; i < 2; i++)
      await sendApi(sim, '/v1/svc/challenge', {
        as,
        body: challengeEnvelope(sim.apiUser.id, {}, { id: 'same-every-time' }),
      });
    const row = page.locator('#findings tr[data-finding="envelope-id-reused"]');
    await row.waitFor();
    // Shown after the explorer's drifts, and alone.
    expect(
      await page
        .locator('#findings tr[data-finding]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-finding'))),
    ).toEqual(['envelope-id-reused']);
    expect(await row.locator('.pill').textContent()).toBe('warning');
    expect(await row.textContent()).toMatch(/API user \d{9} · #\d+ · 1×/);
    expect(await row.textContent()).toContain('give every request its own');
    mkdirSync(join(__dirname, '..', '..', 'test-results'), { recursive: true });
    await page.screenshot({
      path: join(__dirname, '..', '..', 'test-results', 'dashboard-findings.png'),
      fullPage: true,
    });
    await page.close();
  });

  it('shows the whole run by default, and the current scenario on demand: codes and findings', async () => {
    sim.newRun();
    const as = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
    for (let i = 0; i < 2; i++)
      await sendApi(sim, '/v1/svc/challenge', {
        as,
        body: challengeEnvelope(sim.apiUser.id, {}, { id: 'one-id-for-all' }),
      });
    sim.loadScenario('default');
    await sendApi(sim, '/v1/svc/time', { method: 'GET', as });
    const page = await open('/__sim/ui');
    const codes = sim.coverage().met.length + sim.coverage().missing.length;
    await expect
      .poll(() => page.textContent('#coverage'))
      .toBe(`Codes answered in the whole run: 2 of ${codes} (2025, 15000).`);
    expect(await page.locator('#findings tr[data-finding="envelope-id-reused"]').count()).toBe(1);
    await page.check('input[name="scope"][value="scenario"]');
    await expect
      .poll(() => page.textContent('#coverage'))
      .toMatch(/^Codes answered in the current scenario: 1 of \d+ \(15000\)\.$/);
    await expect.poll(() => page.locator('#findings tr[data-finding="envelope-id-reused"]').count()).toBe(0);
    await page.check('input[name="scope"][value="run"]');
    await expect.poll(() => page.locator('#findings tr[data-finding="envelope-id-reused"]').count()).toBe(1);
    await page.close();
  });

  it('switches the scenario from the picker', async () => {
    const page = await open('/__sim/ui');
    await page.selectOption('#scenario-pick', 'locked-account');
    await Promise.all([page.waitForEvent('load'), page.click('#switch')]);
    expect(await page.textContent('#active-scenario')).toBe('locked-account');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    await page.fill('input[name="user"]', 'locked@example.com');
    expect(await send(page, 'challenge')).toBe('-2006');
    await page.close();
    sim.loadScenario('default');
  });

  it("follows the event stream: a client's challenge appears, the user's answer on the phone page shows at once, the time left counts down", async () => {
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    // The page reads nothing on a timer: within these two seconds, only the event stream can bring each change.
    const soon = { timeout: 2000 };
    const as = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
    const made = await sendApi(sim, '/v1/svc/challenge', {
      as,
      body: challengeEnvelope(sim.apiUser.id, { svcUser: 'dave@example.com' }),
    });
    const id = (JSON.parse(made.json.message) as { challengeId: string }).challengeId;
    const row = page.locator(`#challenges [data-challenge="${id}"]`);
    await row.waitFor(soon);
    expect(await row.textContent()).toContain('sent by the client');
    const left = row.locator('td.left');
    const before = await left.textContent();
    expect(before).toMatch(/^[45] min \d+ s$/);
    await expect.poll(() => left.textContent(), soon).not.toBe(before);

    const phone = await browser.newPage();
    phone.on('pageerror', (e) => errors.push(e.message));
    await phone.goto(`${sim.url}/phone/${id}`);
    await phone.click('button:has-text("Approve")');
    await phone.close();
    await page
      .locator(`#challenges [data-challenge="${id}"]`, {
        hasText: 'sent by the client · approved by the user on the phone page',
      })
      .waitFor(soon);
    await page
      .locator('#flash', { hasText: 'Challenge for dave@example.com approved by the user on the phone page' })
      .waitFor(soon);
    expect(await row.locator('td.left').textContent()).toBe('');
    await page.close();
  });

  it("follows the simulator's clock: a test that freezes or moves it is shown at once, without a reload", async () => {
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    const soon = { timeout: 2000 };
    try {
      // Only the event stream can bring these: the page reads the clock on a timer from what it last learned.
      sim.freeze('2031-05-06T07:08:09Z');
      await page.locator('#clock', { hasText: '2031-05-06 07:08:09' }).waitFor(soon);
      await page.locator('#clock-state', { hasText: 'frozen' }).waitFor(soon);
      sim.advance('1h');
      await page.locator('#clock', { hasText: '2031-05-06 08:08:09' }).waitFor(soon);
      mkdirSync(join(__dirname, '..', '..', 'test-results'), { recursive: true });
      await page.screenshot({ path: join(__dirname, '..', '..', 'test-results', 'dashboard-clock.png') });
      sim.unfreeze();
      await page.locator('#clock-state', { hasText: 'running' }).waitFor(soon);
    } finally {
      sim.loadScenario('default');
      await page.close();
    }
  });

  it('a challenges table fetched before a move of the clock does not put the old clock back when it comes late', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => errors.push(e.message));
    // The table the page fetches when its stream opens comes 800 ms late: the freeze below reaches it first.
    await page.route('**/__sim/ui/challenges', async (route) => {
      const response = await route.fetch();
      await new Promise((r) => setTimeout(r, 800));
      await route.fulfill({ response });
    });
    await page.goto(`${sim.url}/__sim/ui`);
    await page.locator('#live', { hasText: 'live' }).waitFor();
    try {
      sim.freeze('2031-05-06T07:08:09Z');
      await page.locator('#clock-state', { hasText: 'frozen' }).waitFor({ timeout: 2000 });
      // The late table has come by now, with the clock as it was when it was made (running, in 2026).
      await page.waitForTimeout(1200);
      expect([await page.textContent('#clock'), await page.textContent('#clock-state')]).toEqual([
        '2031-05-06 07:08:09',
        'frozen',
      ]);
    } finally {
      sim.loadScenario('default');
      await page.close();
    }
  });

  it('follows the scenario a test loads: the card, the picker and the explorer, without a reload', async () => {
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    const soon = { timeout: 2000 };
    const picked = () => page.$eval('#scenario-pick', (s) => (s as unknown as { value: string }).value);
    const apiUsers = () =>
      page.$$eval('#explorer select[name=apiUser] option', (os) => os.map((o) => (o as PageElement).textContent));
    try {
      // A shipped scenario: the picker selects it.
      sim.loadScenario('locked-account');
      await page.locator('#active-scenario', { hasText: 'locked-account' }).waitFor(soon);
      expect(await picked()).toBe('locked-account');
      // A scenario of the test's own: named in the picker as loaded, its API users in the explorer, its accounts
      // suggested, and markup in its description shown as text.
      sim.loadScenario({
        name: 'two-users',
        description: '<b>bold?</b> two API users',
        apiUsers: [{ id: '111111111', secret: 'first-user-secret' }],
        accounts: { 'frozen@example.com': 'locked' },
      });
      await page.locator('#active-scenario', { hasText: 'two-users' }).waitFor(soon);
      expect(await page.textContent('#scenario-description')).toBe('<b>bold?</b> two API users');
      expect(await page.$$('#scenario-description b')).toHaveLength(0);
      expect(await page.textContent('#scenario-pick option:checked')).toBe('two-users (loaded)');
      expect(await apiUsers()).toEqual([sim.apiUser.id, '111111111']);
      expect(await page.$$('#emails option[value="frozen@example.com"]')).toHaveLength(1);
      mkdirSync(join(__dirname, '..', '..', 'test-results'), { recursive: true });
      await page.screenshot({ path: join(__dirname, '..', '..', 'test-results', 'dashboard-scenario.png') });
      // Back to a shipped one: the "(loaded)" entry goes.
      sim.loadScenario('default');
      await page.locator('#active-scenario', { hasText: 'default' }).waitFor(soon);
      expect(await picked()).toBe('default');
      expect(await page.$$('#scenario-pick option[disabled]')).toHaveLength(0);
    } finally {
      sim.loadScenario('default');
      await page.close();
    }
  });

  it('the explorer says what was asked and what came of it, not what the button usually gets', async () => {
    sim.loadScenario('locked-account');
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    await page.fill('input[name="user"]', 'locked@example.com');
    expect(await send(page, 'challenge')).toBe('-2006');
    expect(await page.textContent('#result h3')).toBe(
      'New challenge for locked@example.com (UserKeyAndPattern, FiveMins)',
    );
    expect(await page.textContent('#result')).not.toMatch(/expected 2025/);
    expect(await page.textContent('#result .usual')).toBe(
      'This button usually gets 2025: this answer came from what was asked or from the scenario (its message says why).',
    );
    await page.fill('input[name="user"]', 'erin@example.com');
    expect(await send(page, 'challenge')).toBe('2025');
    expect(await page.textContent('#result .usual')).toBe('The usual answer for this button: 2025.');
    // Verified by the explorer, after a control call (this page's button) approved it.
    const id = await page.inputValue('input[name="challengeId"]');
    await page.click(`#challenges [data-challenge="${id}"] button[data-act="approve"]`);
    await page.locator('#flash', { hasText: 'approved by a control call (this page)' }).waitFor();
    expect(await send(page, 'verify')).toBe('3080');
    await page
      .locator(`#challenges [data-challenge="${id}"]`, {
        hasText: 'sent by the explorer · approved by a control call · verified by the explorer',
      })
      .waitFor();
    await page.close();
    sim.loadScenario('default');
  });

  it('forces any code of the table, under whatever scenario is active: signed, answered, in the journal', async () => {
    sim.loadScenario('locked-account');
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    const force = async (code: string) => {
      await page.selectOption('#force-code', code);
      return send(page, 'force');
    };
    try {
      // A time code, a header code, and a status code that needs a challenge first (made with a forced 2025).
      expect(await force('-4036')).toBe('-4036');
      expect(await page.textContent('#result h3')).toBe('Force -4036 utctime clock drift error (time)');
      expect(await page.textContent('#result .answer p')).toContain('HTTP 400:');
      expect(await page.textContent('#result .usual')).toBe('The usual answer for this button: -4036.');
      expect(await force('-3091')).toBe('-3091');
      const pills = await page.locator('#result .answer > p > .pill').allTextContents();
      expect(pills).toEqual(['2025', '-3091']);
      expect(await force('-5000')).toBe('-5000');
      // Every one is in the journal like any request, answered by the catalog's rule.
      const forced = sim.journal({ limit: 4 });
      expect(forced.map((e) => e.code)).toEqual([-5000, -3091, 2025, -4036]);
      for (const e of forced) expect(e.scenario).toBe('catalog');
      await expect.poll(() => logCodes(page)).toEqual(expect.arrayContaining(['-5000', '-3091', '-4036']));
    } finally {
      await page.close();
      sim.loadScenario('default');
    }
  });

  it("shows each person's script, the magic addresses, and each worker's clock with its challenges' time left", async () => {
    sim.loadScenario({
      name: 'scripted',
      people: { 'bob@example.com': [{ approve: '5s' }, { deny: '6s' }], 'eve*@example.com': 'ignore' },
      magicAddresses: false,
    });
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    const worker = sim.simulator.claimApiUser();
    try {
      expect(await page.locator('#people li').allTextContents()).toEqual([
        'bob@example.com: approve after 5s, then deny after 6s',
        'eve*@example.com: ignore',
      ]);
      expect(await page.textContent('#magic-addresses')).toBe('off');
      // A worker that froze its clock an hour ahead: its time and its challenge's time left follow its clock.
      sim.simulator.apiUserClocks.freeze(worker.apiUser, sim.simulator.now() + 3_600_000);
      const workerNow = sim.simulator.apiUserClocks.clock(worker.apiUser).now;
      const frozenAt = new Date(workerNow).toISOString();
      const as = { apiUser: worker.apiUser, secret: worker.secret };
      const body = challengeEnvelope(worker.apiUser, { challengeExpiry: 'ThreeMins' });
      const r = await sendApi(sim, '/v1/svc/challenge', { as, body, time: workerNow });
      expect(r.status, r.text).toBe(202);
      sim.simulator.clock.advance(10 * 60_000);
      const row = page.locator(`#workers tr[data-worker="${worker.apiUser}"]`);
      await row.waitFor({ timeout: 7000 });
      expect(await row.textContent()).toContain(frozenAt.replace('T', ' ').slice(0, 19));
      expect(await row.textContent()).toContain('frozen');
      // Ten minutes on the simulator's clock: the worker's frozen challenge still has its three minutes.
      await expect.poll(() => page.textContent('#challenges tbody td.left')).toBe('3 min 0 s');
      // A scenario loaded by a test: its people and magic addresses, without a reload.
      sim.loadScenario('default');
      await page.locator('#magic-addresses', { hasText: 'on' }).waitFor();
      expect(await page.locator('#people li').count()).toBe(0);
    } finally {
      sim.simulator.releaseApiUser(worker.apiUser);
      sim.loadScenario('default');
      await page.close();
    }
  });

  it('nothing is cut off and no card is left with a large empty area, from 760 to 1920 px wide', async () => {
    const page = await open('/__sim/ui');
    await page.locator('#live', { hasText: 'live' }).waitFor();
    // One request in the log: its card ends below it, however narrow the page.
    await send(page, 'time');
    await page.locator('#log li').first().waitFor();
    const emptyBelowOne = async () =>
      page.evaluate(() => {
        const log = (globalThis as unknown as PageWindow).document.querySelector('#log')!;
        return (
          log.closest('.card')!.getBoundingClientRect().bottom - log.lastElementChild!.getBoundingClientRect().bottom
        );
      });
    for (const width of [760, 1920]) {
      await page.setViewportSize({ width, height: 1000 });
      expect(await emptyBelowOne(), `${width} px`).toBeLessThan(40);
    }
    await page.fill('input[name="user"]', 'a-rather-long-name.for-the-layout@subdomain.example.com');
    for (const kind of ['challenge', 'status', 'bad-signature', 'challenge']) await send(page, kind);
    await page.locator('#log li').nth(4).waitFor();
    mkdirSync(join(__dirname, '..', '..', 'test-results'), { recursive: true });
    for (const width of [760, 1024, 1280, 1440, 1920]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.screenshot({
        path: join(__dirname, '..', '..', 'test-results', `dashboard-${width}.png`),
        fullPage: true,
      });
      const layout = await page.evaluate(() => {
        const { document, innerWidth } = globalThis as unknown as PageWindow;
        const getComputedStyle = (e: PageElement) => (globalThis as unknown as PageWindow).getComputedStyle(e);
        const cut: string[] = [];
        const name = (e: PageElement) =>
          `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')} "${(e.textContent ?? '').trim().slice(0, 30)}"`;
        for (const card of document.querySelectorAll('.card')) {
          const box = card.getBoundingClientRect();
          if (card.scrollWidth > card.clientWidth + 1) cut.push(`${name(card)} is wider inside than out`);
          for (const e of card.querySelectorAll('button, td, th, input, select, .entry summary > span, h2, h3, p')) {
            const r = e.getBoundingClientRect();
            if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1))
              cut.push(`${name(e)} sticks out of its card`);
            // A text field scrolls what it holds, as every text field does; anything else shows all it has.
            if (
              e.tagName !== 'INPUT' &&
              e.scrollWidth > e.clientWidth + 1 &&
              getComputedStyle(e).overflowX !== 'visible'
            )
              cut.push(`${name(e)} is clipped`);
          }
        }
        const log = document.querySelector('#log')!;
        const logCard = log.closest('.card')!.getBoundingClientRect();
        const lastEntry = log.lastElementChild!.getBoundingClientRect();
        return {
          cut,
          pageWider: document.documentElement.scrollWidth > innerWidth,
          logEmptyBelow: logCard.bottom - lastEntry.bottom,
          latencies: [...document.querySelectorAll('.entry .ms')].map((e) => e.textContent),
        };
      });
      expect(layout.cut, `${width} px`).toEqual([]);
      expect(layout.pageWider, `${width} px`).toBe(false);
      expect(layout.logEmptyBelow, `${width} px: the log card below its last entry`).toBeLessThan(40);
      expect(layout.latencies.length).toBeGreaterThanOrEqual(5);
      for (const ms of layout.latencies) expect(ms).toMatch(/^\d+(\.\d+)? ms$/);
    }
    await page.close();
  });

  it('raised no script error on any page', () => {
    expect(errors).toEqual([]);
  });
});

describe.runIf(executable)('the dashboard behind a control token, in Chromium', { timeout: 45_000 }, async () => {
  const sim = await simulator({ controlToken: 'browser-token' });
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(executable!);
  });
  afterAll(() => browser?.close());

  it('opens once with ?token=, then the live log and the explorer work through the cookie', async () => {
    const page = await browser.newPage();
    expect((await page.goto(`${sim.url}/__sim/ui`))!.status()).toBe(401);
    expect((await page.goto(`${sim.url}/__sim/ui?token=browser-token`))!.status()).toBe(200);
    await page.locator('#live', { hasText: 'live' }).waitFor();
    await page.click('button[data-kind="time"]');
    await expect
      .poll(() => page.locator('#log details').evaluateAll((ds) => ds.map((d) => d.getAttribute('data-code'))))
      .toEqual(['15000']);
    await page.close();
  });
});

describe.runIf(executable)(
  "the explorer before a hostile upstream's new challenges, in Chromium",
  { timeout: 45_000 },
  async () => {
    const PNG =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';
    let pixels = 0;
    const upstream = await server((req, res, body) => {
      if (req.url === '/pixel.png') {
        pixels++;
        return void res.end();
      }
      const user = /"svcUser":"(\w+)@/.exec(body.toString())?.[1];
      const parts: Record<string, unknown> = {
        hostile: {
          challengeId: 'up-1',
          challengeQRcodeUrl: 'javascript:alert(document.domain)',
          challengeQRcode: `http://${req.headers.host}/pixel.png`,
        },
        plain: { challengeId: 'up-2', challengeQRcodeUrl: 'https://upstream.example/phone/2', challengeQRcode: PNG },
      };
      const message = user && parts[user] ? JSON.stringify(parts[user]) : 'not JSON';
      const text = JSON.stringify({ id: 'x', utctime: new Date().toISOString(), status: 202, code: 2025, message });
      res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    const px = await simulator({ secret: 'browser-secret-1c9e', upstream: upstream.url });
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium(executable!);
    });
    afterAll(() => browser?.close());

    it('shows a link that is not http(s) and a QR code that is not a PNG data URL as text, and fetches nothing', async () => {
      const page = await browser.newPage();
      page.setDefaultTimeout(5000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${px.url}/__sim/ui`);
      await page.locator('#live', { hasText: 'live' }).waitFor();
      const challenge = async (user: string) => {
        await page.fill('input[name="user"]', `${user}@example.com`);
        await page.click('button[data-kind="challenge"]');
        await page.locator('#result h3', { hasText: `${user}@example.com` }).waitFor();
        return page.locator('#result .answer').first();
      };

      const hostile = await challenge('hostile');
      expect(await hostile.locator('a').count()).toBe(0);
      expect(await hostile.locator('img').count()).toBe(0);
      expect(await hostile.textContent()).toContain(
        'the phone page at javascript:alert(document.domain) (not an http or https URL, so not a link).',
      );
      expect(await hostile.textContent()).toContain('QR code not shown (not a PNG data URL): http://127.0.0.1:');
      expect(await page.inputValue('input[name="challengeId"]')).toBe('up-1');

      const plain = await challenge('plain');
      expect(await plain.locator('a').getAttribute('href')).toBe('https://upstream.example/phone/2');
      expect(await plain.locator('img').getAttribute('src')).toBe(PNG);

      // A 2025 whose message is not JSON: shown as it came, and the page goes on.
      const odd = await challenge('odd');
      expect(await odd.locator('p').first().textContent()).toBe('2025 not JSON');
      expect(pixels).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    });
  },
);
