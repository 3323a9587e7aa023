import { afterAll, describe, expect, it, vi } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { ClientFindings } from '../../src/run/findings.js';
import { startSimulator } from '../../src/index.js';
import { expectEnvelope, send } from '../helpers.js';

/**
 * An observer of traffic that throws never fails the request it is told of, and never fails silently: the failure is
 * counted under the observer's name, said to whoever listens (the command line logs it), shown in the Markdown and
 * JUnit reports, and makes the verdict 5. (Not the shared test helper's simulator: it asserts that none failed.)
 */
describe('an observer of traffic that fails', async () => {
  const sim = await startSimulator({ secret: 'observer-secret' });
  afterAll(() => sim.close());

  it('coverage that throws: the request is still answered; the failure is counted, told, reported, and the verdict is 5', async () => {
    sim.newRun();
    const told: string[] = [];
    const stop = sim.simulator.run.failures.onFailure((f) => told.push(`${f.observer} ${f.count} ${f.message}`));
    // The run's coverage counter throws for the next answer only (fault injection into its private map).
    const counts = (sim.simulator.run as unknown as { coverage: { counts: Map<number, number> } }).coverage.counts;
    const broken = vi.spyOn(counts, 'set').mockImplementationOnce(() => {
      throw new Error('coverage broke');
    });
    try {
      expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    } finally {
      broken.mockRestore();
      stop();
    }
    expect(sim.observerFailures()).toEqual([
      { observer: 'coverage', count: 1, message: 'coverage broke', firstSeq: 1, lastSeq: 1 },
    ]);
    expect(told).toEqual(['coverage 1 coverage broke']);
    // The gate cannot trust its figures: 5, whatever else holds, with the reason.
    const v = sim.verdict({ required: [15000] });
    expect(v.status).toBe(5);
    expect(v.lines).toEqual([
      "observers: 1 observer of traffic failed, so coverage and findings may be wrong (a bug of mfa-sim's):",
      '  coverage: 1× (#1), last: coverage broke',
    ]);
    const md = sim.report('markdown');
    expect(md).toContain(
      '### Observer failures: the figures below may be wrong\n\n| Observer | Failures | Requests | Last error |\n|---|---:|---|---|\n| coverage | 1 | #1 | coverage broke |',
    );
    const junit = new XMLParser({ ignoreAttributes: false }).parse(sim.report('junit'));
    const suite = junit.testsuites.testsuite.find((s: { '@_name': string }) => s['@_name'] === 'mfa-sim observers');
    expect(suite).toMatchObject({
      '@_failures': '1',
      testcase: { '@_name': 'coverage', failure: { '@_type': 'observer' } },
    });
    expect(junit.testsuites['@_failures']).not.toBe('0');
    // Over HTTP too.
    expect(
      ((await (await fetch(`${sim.url}/__sim/findings`)).json()) as { observerFailures: unknown[] }).observerFailures,
    ).toHaveLength(1);
    expect(((await (await fetch(`${sim.url}/__sim/verdict`)).json()) as { status: number }).status).toBe(5);
    // A new run starts with none.
    sim.newRun();
    expect(sim.observerFailures()).toEqual([]);
    expect(sim.verdict().status).toBe(0);
  });

  it('the findings observer and a journal listener: each recorded under its own name, counted per request', async () => {
    sim.newRun();
    const see = vi.spyOn(ClientFindings.prototype as unknown as { see: () => void }, 'see').mockImplementation(() => {
      throw new Error('findings broke');
    });
    const unsubscribe = sim.simulator.requestJournal.subscribe(
      () => {
        throw new TypeError('listener broke');
      },
      { name: 'my listener' },
    );
    try {
      for (let i = 0; i < 3; i++) expectEnvelope(await send(sim, '/v1/svc/time', { method: 'GET' }), 200, 15000);
    } finally {
      see.mockRestore();
      unsubscribe();
    }
    expect(sim.observerFailures()).toEqual([
      { observer: 'findings', count: 3, message: 'findings broke', firstSeq: 1, lastSeq: 3 },
      { observer: 'my listener', count: 3, message: 'listener broke', firstSeq: 1, lastSeq: 3 },
    ]);
    // The others went on: coverage and the journal saw every request.
    expect(sim.coverage().counts).toEqual({ '15000': 3 });
    expect(sim.journal()).toHaveLength(3);
    sim.newRun();
  });

  it('a failure whose message holds a secret is shown with the secret hidden', async () => {
    sim.newRun();
    const see = vi
      .spyOn(ClientFindings.prototype as unknown as { see: () => void }, 'see')
      .mockImplementationOnce(() => {
        throw new Error(`cannot read ${sim.apiUser.secret}`);
      });
    try {
      await send(sim, '/v1/svc/time', { method: 'GET' });
    } finally {
      see.mockRestore();
    }
    expect(JSON.stringify(sim.observerFailures())).not.toContain(sim.apiUser.secret);
    expect(sim.report('markdown')).not.toContain(sim.apiUser.secret);
    sim.newRun();
  });
});
