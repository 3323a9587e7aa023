import type { Answered } from '../observers/answered.js';
import { RecentMap } from '../world/recent-map.js';
import type { Hint } from './hint.js';

/**
 * Which request first used a nonce or a time, so that a -4034 or -4035 can say when and by which request (the replay
 * memory keeps only hashes, as small as it can). Bounded: the most recent uses, by default 10,000; an older first use
 * is still refused by the replay memory, only without the story.
 */

/** A request that used a nonce or time first, and how it was answered. */
export interface FirstUse {
  seq: number;
  /** Simulator time of the request (ms). */
  at: number;
  /** This machine's monotonic time when it arrived (ms), to tell requests sent together from a replay. */
  arrived: number;
  http?: number;
  code?: number;
  fault?: string;
}

export const FIRST_USES_KEPT = 10_000;

export class FirstUses {
  private readonly uses: RecentMap<string, FirstUse>;
  /** The uses of the request being answered, settled when its answer is known. */
  private pending?: FirstUse;

  constructor(kept = FIRST_USES_KEPT) {
    this.uses = new RecentMap(kept);
  }

  /** A request was accepted by the replay checks: it is the first use of its nonce and time. */
  note(apiUser: string, nonce: string | undefined, time: number, use: FirstUse): void {
    if (nonce !== undefined) this.uses.set(`${apiUser}\0n${nonce}`, use);
    this.uses.set(`${apiUser}\0t${time}`, use);
    this.pending = use;
  }

  /** A forced error took back what the request stored: it used nothing. */
  forget(apiUser: string, nonce: string | undefined, time: number): void {
    if (nonce !== undefined) this.uses.delete(`${apiUser}\0n${nonce}`);
    this.uses.delete(`${apiUser}\0t${time}`);
  }

  ofNonce(apiUser: string, nonce: string): FirstUse | undefined {
    return this.uses.get(`${apiUser}\0n${nonce}`);
  }

  ofTime(apiUser: string, time: number): FirstUse | undefined {
    return this.uses.get(`${apiUser}\0t${time}`);
  }

  /** An observer of "answered": the answer of the request whose uses were just noted. */
  settle({ record }: Answered): void {
    const use = this.pending;
    if (use?.seq !== record.seq) return;
    use.http = record.http;
    use.code = record.code;
    use.fault = record.fault;
    this.pending = undefined;
  }

  clear(): void {
    this.uses.clear();
    this.pending = undefined;
  }
}

/** A failure of the network or of the server: a client retries such a request, and must sign the retry again. */
export function failedInTransit(use: { http?: number; fault?: string }): boolean {
  return use.fault !== undefined || (use.http !== undefined && use.http >= 500);
}

/** The answer a first use got (once it has one). */
function outcomeOf(use: FirstUse): string {
  return use.fault !== undefined ? `a network fault (${use.fault})` : `HTTP ${use.http} (${use.code})`;
}

const clockOf = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/** -4034: when and by which request the nonce was first used, and what to do. */
export function nonceReuseHint(first: FirstUse | undefined): Hint {
  if (!first) return { id: 'nonce-reused', text: 'an earlier accepted request used this nonce: make a new nonce (a UUID) for every request' };
  if (failedInTransit(first)) {
    return {
      id: 'retry-not-resigned',
      text: `request ${first.seq} used this nonce and got ${outcomeOf(first)}: a retry must be signed again, with a new nonce and time`,
    };
  }
  const answered = first.code === undefined && first.fault === undefined ? 'not answered yet' : `answered ${outcomeOf(first)}`;
  return { id: 'nonce-reused', text: `request ${first.seq} used this nonce first (at ${clockOf(first.at)}, ${answered}): make a new nonce for every request` };
}

/** -4035: the request that used the time first; whether the two were sent together (the same millisecond) or this is a replay. */
export function timeReuseHint(first: FirstUse | undefined, arrived: number): Hint {
  if (!first) return { id: 'time-reused', text: 'an earlier accepted request was signed with this time: sign every request with the time it is sent' };
  const apart = arrived - first.arrived;
  if (apart < 1000) {
    return {
      id: 'same-millisecond',
      text: `request ${first.seq} was signed in the same millisecond: two requests signed in one millisecond collide; give each its own time (keep the last time used and add 1 ms)`,
    };
  }
  return { id: 'time-reused', text: `request ${first.seq} was signed with this time ${Math.round(apart / 1000)} s earlier: sign every request, retries included, with the time it is sent` };
}
