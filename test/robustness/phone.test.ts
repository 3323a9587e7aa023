import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/index.js';
import { challengeEnvelope, expectEnvelope, raw, send, simulator } from '../helpers.js';

/**
 * Class: the user's phone answered for a page of another site, or under a name that is not this machine's. The phone
 * pages (`/phone/<id>`, its approve and deny, its QR image) check the Host header and cross-site requests as the
 * control API does: a web page cannot approve a sign-in through the developer's browser, nor read it through DNS
 * rebinding. And a challenge id is a capability only when it cannot be predicted: under a seed, approving and denying
 * need the control token too whenever the control API does (beyond loopback).
 */

async function newChallenge(sim: RunningSimulator): Promise<string> {
  const r = await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) });
  return (JSON.parse(expectEnvelope(r, 202, 2025).message) as { challengeId: string }).challengeId;
}

/** A request to a phone page, with the headers a browser would send. */
function phone(sim: RunningSimulator, method: string, path: string, headers: Record<string, string> = {}) {
  return raw(sim.url, method, path, Object.entries({ host: new URL(sim.url).host, ...headers }));
}

describe('the phone pages belong to this machine and refuse other sites', () => {
  it('a Host naming another machine: 403 for the page, its QR image, approve and deny; nothing changes', async () => {
    const sim = await simulator();
    const id = await newChallenge(sim);
    for (const host of ['evil.example', 'evil.example:80', 'localhost.evil.example', '127.0.0.1.nip.io']) {
      for (const [method, path] of [
        ['GET', `/phone/${id}`],
        ['GET', `/phone/${id}/qr.png`],
        ['POST', `/phone/${id}/approve`],
        ['POST', `/phone/${id}/deny`],
      ]) {
        const r = await phone(sim, method, path, { host });
        expect(r.status, `${method} ${path} ${host}`).toBe(403);
        expect(JSON.parse(r.text).error).toMatch(/--allowed-hosts/);
      }
    }
    expect(sim.challenges()[0].state).toBe('waiting');
    // This machine's names still work.
    for (const host of ['localhost', new URL(sim.url).host])
      expect((await phone(sim, 'GET', `/phone/${id}`, { host })).status).toBe(200);
  });

  it('approve and deny sent by a page of another site: 403; from the phone page itself: done', async () => {
    const sim = await simulator();
    const id = await newChallenge(sim);
    const refused: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ];
    for (const headers of refused) {
      for (const action of ['approve', 'deny']) {
        const r = await phone(sim, 'POST', `/phone/${id}/${action}`, headers);
        expect(r.status, JSON.stringify(headers)).toBe(403);
        expect(JSON.parse(r.text).error).toMatch(/another site/);
      }
    }
    expect(sim.challenges()[0].state).toBe('waiting');
    const done = await phone(sim, 'POST', `/phone/${id}/approve`, { 'sec-fetch-site': 'same-origin', origin: sim.url });
    expect(done.status).toBe(303);
    expect(sim.challenges()[0].state).toBe('approved');
  });

  it('under a seed, beyond loopback, approve and deny need the control token: a predictable id opens nothing', async () => {
    const seeded = await simulator({ seed: 7 });
    // As startSimulator does when listening beyond loopback (the tests listen on loopback only).
    seeded.simulator.secrets.needControlToken();
    const token = seeded.simulator.secrets.controlToken!;
    const tokenHeader = { 'x-sim-control-token': token };
    const id = await newChallenge(seeded);
    for (const action of ['approve', 'deny']) {
      const r = await phone(seeded, 'POST', `/phone/${id}/${action}`);
      expect(r.status).toBe(401);
      expect(JSON.parse(r.text).error).toMatch(/--seed/);
      expect((await phone(seeded, 'POST', `/phone/${id}/${action}`, { 'x-sim-control-token': 'wrong' })).status).toBe(
        401,
      );
    }
    expect(seeded.challenges()[0].state).toBe('waiting');
    // The page itself still shows the challenge; opened with ?token=, its buttons carry it.
    expect((await phone(seeded, 'GET', `/phone/${id}`)).status).toBe(200);
    const page = (await phone(seeded, 'GET', `/phone/${id}?token=${encodeURIComponent(token)}`)).text;
    const action = /action="([^"]*\/approve[^"]*)"/.exec(page)![1].replace(/&amp;/g, '&');
    expect(action).toBe(`/phone/${id}/approve?token=${encodeURIComponent(token)}`);
    expect((await phone(seeded, 'POST', action)).status).toBe(303);
    expect(seeded.challenges()[0].state).toBe('approved');
    const other = await newChallenge(seeded);
    expect((await phone(seeded, 'POST', `/phone/${other}/deny`, tokenHeader)).status).toBe(303);
    expect(seeded.challenges().find((c) => c.id === other)!.state).toBe('denied');
  });

  it('without a seed the id is the capability, beyond loopback too; on loopback a seeded id needs nothing more', async () => {
    const random = await simulator();
    random.simulator.secrets.needControlToken();
    expect((await phone(random, 'POST', `/phone/${await newChallenge(random)}/approve`)).status).toBe(303);
    const local = await simulator({ seed: 7 });
    expect((await phone(local, 'POST', `/phone/${await newChallenge(local)}/approve`)).status).toBe(303);
  });
});
