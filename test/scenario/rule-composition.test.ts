import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, ScenarioError, signedHeaders, type RunningSimulator } from '../../src/index.js';
import { compileOrThrow } from '../../src/scenario/load.js';
import { pickRule, running } from '../../src/scenario/rules.js';
import { challengeEnvelope, expectEnvelope, send, withSimulator, type SendOptions } from '../helpers.js';

/**
 * How rules compose (docs/scenarios.md, "When several rules match"): a rule that only delays, or only garbles the
 * answer (truncate, garbage), applies together with the rule that decides the answer, before or after it in the
 * list; among the rules that decide, the first that applies wins, and one that an earlier rule always beats is
 * refused at load with its file, line and key.
 */

const SECRET = 'composition-secret';
const DELAY_MS = 250;

const withSim = <T>(rules: unknown[], fn: (sim: RunningSimulator) => Promise<T>): Promise<T> =>
  withSimulator({ name: 'composition', secret: SECRET, rules } as never, fn);

const as = (sim: RunningSimulator) => ({ apiUser: sim.apiUser.id, secret: SECRET });
const challenge = (sim: RunningSimulator, opts: SendOptions = {}) =>
  send(sim, '/v1/svc/challenge', { as: as(sim), body: challengeEnvelope(sim.apiUser.id), ...opts });
const time = (sim: RunningSimulator) => send(sim, '/v1/svc/time', { method: 'GET', as: as(sim) });
/**
 * The journal oldest first: the code, the rules that applied, and whether the answer waited the delay (asserted only
 * where it must have: how fast an undelayed answer is belongs to the benchmark). Node's timers count whole
 * milliseconds of the event loop's clock, so a delay can end up to a millisecond before its length on the
 * high-resolution clock the latency is measured by: a wait of DELAY_MS - 1 or more is the delay.
 */
const journal = (sim: RunningSimulator) =>
  sim
    .journal()
    .reverse()
    .map((e) => ({ code: e.code, rule: e.rule, delayed: e.latencyMs >= DELAY_MS - 1 }));

const slow = { name: 'slow challenges', when: { endpoint: 'challenge' }, delay: `${DELAY_MS}ms` };
const third = { name: 'third fails', when: { endpoint: 'challenge' }, after: 2, times: 1, respond: { code: -5000 } };

describe('a rule that only delays composes with the rule that decides', () => {
  const expected = (label: string) => [
    { code: 2025, rule: 'slow challenges', delayed: true },
    { code: 2025, rule: 'slow challenges', delayed: true },
    { code: -5000, rule: label, delayed: true },
    { code: 2025, rule: 'slow challenges', delayed: true },
    { code: 15000, rule: undefined, delayed: expect.any(Boolean) },
  ];

  it('the delay first: every challenge is slow, and the third also fails', () =>
    withSim([slow, third], async (sim) => {
      for (let i = 0; i < 4; i++) await challenge(sim);
      expectEnvelope(await time(sim), 200, 15000);
      expect(journal(sim)).toEqual(expected('slow challenges + third fails'));
    }));

  it('the delay last: the same', () =>
    withSim([third, slow], async (sim) => {
      for (let i = 0; i < 4; i++) await challenge(sim);
      expectEnvelope(await time(sim), 200, 15000);
      expect(journal(sim)).toEqual(expected('third fails + slow challenges'));
    }));

  it('delays add up, a decider with a delay of its own included', () =>
    withSim(
      [
        { delay: `${DELAY_MS / 2}ms` },
        { when: { endpoint: 'time' }, delay: `${DELAY_MS / 2}ms`, respond: { code: -5000 } },
      ],
      async (sim) => {
        expectEnvelope(await time(sim), 500, -5000);
        expect(journal(sim)).toEqual([{ code: -5000, rule: 'rule 1 + rule 2', delayed: true }]);
        expectEnvelope(await challenge(sim), 202, 2025);
        expect(journal(sim)[1]).toEqual({ code: 2025, rule: 'rule 1', delayed: expect.any(Boolean) });
      },
    ));

  it('a delay counts every request it matches, whatever decides it', () =>
    withSim(
      [
        { name: 'fails', when: { endpoint: 'time' }, respond: { code: -5000 } },
        { name: 'every 2nd slow', every: 2, delay: `${DELAY_MS}ms` },
      ],
      async (sim) => {
        for (let i = 0; i < 4; i++) await time(sim);
        expect(journal(sim).map((e) => e.rule)).toEqual([
          'fails',
          'fails + every 2nd slow',
          'fails',
          'fails + every 2nd slow',
        ]);
      },
    ));
});

