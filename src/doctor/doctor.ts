import type { Hint } from './hint.js';
import { BoundedMap } from '../world/bounded-map.js';
import { machine } from '../world/clock.js';
import { signatureShape } from './shapes.js';
import { signatureHint, signatureMistake, type SignedRequest } from './signature.js';
import type { FirstUse } from '../auth/replay.js';

export type { Hint };

/** What joins an answer's message and the hint after it. */
export const HINT_JOIN = '. Hint: ';

/** The answer's message with the hint after it: "Signature error. Hint: signed with HMAC-SHA256: ...". */
export function withHint(message: string, hint: Hint | undefined): string {
  return hint ? `${message}${HINT_JOIN}${hint.text}` : message;
}

/** Full diagnoses of a refused signature per second; past it, a refusal is answered NOT_DIAGNOSED. */
export const DIAGNOSES_PER_SECOND = 200;

/** The hint of a -4037 past the budget. */
export const NOT_DIAGNOSED: Hint = Object.freeze({
  id: 'not-diagnosed',
  text: `not diagnosed: more than ${DIAGNOSES_PER_SECOND} signatures were refused this second; this request's journal entry and log line show the string to sign`,
});

/** The nonces of the simulator's own requests remembered (the explorer sends two at most for a click). */
const OWN_NONCES_KEPT = 1000;

/** The client doctor as the request path consults it: the signature doctor within its budget. One per simulator. */
export class Doctor {
  private second = -1;
  private spent = 0;
  /** Nonces the dashboard's explorer signed: its deliberate mistakes are demonstrations, not the client's. */
  private readonly ownNonces = new BoundedMap<string, true>(OWN_NONCES_KEPT);

  /** The simulator is about to send a request of its own signed with this nonce. */
  sendsItself(nonce: string): void {
    this.ownNonces.set(nonce, true);
  }

  /** Whether a request signed with this nonce is one the simulator sent itself. */
  sentItself(nonce: string | undefined): boolean {
    return nonce !== undefined && this.ownNonces.has(nonce);
  }

  /** -4037: the mistake made, or what to sign; past the budget, that it was not diagnosed. */
  refusedSignature(r: SignedRequest, sent: string): Hint {
    return this.afford() ? signatureHint(r, sent) : NOT_DIAGNOSED;
  }

  /** -4027: the mistake behind a digest of another algorithm or encoding (`r`: a known API user's), or its shape. */
  misshapenSignature(sent: string, r: SignedRequest | undefined): Hint | undefined {
    return (r && this.afford() ? signatureMistake(r, sent.trim()) : undefined) ?? signatureShape(sent);
  }

  /** Whether a full diagnosis fits in this second's budget: a flood of forgeries costs a few HMACs a second. */
  private afford(): boolean {
    const second = Math.floor(machine.mono() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.spent = 0;
    }
    return this.spent++ < DIAGNOSES_PER_SECOND;
  }
}

/** A failure of the network or of the server: a client retries such a request, and must sign the retry again. */
export function failedInTransit(use: { http?: number; fault?: string }): boolean {
  return use.fault !== undefined || (use.http !== undefined && use.http >= 500);
}

function outcomeOf(use: FirstUse): string {
  return use.fault !== undefined ? `a network fault (${use.fault})` : `HTTP ${use.http} (${use.code})`;
}

/** -4034: when and by which request the nonce was first used, and what to do. */
export function nonceReuseHint(first: FirstUse): Hint {
  if (failedInTransit(first))
    return {
      id: 'retry-not-resigned',
      text: `request ${first.seq} used this nonce and got ${outcomeOf(first)}: a retry must be signed again, with a new nonce and time`,
    };
  return {
    id: 'nonce-reused',
    text: `request ${first.seq} used this nonce first (at ${new Date(first.at).toISOString().slice(11, 23)}, answered ${outcomeOf(first)}): make a new nonce for every request`,
  };
}

/** -4035: the request that used the time first, and whether the two were sent together or this is a replay. */
export function timeReuseHint(first: FirstUse, arrived: number): Hint {
  const apart = arrived - first.arrived;
  if (apart < 1000)
    return {
      id: 'same-millisecond',
      text: `request ${first.seq} was signed in the same millisecond: two requests signed in one millisecond collide; give each its own time (keep the last time used and add 1 ms)`,
    };
  return {
    id: 'time-reused',
    text: `request ${first.seq} was signed with this time ${Math.round(apart / 1000)} s earlier: sign every request, retries included, with the time it is sent`,
  };
}
