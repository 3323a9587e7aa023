import { createHmac, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stringToSign } from '../../src/auth/signature.js';
import { DIAGNOSES_PER_SECOND, NOT_DIAGNOSED } from '../../src/doctor/doctor.js';
import { formatLine } from '../../src/cli/log.js';
import type { RunningSimulator } from '../../src/index.js';
import { clientTime, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * Past the doctor's budget of full diagnoses in a second, a refused signature used to be answered "no common mistake
 * matches", although no mistake had been tried. It now says that it was not diagnosed, and where the string to sign
 * is: the request's journal entry and log line, which carry it for every -4037, past the budget too.
 */

const WHO = { apiUser: '123456789', secret: 'past-budget-secret' };

/** Sends a request signed with a line break after the string to sign (a mistake the doctor names); its answer. */
async function signedWithTrailingNewline(sim: RunningSimulator) {
  const time = clientTime(sim);
  const nonce = randomUUID();
  const toSign = stringToSign(String(time), nonce);
  const signature = createHmac('sha512', WHO.secret).update(`${toSign}\n`).digest('hex');
  const r = await send(sim, '/v1/svc/time', {
    as: WHO,
    time,
    nonce,
    mutate: (h) => (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature=${signature}`)),
  });
  expectEnvelope(r, 400, -4037);
  return { message: r.json.message, toSign };
}

describe('a refused signature past the diagnoses budget', async () => {
  const sim = await simulator({ name: 'past budget', apiUsers: [{ id: WHO.apiUser, secret: WHO.secret }] });

  beforeEach(() => {
    sim.newRun();
    vi.useFakeTimers({ toFake: ['performance'] });
    // At the start of a second of the doctor's clock: every request below falls in it until a test moves it on.
    vi.advanceTimersByTime(1000 - (Math.floor(performance.now()) % 1000));
  });
  afterEach(() => vi.useRealTimers());

  it('says it was not diagnosed, and its journal entry and log line still show the exact string to sign', async () => {
    for (let i = 0; i < DIAGNOSES_PER_SECOND; i++) {
      const diagnosed = await signedWithTrailingNewline(sim);
      expect(diagnosed.message).toMatch(/^Signature error\. Hint: the string signed ends with a line break/);
    }
    const past = await signedWithTrailingNewline(sim);
    expect(past.message).toBe(
      `Signature error. Hint: not diagnosed: more than ${DIAGNOSES_PER_SECOND} signatures were refused this second; ` +
        "this request's journal entry and log line show the string to sign",
    );

    const [entry] = sim.journal({ limit: 1 });
    expect(entry.hint).toEqual({ id: 'not-diagnosed', text: NOT_DIAGNOSED.text });
    expect(entry.expectedStringToSign).toBe(past.toSign);
    const line = formatLine(entry);
    expect(line).toContain(`; expected HMAC-SHA512 over ${JSON.stringify(past.toSign)} with API user ${WHO.apiUser}'s`);
    // The line shows the string itself: the hint that points at it is left out, and the message is not repeated.
    expect(line).not.toContain('not diagnosed');
    expect(line).toMatch(/ -> 400 -4037 Signature error \(\d+(\.\d+)? ms\); expected /);
    expect(line).not.toContain(WHO.secret);
  });

  it('is diagnosed again in the next second', async () => {
    for (let i = 0; i <= DIAGNOSES_PER_SECOND; i++) await signedWithTrailingNewline(sim);
    expect((await signedWithTrailingNewline(sim)).message).toBe(`Signature error. Hint: ${NOT_DIAGNOSED.text}`);
    vi.advanceTimersByTime(1000);
    expect((await signedWithTrailingNewline(sim)).message).toMatch(/Hint: the string signed ends with a line break/);
  });

  it('is counted exactly in the run’s hints when the refusals arrive at once, from many connections', async () => {
    const more = 7;
    await Promise.all(Array.from({ length: DIAGNOSES_PER_SECOND + more }, () => signedWithTrailingNewline(sim)));
    const counts = Object.fromEntries(sim.hints().map((h) => [h.id, h.count]));
    expect(counts).toEqual({ 'trailing-newline': DIAGNOSES_PER_SECOND, 'not-diagnosed': more });
    const notDiagnosed = sim.hints().find((h) => h.id === 'not-diagnosed')!;
    expect(notDiagnosed).toMatchObject({ code: -4037, apiUser: WHO.apiUser, text: NOT_DIAGNOSED.text });
  });
});