describe('a fault that still answers composes with the rule that decides', () => {
  const wire = (sim: RunningSimulator) =>
    new Promise<{ status: number; body: string }>((resolve) => {
      const req = request(`${sim.url}/v1/svc/time`, { method: 'GET', headers: signed(sim) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', () => resolve({ status: 0, body: '' }));
      req.end();
    });

  it('garbage over a forced -5000: the status of -5000, a body that is not JSON; in either order', async () => {
    for (const rules of [
      [{ fault: 'garbage' }, { respond: { code: -5000 } }],
      [{ respond: { code: -5000 } }, { fault: 'garbage' }],
    ]) {
      await withSim(rules, async (sim) => {
        const r = await wire(sim);
        expect(r.status).toBe(500);
        expect(() => JSON.parse(r.body)).toThrow();
        const [entry] = sim.journal();
        expect(entry).toMatchObject({ code: -5000, fault: 'garbage' });
      });
    }
  });

  it('a fault that keeps the request from the service decides over one that garbles', () =>
    withSim([{ fault: 'garbage' }, { fault: 'proxy-503' }], async (sim) => {
      const r = await wire(sim);
      expect(r.status).toBe(503);
      expect(r.body).toContain('503 Service Temporarily Unavailable');
      expect(sim.journal()[0]).toMatchObject({ fault: 'proxy-503', rule: 'rule 1 + rule 2' });
    }));
});

function signed(sim: RunningSimulator): Record<string, string> {
  return signedHeaders({ apiUser: sim.apiUser.id, secret: SECRET, time: sim.simulator.now() });
}

describe('the rule the request path is handed: the rules that apply, as one', () => {
  const subject = { endpointByPath: 'time' as const, header: () => undefined, peek: {}, operation: 'time' as const };
  const pick = (rules: unknown[]) => pickRule(running(compileOrThrow({ name: 'p', rules }, 'p')), subject as never);

  it('delays add up, ranges as ranges, to ten minutes at most', () => {
    expect(
      pick([
        { delay: { min: '100ms', max: '300ms' } },
        { delay: { min: '50ms', max: '60ms' }, respond: { code: -5000 } },
      ]),
    ).toMatchObject({ label: 'rule 1 + rule 2', delay: { min: 150, max: 360 }, respond: { code: -5000 } });
    expect(pick([{ delay: '10m' }, { delay: { min: '9m', max: '10m' } }])!.delay).toEqual({
      min: 600_000,
      max: 600_000,
    });
  });

  it('with no rule that decides: the delay and the garbling, and no code', () => {
    const rule = pick([{ delay: '1s' }, { fault: 'garbage' }, { fault: 'truncate' }])!;
    expect(rule).toMatchObject({
      label: 'rule 1 + rule 2 + rule 3',
      delay: { min: 1000, max: 1000 },
      fault: 'garbage',
    });
    expect(rule.respond).toBeUndefined();
  });

  it('one rule alone is itself; none, nothing', () => {
    expect(pick([{ respond: { code: -5000 }, fault: 'truncate' }])).toMatchObject({
      label: 'rule 1',
      respond: { code: -5000 },
      fault: 'truncate',
    });
    expect(pick([{ when: { endpoint: 'challenge' }, respond: { code: -5000 } }])).toBeUndefined();
  });
});

describe('a rule that an earlier one always beats is refused at load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-composition-'));
  const refusal = (text: string) => {
    const file = join(dir, 'shadow.yaml');
    writeFileSync(file, text);
    try {
      loadScenarioFile(file);
    } catch (e) {
      expect(e).toBeInstanceOf(ScenarioError);
      return (e as Error).message.replace(file, 'shadow.yaml');
    }
    return 'accepted';
  };

  it('with the file, the line and the key of the rule that can never fire', () => {
    const text = [
      'name: shadow',
      'rules:',
      '  - name: time is down',
      '    when: { endpoint: time }',
      '    respond: { code: -5000 }',
      '  - when: { endpoint: time, headers: { x-case: drift } }',
      '    respond: { code: -4036 }',
    ].join('\n');
    expect(refusal(text)).toBe(
      'shadow.yaml:6: rules[1]: impossible: rules[0] ("time is down") before it decides every request this rule matches (it has no after, times or every): put this rule first, or narrow that one\'s when',
    );
  });

  it('each shape of "always beats": no when at all, the same user glob, a fault that never reaches the service, the same header', () => {
    expect(
      refusal(
        'name: s\nrules:\n  - when: { headers: { X-Case: drift } }\n    respond: { code: -4036 }\n  - when: { endpoint: time, headers: { x-case: drift } }\n    respond: { code: -5000 }\n',
      ),
    ).toMatch(/^shadow\.yaml:5: rules\[1\]/);
    expect(
      refusal(
        'name: s\nrules:\n  - respond: { code: -5000 }\n  - when: { endpoint: challenge }\n    respond: { code: -2006 }\n',
      ),
    ).toMatch(/^shadow\.yaml:4: rules\[1\]: impossible: rules\[0\] before/);
    expect(
      refusal(
        'name: s\nrules:\n  - when: { svcUser: "*@X.example" }\n    respond: { code: -2007 }\n  - when: { svcUser: "*@x.example", endpoint: challenge }\n    respond: { code: -2006 }\n',
      ),
    ).toMatch(/^shadow\.yaml:5: rules\[1\]/);
    expect(
      refusal(
        'name: s\nrules:\n  - when: { svcUser: "*" }\n    fault: reset\n  - when: { svcUser: "a@x.example" }\n    fault: hang\n',
      ),
    ).toMatch(/^shadow\.yaml:5: rules\[1\]/);
  });

  it('not when the earlier one lets requests through, matches less, or only delays; nor a delay after one that decides', () => {
    const accepted = [
      'name: s\nrules:\n  - after: 1\n    respond: { code: -5000 }\n  - respond: { code: -2006 }\n',
      'name: s\nrules:\n  - times: 1\n    respond: { code: -5000 }\n  - respond: { code: -2006 }\n',
      'name: s\nrules:\n  - every: 2\n    respond: { code: -5000 }\n  - respond: { code: -2006 }\n',
      'name: s\nrules:\n  - when: { endpoint: time }\n    respond: { code: -5000 }\n  - respond: { code: -2006 }\n',
      'name: s\nrules:\n  - when: { svcUser: "a@x.example" }\n    respond: { code: -2007 }\n  - when: { svcUser: "*@x.example" }\n    respond: { code: -2006 }\n',
      'name: s\nrules:\n  - when: { headers: { x-a: "1" } }\n    respond: { code: -5000 }\n  - when: { headers: { x-a: "2" } }\n    respond: { code: -5000 }\n',
      // -2035 exists for cancels only: a later rule matching every operation, or more operations, is not covered.
      'name: s\nrules:\n  - respond: { code: -2035 }\n  - fault: reset\n',
      'name: s\nrules:\n  - respond: { code: -2035 }\n  - respond: { code: -2006 }\n',
      'name: s\nrules:\n  - when: { headers: { x-a: "1" } }\n    respond: { code: -5000 }\n  - respond: { code: -5000 }\n',
      'name: s\nrules:\n  - delay: 1s\n  - respond: { code: -5000 }\n',
      'name: s\nrules:\n  - respond: { code: -5000 }\n  - delay: 1s\n  - fault: garbage\n',
    ];
    for (const text of accepted) expect(refusal(text), text).toBe('accepted');
  });
});
