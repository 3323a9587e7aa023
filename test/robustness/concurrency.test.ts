import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/index.js';
import { challengeEnvelope, clientTime, raw, simulator, type Sent } from '../helpers.js';
import { expectServiceAnswer, expectStillServes } from './support.js';

type Kind = 'valid' | 'replayed' | 'same-time' | 'forged' | 'time';
interface Planned {
  kind: Kind;
  group: number;
  method: string;
  path: string;
  headers: [string, string][];
  body?: string;
}

/**
 * Hundreds of requests at once, mixing valid ones, replays (the same signed request several times), requests
 * signed in the same millisecond, and forgeries (a wrong signature over a real request's nonce and time).
 * Exactly one of each replayed group wins; the journal, the coverage counts, the challenge store and the
 * replay memory agree with what the clients were answered.
 */
describe('concurrency', async () => {
  const sim = await simulator({ journalSize: 5000 });
  const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };

  function plan(): Planned[] {
    const out: Planned[] = [];
    const challenge = (kind: Kind, group: number, time: number, nonce: string, secret = who.secret): Planned => {
      const body = JSON.stringify(challengeEnvelope(who.apiUser, {}, { id: `${kind}-${group}` }));
      const h = signedHeaders({ apiUser: who.apiUser, secret, time, nonce });
      return {
        kind,
        group,
        method: 'POST',
        path: '/v1/svc/challenge',
        headers: [['content-type', 'application/json'], ...Object.entries(h)],
        body,
      };
    };
    let g = 0;
    // 80 valid requests, each with a forged twin: same nonce and time, wrong signature (it must not burn the real one).
    for (let i = 0; i < 80; i++, g++) {
      const t = clientTime(sim);
      const n = randomUUID();
      out.push(challenge('valid', g, t, n), challenge('forged', g, t, n, 'not-the-secret'));
    }
    // 30 groups of 5 identical signed requests.
    for (let i = 0; i < 30; i++, g++) {
      const p = challenge('replayed', g, clientTime(sim), randomUUID());
      for (let k = 0; k < 5; k++) out.push(p);
    }
    // 20 groups of 3 requests signed in the same millisecond with different nonces.
    for (let i = 0; i < 20; i++, g++) {
      const t = clientTime(sim);
      for (let k = 0; k < 3; k++) out.push(challenge('same-time', g, t, randomUUID()));
    }
    // 40 reads of the time.
    for (let i = 0; i < 40; i++, g++) {
      const h = signedHeaders({ apiUser: who.apiUser, secret: who.secret, time: clientTime(sim), nonce: randomUUID() });
      out.push({ kind: 'time', group: g, method: 'GET', path: '/v1/svc/time', headers: Object.entries(h) });
    }
    // Shuffled, so that replays and forgeries race the requests they copy.
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  it('hundreds at once: one winner per replayed group, forgeries refused, and every record agrees', async () => {
    const requests = plan();
    expect(requests.length).toBe(160 + 150 + 60 + 40);
    const before = sim.simulator.requestJournal.length;
    const answers: Sent[] = await Promise.all(requests.map((p) => raw(sim.url, p.method, p.path, p.headers, p.body)));
    const codes = answers.map((a) => expectServiceAnswer(a).code);

    const byGroup = new Map<number, number[]>();
    requests.forEach((p, i) => byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), codes[i]]));
    for (const [group, got] of byGroup) {
      const kinds = new Set(requests.filter((p) => p.group === group).map((p) => p.kind));
      const sorted = got.slice().sort((a, b) => a - b);
      if (kinds.has('forged')) expect(sorted, `group ${group}`).toEqual([-4037, 2025]);
      else if (kinds.has('replayed')) expect(sorted, `group ${group}`).toEqual([-4034, -4034, -4034, -4034, 2025]);
      else if (kinds.has('same-time')) expect(sorted, `group ${group}`).toEqual([-4035, -4035, 2025]);
      else expect(got).toEqual([15000]);
    }

    // The journal has exactly one entry per request, holding exactly the answer that client got.
    const entries = sim.simulator.requestJournal.entries().slice(0, requests.length);
    expect(sim.simulator.requestJournal.length - before).toBe(requests.length);
    expect(entries.map((e) => e.response?.body).sort()).toEqual(answers.map((a) => a.text).sort());

    // Coverage counts are the tally of the answers.
    const tally: Record<string, number> = {};
    for (const c of codes) tally[c] = (tally[c] ?? 0) + 1;
    expect(sim.coverage().counts).toEqual(tally);

    // The challenge store holds exactly the challenges that were answered 2025.
    const issued = answers
      .filter((a) => a.json.code === 2025)
      .map((a) => (JSON.parse(a.json.message) as { challengeId: string }).challengeId);
    expect(issued).toHaveLength(80 + 30 + 20);
    expect(
      sim
        .challenges()
        .map((c) => c.id)
        .sort(),
    ).toEqual(issued.sort());

    // Replay memory remembers a nonce and a time for each accepted request, and nothing for refused ones.
    const accepted = codes.filter((c) => c > 0).length;
    expect(sim.simulator.world.replayStats()[who.apiUser].entries).toBe(2 * accepted);
    await expectStillServes(sim);
  });
});
