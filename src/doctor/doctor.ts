import { monotonicMs } from '../world/monotonic.js';
import { BoundedMap } from '../world/bounded-map.js';
import type { Hint } from './hint.js';
import { signatureShape } from './shapes.js';
import { signatureHint, signatureMistake, type SignedRequest } from './signature.js';

/**
 * The client doctor as the request path consults it: the signature doctor within its budget, and the first use of
 * each nonce and time. One per simulator; `clear` on reset.
 */

/** Full diagnoses of a refused signature per second; past it, a refusal is answered NOT_DIAGNOSED. */
export const DIAGNOSES_PER_SECOND = 200;

/**
 * The hint of a -4037 past the budget: it says that nothing was tried, where the string to sign is (the journal entry
 * and the log line carry it for every -4037), and nothing of the request. Being the same text every time, it costs a
 * flood of forgeries no HMAC and no text made, searched for secrets and escaped per refusal; a client being debugged
 * sends far fewer than the budget and is diagnosed in full.
 */
export const NOT_DIAGNOSED: Hint = Object.freeze({
  id: 'not-diagnosed',
  text: `not diagnosed: more than ${DIAGNOSES_PER_SECOND} signatures were refused this second; this request's journal entry and log line show the string to sign`,
});

/** The nonces of the simulator's own requests remembered (the explorer sends two at most for a click). */
const OWN_NONCES_KEPT = 1000;

export class Doctor {
  private second = -1;
  private spent = 0;
  /**
   * Nonces the simulator signed itself: the dashboard's explorer, whose deliberate mistakes (a drift, a replay, a
   * bad signature) are demonstrations, not the client's. Random UUIDs nobody else sees before they are sent.
   */
  private readonly ownNonces = new BoundedMap<string, true>(OWN_NONCES_KEPT);

  /** The simulator is about to send a request of its own signed with this nonce. */
  sendsItself(nonce: string): void {
    this.ownNonces.set(nonce, true);
  }

  /** Whether a request signed with this nonce is one the simulator sent itself. */
  sentItself(nonce: string | undefined): boolean {
    // Most runs never open the dashboard: nothing to look up.
    return nonce !== undefined && this.ownNonces.size > 0 && this.ownNonces.has(nonce);
  }

  /** -4037: the mistake made, or what to sign; past the budget, that it was not diagnosed. */
  refusedSignature(r: SignedRequest, sent: string): Hint {
    return this.afford() ? signatureHint(r, sent) : NOT_DIAGNOSED;
  }

  /**
   * -4027: a signature of the wrong shape. When it is a digest of another algorithm or encoding, the mistake behind
   * it is named (for that the API user's secret is needed, so `r` only when the request names a known API user);
   * otherwise its shape.
   */
  misshapenSignature(sent: string, r: SignedRequest | undefined): Hint | undefined {
    const mistake = r && this.afford() ? signatureMistake(r, sent.trim()) : undefined;
    return mistake ?? signatureShape(sent);
  }

  /**
   * Whether a full diagnosis fits in this second's budget: a flood of forgeries costs a few HMACs a second, no more.
   */
  private afford(): boolean {
    const second = Math.floor(monotonicMs() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.spent = 0;
    }
    return this.spent++ < DIAGNOSES_PER_SECOND;
  }
}
