import { describe, expect, it } from 'vitest';
import { internalErrorJson, isoTime } from '../../src/contract/response.js';
import { EARLIEST, LATEST } from '../../src/contract/response.js';
import { challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';
import { run } from '../cli-helpers.js';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { control, expectStillServes } from './support.js';

/**
 * Class: a time or a duration at the edge of the representable. Every one is bounded where it enters (the
 * scenario schema and the control API), with a 400 or a load error naming the key and the allowed range; the
 * clock never leaves 1970..9999; the last-resort -5000 answer cannot fail; control failures are JSON.
 */

const HUGE = [1e300, -1e300, 8.64e15, Number.MAX_SAFE_INTEGER, '99999999999999999999d', 1e308, '-18251d'];

/** Each time or duration key of a scenario, with values past its limit, and the range its error must name. */
const SCENARIO_FIELDS: [
  key: string,
  scenario: (v: unknown) => Record<string, unknown>,
  values: unknown[],
  range: RegExp,
][] = [
  ['clock.offset', (v) => ({ clock: { offset: v } }), [...HUGE, '50001d'], /from -50 years to 50 years/],
  ['clock.maxDrift', (v) => ({ clock: { maxDrift: v } }), [...HUGE, '8d', -1], /from 0 to 7 days/],
  [
    'clock.frozenAt',
    (v) => ({ clock: { frozenAt: v } }),
    [8.64e15, -8.64e15, -1, 1e300, LATEST + 1],
    /1970-01-01T00:00:00Z to 9999-12-31/,
  ],
  ['autoVerify.delay', (v) => ({ autoVerify: { delay: v } }), [...HUGE, '25h', -5], /from 0 to 1 day/],
  ['rules[0].delay', (v) => ({ rules: [{ delay: v }] }), [...HUGE, '11m', -1], /from 0 to 10 minutes/],
  [
    'rules[0].delay.max',
    (v) => ({ rules: [{ delay: { min: 0, max: v } }] }),
    [...HUGE, '601s'],
    /from 0 to 10 minutes/,
  ],
  [
    'rules[0].hangFor',
    (v) => ({ rules: [{ fault: 'hang', hangFor: v }] }),
    [...HUGE, '601000', '11m'],
    /from 0 to 10 minutes|not a duration/,
  ],
];

describe('times and durations are bounded where they enter', async () => {
  const sim = await simulator();

  for (const [key, scenario, values, range] of SCENARIO_FIELDS) {
    it(`${key}: a value past its limit is refused with the key and the range, and the simulator keeps serving`, async () => {
      for (const v of values) {
        const r = await control(sim, 'POST', '/__sim/scenario', { name: 'edge', ...scenario(v) });
        expect(r.status, `${key} = ${String(v)}: ${r.text}`).toBe(400);
        expect(r.json.error as string).toContain(key);
        expect(r.json.error as string, String(v)).toMatch(range);
        // Nothing was half applied: the world still answers, and the control API still reads as JSON.
        await expectStillServes(sim);
        const challenges = await control(sim, 'GET', '/__sim/challenges');
        expect(challenges.status).toBe(200);
        expect(Array.isArray(challenges.json)).toBe(true);
      }
    });
  }

  it('clock.frozenAt with clock.offset added may not start the clock outside its range', async () => {
    const r = await control(sim, 'POST', '/__sim/scenario', {
      name: 'edge',
      clock: { frozenAt: '9999-12-31T00:00:00Z', offset: '2d' },
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/clock\.frozenAt: with clock\.offset added, the clock would start outside its range/);
  });

  it('the same keys in a scenario file are refused at start with the file, line and key (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-time-'));
    const file = join(dir, 'far.yaml');
    writeFileSync(file, 'name: far\nclock:\n  offset: 1e300\nautoVerify:\n  delay: 1e308\n');
    const r = run(['--scenario', file, '--port', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `${file}:3: clock.offset: \`1e+300\` is out of range: must be from -50 years to 50 years`,
    );
    expect(r.stderr).toContain(`${file}:5: autoVerify.delay: \`1e+308\` is out of range: must be from 0 to 1 day`);
  });
});

