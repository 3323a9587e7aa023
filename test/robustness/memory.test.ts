import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { signedHeaders, type RunningSimulator } from '../../src/index.js';
import { shippedScenarioNames } from '../../src/scenario/catalog.js';
import { MAX_KEPT_SCENARIO_CHARS, MAX_PICKS } from '../../src/scenario/registry.js';
import { clientTime, simulator } from '../helpers.js';
import { control, expectStillServes, flood as floodOf, keepAlive, type FloodRequest } from './support.js';

/**
 * Class: memory a request can grow. Every memory a request adds to is bounded in bytes, not only in entries
 * (docs/robustness.md, "Memory"), and a request that failed authentication leaves nothing behind but the journal's
 * entry and its count in one row of findings and hints. Each memory is flooded with the largest values a request can
 * put in it, and the heap (with array buffers) measured after a full collection: it stays under the memory's bound,
 * and `reset` gives it back.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 2 ** 20;

/** Bytes the process holds on its heap and in array buffers, after full collections. */
function held(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const agent = keepAlive();
type Request = FloodRequest;
const flood = (sim: RunningSimulator, count: number, make: (i: number) => Request) =>
  floodOf(sim.url, agent, count, make);

/** 1,000 nine-digit API user ids the simulator does not know. */
const unknownId = (i: number) => String(900_000_000 + (i % 1000));
/** A text of `n` characters, different for each `i`. */
const filler = (i: number, n: number) => `${i}-`.padEnd(n, 'x');
const JSON_TYPE: [string, string] = ['content-type', 'application/json'];
const forgedHeaders = (apiUser: string, nonce: string = randomUUID()): [string, string][] => [
  ['x-svc-apiuser', apiUser],
  ['x-svc-utctime', String(Date.now())],
  ['x-svc-cnonce', nonce],
  [
    'authorization',
    `svc-hmac: apiuser=${apiUser},signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=${'0'.repeat(128)}`,
  ],
];

describe('memory a request can grow is bounded in bytes', () => {
  it('forged requests naming 1,000 unknown API users, with 7.9 KB envelope ids, challenge ids and nonces and 15 KB schemes, leave nothing behind', async () => {
    const sim = await simulator({
      journalSize: 16,
      rules: [{ name: 'flaky', when: { headers: { 'x-flaky': '*' } }, fault: 'proxy-502' }],
    });
    await expectStillServes(sim);
    const before = held();
    const codes = await flood(sim, 8000, (i): Request => {
      const apiUser = unknownId(i);
      const big = filler(i, 7900);
      switch (i % 4) {
        case 0:
          return [
            'POST',
            '/v1/svc/challenge',
            [...forgedHeaders(apiUser), JSON_TYPE],
            JSON.stringify({
              id: big,
              apiUser,
              type: 150,
              body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
            }),
          ];
        case 1:
          return [
            'POST',
            '/v1/svc/status',
            [...forgedHeaders(apiUser), JSON_TYPE],
            JSON.stringify({ id: 'poll', apiUser, type: 171, body: { svcUser: 'user@example.com', challengeId: big } }),
          ];
        case 2:
          return ['GET', '/v1/svc/time', [...forgedHeaders(apiUser, big), ['x-flaky', '1']]];
        default:
          return [
            'GET',
            '/v1/svc/time',
            [
              ['x-svc-apiuser', apiUser],
              ['authorization', `${filler(i, 15_000).replace(/-/g, 'a')}-hmac: apiuser=${apiUser}`],
            ],
          ];
      }
    });
    expect(Object.fromEntries(codes)).toEqual({ [-1001]: 4000, 502: 2000, [-4001]: 2000 });
    const grown = held() - before;
    expect(grown / MiB, 'MiB held after the flood').toBeLessThan(4);
    await expectStillServes(sim);
  }, 120_000);

  it("a signed client's envelope ids and a known API user's failed nonces are kept as hashes: 7.9 KB values cost no more than short ones", async () => {
    const sim = await simulator({
      journalSize: 16,
      rules: [{ name: 'flaky', when: { headers: { 'x-flaky': '*' } }, fault: 'proxy-502' }],
    });
    await expectStillServes(sim);
    const before = held();
    const signed = (nonce: string = randomUUID()) =>
      Object.entries(
        signedHeaders({ apiUser: sim.apiUser.id, secret: sim.apiUser.secret, time: clientTime(sim), nonce }),
      );
    const codes = await flood(sim, 6000, (i): Request => {
      if (i % 2 === 0)
        return [
          'POST',
          '/v1/svc/challenge',
          [...signed(), JSON_TYPE],
          JSON.stringify({
            id: filler(i, 7900),
            apiUser: sim.apiUser.id,
            type: 150,
            body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern' },
          }),
        ];
      return ['GET', '/v1/svc/time', [...forgedHeaders(sim.apiUser.id, filler(i, 7900)), ['x-flaky', '1']]];
    });
    expect(Object.fromEntries(codes)).toEqual({ [-5075]: 3000, 502: 3000 });
    // 47 MB of ids and nonces were sent; what is held is the hashes, the first uses and the replay memory.
    expect((held() - before) / MiB, 'MiB held after the flood').toBeLessThan(4);
  }, 120_000);

  it('the journal keeps at most 100 headers of a request: 1,000 entries of a full 16 KiB header block stay under 64 KiB each', async () => {
    const sim = await simulator();
    await expectStillServes(sim);
    const before = held();
    // As many headers as Node reads in 16 KiB: 1,900 of them, each a few bytes.
    const many: [string, string][] = Array.from({ length: 1900 }, (_, i) => [`h${i}`, 'v']);
    const codes = await flood(sim, 1000, (i): Request => [
      'POST',
      '/v1/svc/challenge',
      [...many, JSON_TYPE],
      JSON.stringify({ pad: 'é'.repeat(8000), i }),
    ]);
    expect(Object.fromEntries(codes)).toEqual({ [-4000]: 1000 });
    expect(sim.journal()).toHaveLength(1000);
    expect(Object.keys(sim.journal()[0].request.headers)).toHaveLength(100);
    expect((held() - before) / MiB, 'MiB held for 1,000 journal entries').toBeLessThan(64);
    sim.reset();
    expect((held() - before) / MiB, 'MiB held after reset').toBeLessThan(2);
  }, 120_000);

  it('a challenge keeps 256 characters of its profile: 2,000 challenges with 60 KB profiles hold under 2 KiB each, every memory of the request together', async () => {
    const sim = await simulator({ journalSize: 16 });
    await expectStillServes(sim);
    const challenge = (i: number): Request => [
      'POST',
      '/v1/svc/challenge',
      [
        ...Object.entries(
          signedHeaders({
            apiUser: sim.apiUser.id,
            secret: sim.apiUser.secret,
            time: clientTime(sim),
            nonce: randomUUID(),
          }),
        ),
        JSON_TYPE,
      ],
      JSON.stringify({
        id: `c-${i}`,
        apiUser: sim.apiUser.id,
        type: 150,
        body: {
          svcUser: 'user@example.com',
          challengeType: 'UserKeyAndPattern',
          enableQRcode: false,
          profile: filler(i, 60_000),
        },
      }),
    ];
    // The first challenges compile the code they run; that is the process's, not the challenges'.
    await flood(sim, 200, challenge);
    sim.reset();
    sim.newRun();
    const before = held();
    const codes = await flood(sim, 2000, challenge);
    expect(Object.fromEntries(codes)).toEqual({ 2025: 2000 });
    expect(sim.challenges()).toHaveLength(2000);
    expect((held() - before) / MiB, 'MiB held for 2,000 challenges').toBeLessThan(4);
    // A reset frees the scenario's memories (the challenges); the run's findings still follow which were left open.
    sim.reset();
    expect(sim.challenges()).toHaveLength(0);
    expect((held() - before) / MiB, 'MiB held after reset').toBeLessThan(2);
    sim.newRun();
    expect((held() - before) / MiB, 'MiB held after a new run').toBeLessThan(1);
  }, 120_000);

  it(`scenarios picked by header are kept ${MAX_PICKS} at most, whatever the bindings and names they are picked under`, async () => {
    const sim = await simulator({ journalSize: 16 });
    const given = Array.from({ length: 40 }, (_, i) => `given-${i}`);
    for (const name of given)
      sim.bindScenario('999999999', {
        name,
        rules: Array.from({ length: 20 }, (_, k) => ({
          name: `r${k}`,
          when: { headers: { [`x-r${k}`]: '*' } },
          respond: { code: -5000 },
        })),
      });
    const bound = Array.from({ length: 100 }, (_, i) => String(100_000_000 + i));
    for (const id of bound) sim.bindScenario(id, { name: `bound-${id}` });
    const names = [...shippedScenarioNames().filter((n) => !['flaky-network', 'server-errors'].includes(n)), ...given];
    const before = held();
    await flood(sim, bound.length * names.length, (i): Request => [
      'GET',
      '/v1/svc/time',
      [
        ['x-svc-apiuser', bound[i % bound.length]],
        ['x-sim-scenario', names[Math.floor(i / bound.length)]],
      ],
    ]);
    expect(sim.simulator.sizes().picks).toBe(MAX_PICKS);
    expect((held() - before) / MiB, 'MiB held for the picks').toBeLessThan(4);
    sim.reset();
    expect(sim.simulator.sizes().picks).toBe(0);
  }, 120_000);

  it(`scenarios kept besides the active one hold at most ${MAX_KEPT_SCENARIO_CHARS / MiB} MiB of scenario text: a binding past it is refused`, async () => {
    const sim = await simulator({ journalSize: 16 });
    const before = held();
    /** About 280 KB of scenario text: 8,000 API users, each with its HMAC key. */
    const large = (n: number) => ({
      name: `large-${n}`,
      apiUsers: Array.from({ length: 8000 }, (_, i) => ({ id: String(100_000_000 + i), secret: `secret-${n}-${i}` })),
    });
    const statuses: number[] = [];
    for (let n = 0; n < 10; n++)
      statuses.push((await control(sim, 'PUT', `/__sim/bindings/${200_000_000 + n}`, large(n))).status);
    const kept = statuses.filter((s) => s === 200).length;
    expect(kept * JSON.stringify(large(0)).length).toBeLessThanOrEqual(MAX_KEPT_SCENARIO_CHARS);
    expect(statuses.slice(kept)).toEqual(statuses.slice(kept).map(() => 400));
    const refused = await control(sim, 'PUT', '/__sim/bindings/299999999', large(99));
    expect(refused.json.error).toMatch(/would hold more than 2 MiB of scenario text: end a binding first/);
    // Given one after another to one API user, the older ones are let go.
    for (let n = 10; n < 20; n++)
      expect((await control(sim, 'PUT', '/__sim/bindings/200000000', large(n))).status).toBe(200);
    expect((held() - before) / MiB, 'MiB held for the kept scenarios').toBeLessThan(80);
    await expectStillServes(sim);
  }, 120_000);
});
