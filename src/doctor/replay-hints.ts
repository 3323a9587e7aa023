import type { FirstUse } from '../auth/replay.js';
import type { Hint } from './doctor.js';

/** A failure of the network or of the server: a client retries such a request, and must sign the retry again. */
export function failedInTransit(use: { http?: number; fault?: string }): boolean {
  return use.fault !== undefined || (use.http !== undefined && use.http >= 500);
}

function outcomeOf(use: FirstUse): string {
  return use.fault !== undefined ? `a network fault (${use.fault})` : `HTTP ${use.http} (${use.code})`;
}

/** -4034: when and by which request the nonce was first used, and what to do. */
export function nonceReuseHint(first: FirstUse): Hint {
  if (failedInTransit(first)) {
    return {
      id: 'retry-not-resigned',
      text: `request ${first.seq} used this nonce and got ${outcomeOf(first)}: a retry must be signed again, with a new nonce and time`,
    };
  }
  return {
    id: 'nonce-reused',
    text: `request ${first.seq} used this nonce first (at ${new Date(first.at).toISOString().slice(11, 23)}, answered ${outcomeOf(first)}): make a new nonce for every request`,
  };
}

/** -4035: the request that used the time first, and whether the two were sent together or this is a replay. */
export function timeReuseHint(first: FirstUse, arrived: number): Hint {
  const apart = arrived - first.arrived;
  if (apart < 1000) {
    return {
      id: 'same-millisecond',
      text: `request ${first.seq} was signed in the same millisecond: two requests signed in one millisecond collide; give each its own time (keep the last time used and add 1 ms)`,
    };
  }
  return {
    id: 'time-reused',
    text: `request ${first.seq} was signed with this time ${Math.round(apart / 1000)} s earlier: sign every request, retries included, with the time it is sent`,
  };
}