describe('the clock never leaves 1970..9999, through the control API or in-process', async () => {
  const sim = await simulator();

  it('advancing again and again stops at the edge with a JSON 400, and every answer keeps a valid time', async () => {
    let refused: Record<string, unknown> | undefined;
    for (let i = 0; i < 400 && !refused; i++) {
      const r = await control(sim, 'POST', '/__sim/clock/advance', { by: '18250d' });
      expect(r.contentType).toMatch(/application\/json/);
      if (r.status === 400) refused = r.json;
      else expect(r.status).toBe(200);
    }
    expect(refused?.error).toMatch(
      /the clock would leave its range: it must stay from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z/,
    );
    expect(sim.simulator.now()).toBeLessThanOrEqual(LATEST);
    // The API still answers, in the envelope, at the simulator's (far) time.
    const e = expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', time: sim.simulator.now() }), 200, 15000);
    expect(Date.parse(e.utctime!)).toBeGreaterThan(Date.UTC(9900, 0, 1));
    sim.reset();
    await expectStillServes(sim);
  });

  it('backwards past 1970 is refused the same way', async () => {
    sim.reset();
    expect((await control(sim, 'POST', '/__sim/clock/advance', { by: '-18250d' })).status).toBe(200);
    const r = await control(sim, 'POST', '/__sim/clock/advance', { by: '-18250d' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/leave its range/);
    expect(sim.simulator.now()).toBeGreaterThanOrEqual(EARLIEST);
    sim.reset();
  });

  it.each([
    ['by', '/__sim/clock/advance', [1e300, '36500d', '99999999999d', '18251d', Number.MAX_VALUE, 'Infinity', '1e400d']],
    [
      'at',
      '/__sim/clock/freeze',
      [8.64e15, -1, 1e300, 'tomorrow', '+275760-09-13T00:00:00.000Z', LATEST + 1, EARLIEST - 1, '10000-01-01'],
    ],
  ])('%s: a value out of range or not a time is a JSON 400 naming the key and the range', async (key, path, values) => {
    sim.reset();
    for (const v of values) {
      const r = await control(sim, 'POST', path, { [key]: v });
      expect(r.status, `${key}=${String(v)}: ${r.text}`).toBe(400);
      expect(r.json.error as string).toMatch(new RegExp(`^${key}: `));
      expect(r.json.error as string).toMatch(/out of range: must be|is not a duration|is not an instant/);
    }
    await expectStillServes(sim);
  });

  it("a challenge made in the clock's last hour ends at its last instant: shown so, and reached by the clock", async () => {
    sim.reset();
    sim.simulator.freeze(LATEST - 1000);
    for (const [i, expiry] of ['SixtyMins', 'ThreeMins'].entries()) {
      const made = await send(sim, '/v1/svc/challenge', {
        body: challengeEnvelope(sim.apiUser.id, { challengeExpiry: expiry, enableAutoVerify: true }),
        time: LATEST - 1000 - i,
      });
      expectEnvelope(made, 202, 2025);
    }
    const shown = (await control(sim, 'GET', '/__sim/challenges')).json as unknown as {
      state: string;
      expiresAt: string;
    }[];
    expect(shown.map((c) => [c.state, c.expiresAt])).toEqual([
      ['waiting', '9999-12-31T23:59:59.999Z'],
      ['waiting', '9999-12-31T23:59:59.999Z'],
    ]);
    // The clock can go as far as that instant, and there they end (a later expiry could never be reached).
    sim.simulator.advance(1000);
    expect(sim.simulator.challenges().map((c) => c.state)).toEqual(['expired', 'expired']);
    sim.reset();
  });

  it('a date not in the calendar is not an instant (the engine would roll it over into the next month)', async () => {
    sim.reset();
    for (const at of ['2030-02-30T00:00:00Z', '2030-02-29', '2030-04-31T10:00Z', '2031-06-31T00:00:00+02:00']) {
      const r = await control(sim, 'POST', '/__sim/clock/freeze', { at });
      expect([r.status, r.json.error], at).toEqual([
        400,
        `at: \`${at}\` is not an instant (ISO 8601 such as 2026-01-01T00:00:00Z, or epoch milliseconds)`,
      ]);
    }
    // The last day of each month, and a leap day in a leap year, are dates.
    for (const at of ['2032-02-29T12:00:00Z', '2030-04-30', '2030-12-31T23:59:59.999Z'])
      expect((await control(sim, 'POST', '/__sim/clock/freeze', { at })).json.iso, at).toBe(new Date(at).toISOString());
    // A scenario's frozenAt is read the same way.
    expect(() => sim.loadScenario({ name: 'x', clock: { frozenAt: '2030-02-30T00:00:00Z' } })).toThrow(
      /is not an instant/,
    );
    sim.reset();
  });

  it('in-process methods refuse the same with a ControlError of status 400', () => {
    expect(() => sim.advance('36500d')).toThrow(/out of range/);
    expect(() => sim.freeze(8.64e15)).toThrow(/out of range/);
    try {
      sim.advance(Number.POSITIVE_INFINITY);
    } catch (e) {
      expect((e as { status?: number }).status).toBe(400);
    }
    expect(sim.freeze('9999-12-31T23:59:59.999Z')).toBe(LATEST);
    expect(() => sim.advance(1)).toThrow(/leave its range/);
    sim.reset();
  });

  it('a challenge made at the far end of the range is listed with valid times', async () => {
    sim.freeze('9999-12-31T23:59:00Z');
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id), time: sim.simulator.now() }),
      202,
      2025,
    );
    const r = await control(sim, 'GET', '/__sim/challenges');
    expect(r.status).toBe(200);
    const [c] = r.json as unknown as { expiresAt: string }[];
    expect(c.expiresAt).toMatch(/^9999-12-31T23:59:59\.999Z$/);
    sim.reset();
  });
});

