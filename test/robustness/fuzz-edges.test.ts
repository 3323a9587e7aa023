import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARLIEST, LATEST } from '../../src/contract/response.js';
import { expectEnvelope, raw, send, simulator } from '../helpers.js';
import {
  expectNoPollution,
  expectServiceAnswer,
  expectStillServes,
  prototypeSnapshot,
  runs,
  signedPairs,
} from './support.js';

/**
 * Property-based fuzzing of the edges the hardening closed: the control API under hostile Host, Origin and
 * Sec-Fetch-Site values, and every time and duration field of a scenario and of the control API with values at
 * and past the edge of the representable.
 */

const before = prototypeSnapshot();

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
/** A name a web page could own: never localhost, never an IP address. */
const foreignName = fc
  .tuple(
    fc.array(label, { minLength: 1, maxLength: 4 }),
    fc.constantFrom('com', 'example', 'io', 'nip.io', 'localhost.com', 'test', 'xn--p1ai'),
  )
  .map(([labels, tld]) => `${labels.join('.')}.${tld}`)
  .filter((n) => !/^[\d.]+$/.test(n) && !n.split('.').every((p) => /^\d+$/.test(p)));
/** A name of this machine: localhost, a subdomain of it, an IP address. */
const localName = fc.oneof(
  fc.constantFrom('localhost', 'LocalHost', 'localhost.', '[::1]', '[::ffff:127.0.0.1]'),
  label.map((l) => `${l}.localhost`),
  fc
    .tuple(
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 1, max: 254 }),
    )
    .map((p) => p.join('.')),
);
const withPort = (name: fc.Arbitrary<string>) =>
  fc
    .tuple(name, fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
    .map(([n, p]) => (p === undefined ? n : `${n}:${p}`));
const origin = fc.option(
  fc.oneof(
    foreignName.map((n) => `http://${n}`),
    fc.constant('null'),
    fc.string({ maxLength: 30 }),
  ),
  { nil: undefined },
);
const fetchSite = fc.option(fc.constantFrom('same-origin', 'same-site', 'cross-site', 'none', 'x'), { nil: undefined });

const CONTROL: [string, string, string?][] = [
  ['GET', '/__sim/scenarios'],
  ['POST', '/__sim/scenario', '{"name":"default","auth":"off"}'],
  ['GET', '/__sim/journal'],
  ['POST', '/__sim/clock/advance', '{"by":"1h"}'],
  ['PUT', '/__sim/bindings/123456789', '{"name":"locked-account"}'],
  ['GET', '/__sim/ui'],
  ['POST', '/__sim/explore', '{"kind":"time"}'],
  ['GET', '/__sim/health'],
];

describe('fuzzing the control API with hostile Host, Origin and Sec-Fetch-Site', async () => {
  const sim = await simulator();

  it(
    'a foreign name never reaches the control plane; a local one is never refused for its name',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.boolean(),
          withPort(foreignName),
          withPort(localName),
          origin,
          fetchSite,
          fc.constantFrom(...CONTROL),
          async (foreign, bad, good, o, site, [method, path, body]) => {
            const headers: [string, string][] = [
              ['Host', foreign ? bad : good],
              ['Content-Type', 'application/json'],
            ];
            if (o !== undefined) headers.push(['Origin', o]);
            if (site !== undefined) headers.push(['Sec-Fetch-Site', site]);
            sim.loadScenario('default');
            const r = await raw(sim.url, method, path, headers, body);
            expect(r.status).toBeLessThan(500);
            expect(r.headers['content-type']).toMatch(/application\/json|text\/html/);
            if (foreign) {
              expect(r.status).toBe(403);
              expect((JSON.parse(r.text) as { error: string }).error).toMatch(/--allowed-hosts/);
            } else if (r.status === 403) {
              // Refused for coming from another site (a browser said so), never for the name.
              expect((JSON.parse(r.text) as { error: string }).error).toMatch(/another site/);
            }
            // A foreign page changed nothing (a local caller may: the control plane is theirs).
            if (foreign) expect(sim.simulator.scenario.auth).toBe('verify');
            expectNoPollution(before);
          },
        ),
        { numRuns: runs(400) },
      );
      sim.loadScenario('default');
      await expectStillServes(sim);
    },
    runs(60_000),
  );
});

