import { randomUUID } from 'node:crypto';
import { expect, inject } from 'vitest';
import { signedHeaders } from '../../src/index.js';

export const TEAMS = {
  a: { apiUser: '111111111', secret: 'team-a-secret' },
  b: { apiUser: '222222222', secret: 'team-b-secret' },
} as const;

export const url = () => inject('simUrl');

let last = 0;

/** A signed request as the team's client sends it; answers `{ status, code, message }`. */
export async function call(team: keyof typeof TEAMS, path: string, body?: unknown) {
  const who = TEAMS[team];
  last = Math.max(Date.now(), last + 1);
  const headers = { ...signedHeaders({ apiUser: who.apiUser, secret: who.secret, time: last, nonce: randomUUID() }), 'content-type': 'application/json' };
  const r = await fetch(`${url()}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const e = (await r.json()) as { code: number; message: string };
  return { status: r.status, code: e.code, message: e.message };
}

export function newChallenge(team: keyof typeof TEAMS) {
  const apiUser = TEAMS[team].apiUser;
  return call(team, '/v1/svc/challenge', { apiUser, type: 150, body: { svcUser: `${team}@example.com`, challengeType: 'UserKeyAndPattern', enableQRcode: false } });
}

export async function control(method: string, path: string, body?: unknown) {
  const r = await fetch(`${url()}/__sim/${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return r.json() as Promise<Record<string, unknown> & unknown[]>;
}

/** Waits until both teams have bound their scenario, so that their requests really run at the same time. */
export async function bothBound() {
  for (let i = 0; i < 200; i++) {
    const s = (await control('GET', 'scenarios')) as unknown as { bindings: Record<string, string> };
    if (Object.keys(s.bindings).length === 2) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the other team never bound its scenario');
}

/** Journal entries of one API user. */
export async function journalOf(team: keyof typeof TEAMS) {
  return (await control('GET', `journal?apiUser=${TEAMS[team].apiUser}`)) as unknown as { seq: number; code: number; rule?: string; scenario: string }[];
}

/**
 * Checks a team's journal: every request ran under its own scenario and none was decided by the other team's
 * rules; and the two files really ran at the same time (the other team's requests sit between this team's
 * first and last).
 */
export async function expectIsolated(team: keyof typeof TEAMS, scenario: string, otherRulePrefix: string) {
  const other = team === 'a' ? 'b' : 'a';
  const mine = await journalOf(team);
  expect(mine.every((e) => e.scenario === scenario)).toBe(true);
  expect(mine.some((e) => e.rule?.startsWith(otherRulePrefix))).toBe(false);
  for (let i = 0; i < 200 && (await journalOf(other)).length < 80; i++) await new Promise((r) => setTimeout(r, 25));
  const seqs = mine.map((e) => e.seq);
  const theirs = (await journalOf(other)).map((e) => e.seq);
  expect(theirs.some((s) => s > Math.min(...seqs) && s < Math.max(...seqs))).toBe(true);
}