describe('the last resort cannot fail', () => {
  it('the -5000 envelope is built for any time, even one no Date can show', () => {
    for (const t of [Number.NaN, Number.POSITIVE_INFINITY, -Number.MAX_VALUE, 8.64e15 + 1, 1e300]) {
      const e = JSON.parse(internalErrorJson('document', 'sim-1', t, 'http://127.0.0.1:1')) as Record<string, unknown>;
      expect(e).toMatchObject({ status: 500, code: -5000, message: 'Internal error' });
      expect(e.utctime).toMatch(/^(1970|9999)-/);
      expect(() => isoTime(t)).not.toThrow();
    }
  });

  it('a control route that fails answers a JSON error, whatever was thrown', async () => {
    const sim = await simulator();
    const throwers: unknown[] = [
      new RangeError('Invalid time value'),
      {
        toString: () => {
          throw new Error('no');
        },
      },
      Symbol('odd'),
      42,
    ];
    for (const thrown of throwers) {
      sim.simulator.challenges = () => {
        throw thrown;
      };
      const r = await control(sim, 'GET', '/__sim/challenges');
      expect(r.status).toBe(500);
      expect(r.contentType).toMatch(/application\/json/);
      expect(r.json).toEqual({ error: 'internal error of the simulator' });
      expect(r.text).not.toMatch(/<html|at .*\.(ts|js)/i);
    }
  });

  it('an API request whose handling throws something odd still gets the -5000 envelope', async () => {
    const sim = await simulator();
    for (const thrown of [
      {
        toString: () => {
          throw new Error('no');
        },
      },
      Symbol('odd'),
      undefined,
    ]) {
      sim.simulator.path.handle = () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a bug might throw, not only Errors
        throw thrown;
      };
      const r = await send(sim, '/v1/svc/time', { method: 'GET' });
      expect(expectEnvelope(r, 500, -5000).message).toBe('Internal error');
    }
  });
});