/** A time or duration as anything a YAML or JSON author could write there. */
const edgeNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    8.64e15,
    -8.64e15,
    8.64e15 + 1,
    LATEST,
    LATEST + 1,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e308,
    -1e308,
  ),
  fc.integer(),
);
const edgeText = fc.oneof(
  fc
    .tuple(
      fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e30, max: 1e30 })),
      fc.constantFrom('', 'ms', 's', 'm', 'h', 'd', ' d', 'y', 'w'),
    )
    .map(([n, u]) => `${n}${u}`),
  fc.constantFrom(
    'Infinity',
    '-Infinity',
    'NaN',
    '1e308',
    '9'.repeat(400),
    '275760-09-13T00:00:00.000Z',
    '+275760-09-13',
    '9999-12-31T23:59:59.999Z',
    '1970-01-01',
    '0000-01-01',
    '2026-02-30T00:00:00Z',
  ),
  fc.string({ maxLength: 20 }),
);
const edgeValue = fc.oneof(edgeNumber, edgeText, fc.constantFrom(null, true, [], {}));

const TIME_FIELDS: ((v: unknown) => Record<string, unknown>)[] = [
  (v) => ({ clock: { offset: v } }),
  (v) => ({ clock: { maxDrift: v } }),
  (v) => ({ clock: { frozenAt: v } }),
  (v) => ({ clock: { frozenAt: v, offset: v } }),
  (v) => ({ autoVerify: { delay: v } }),
  // Rules apply only to requests that send x-fuzz, so that the request checked afterwards is answered.
  (v) => ({ rules: [{ when: { headers: { 'x-fuzz': 'on' } }, delay: v }] }),
  (v) => ({ rules: [{ when: { headers: { 'x-fuzz': 'on' } }, delay: { min: 0, max: v } }] }),
  (v) => ({ rules: [{ when: { headers: { 'x-fuzz': 'on' } }, fault: 'hang', hangFor: v }] }),
];

describe('fuzzing every time and duration field', async () => {
  const sim = await simulator();

  it(
    'a scenario with any value in any time field is loaded or refused with a 400, and the clock stays in range',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: TIME_FIELDS.length - 1 }), edgeValue, async (field, value) => {
          const r = await fetch(`${sim.url}/__sim/scenario`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'fuzzed', ...TIME_FIELDS[field](value) }),
          });
          expect([200, 400]).toContain(r.status);
          expect(await r.json()).toBeTypeOf('object');
          const now = sim.simulator.now();
          expect(now).toBeGreaterThanOrEqual(EARLIEST);
          expect(now).toBeLessThanOrEqual(LATEST);
          // Signed at whatever time the helper's client clock is at (it never goes back): the answer is an envelope
          // either way, and its utctime is the simulator's clock, inside the range.
          const e = expectServiceAnswer(await raw(sim.url, 'GET', '/v1/svc/time', signedPairs(sim)), 'document');
          expect(Math.abs(Date.parse(e.utctime!) - sim.simulator.now())).toBeLessThan(1000);
          expect(Date.parse(e.utctime!)).toBeGreaterThanOrEqual(EARLIEST);
          expect(Date.parse(e.utctime!)).toBeLessThanOrEqual(LATEST);
          expectNoPollution(before);
        }),
        { numRuns: runs(600) },
      );
    },
    runs(60_000),
  );

  it(
    'any value to clock/advance and clock/freeze is a JSON 200 or 400, and the clock stays in range',
    async () => {
      sim.loadScenario('default');
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(['advance', 'by'], ['freeze', 'at']), edgeValue, async ([op, key], value) => {
          const r = await fetch(`${sim.url}/__sim/clock/${op}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ [key]: value }),
          });
          expect([200, 400]).toContain(r.status);
          const body = (await r.json()) as { iso?: string; error?: string };
          if (r.status === 200) expect(body.iso).toMatch(/^\d{4}-\d{2}-\d{2}T/);
          else expect(body.error).toMatch(new RegExp(`^(${key}: |send )`));
          const now = sim.simulator.now();
          expect(now).toBeGreaterThanOrEqual(EARLIEST);
          expect(now).toBeLessThanOrEqual(LATEST);
        }),
        { numRuns: runs(800) },
      );
      sim.reset();
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET', time: sim.simulator.now() }), 200, 15000);
    },
    runs(60_000),
  );
});
