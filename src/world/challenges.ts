/** Where a challenge stands (decisions §8). `approved`: the user said yes; `verified`: the client then verified it. */
export type ChallengeState = 'waiting' | 'approved' | 'verified' | 'denied' | 'expired' | 'cancelled';

export interface Challenge {
  id: string;
  apiUser: string;
  user: string;
  challengeType: string;
  expiry: string;
  createdAt: number;
  expiresAt: number;
  /** Set when the challenge completes by itself (enableAutoVerify). */
  autoVerifyAt?: number;
  profile?: string;
  ipAddress?: string;
  qr: boolean;
  state: ChallengeState;
  /** The code the user was shown when approving; verify must send it (unless auto-verify). */
  authCode?: string;
  endedAt?: number;
  /** How it ended: by the user, by the client, by the clock, by auto-verify. */
  endedBy?: 'user' | 'client' | 'clock' | 'auto-verify';
}

/** Default number of challenges kept; past it the oldest are forgotten. */
export const DEFAULT_MAX_CHALLENGES = 10_000;

/**
 * The challenges a simulator has issued, in the order they were made, bounded: past `max`, the oldest one
 * is forgotten (it then answers as unknown). Expiry and auto-verify follow the virtual clock and are applied
 * when a challenge is looked at (`settle`), so nothing runs on a timer.
 */
export class ChallengeStore {
  private readonly map = new Map<string, Challenge>();
  /**
   * The ids in the order they were added, a ring once full: `head` is the oldest. (Deleting a Map's first key
   * and then asking the Map for its new first key makes V8 step over every entry deleted since the table was
   * last compacted: about 10 µs per new challenge once the store is full.)
   */
  private order: string[] = [];
  private head = 0;

  constructor(private readonly max = DEFAULT_MAX_CHALLENGES) {}

  add(c: Challenge): void {
    if (this.max < 1) return;
    const known = this.map.has(c.id);
    this.map.set(c.id, c);
    if (known) return; // keeps its place, as in a Map
    if (this.order.length < this.max) {
      this.order.push(c.id);
      return;
    }
    this.map.delete(this.order[this.head]);
    this.order[this.head] = c.id;
    this.head = (this.head + 1) % this.max;
  }

  /** The challenge with its state brought up to `now`, or undefined. */
  get(id: string, now: number): Challenge | undefined {
    const c = this.map.get(id);
    if (c) settle(c, now);
    return c;
  }

  /** Every challenge, newest first, settled at `now`. */
  list(now: number): Challenge[] {
    const out = [...this.map.values()].reverse();
    for (const c of out) settle(c, now);
    return out;
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
    this.order = [];
    this.head = 0;
  }
}

/** Applies what the clock has done to a waiting challenge: auto-verify first, then expiry. */
export function settle(c: Challenge, now: number): void {
  if (c.state !== 'waiting') return;
  if (c.autoVerifyAt !== undefined && now >= c.autoVerifyAt && c.autoVerifyAt < c.expiresAt) {
    c.state = 'approved';
    c.endedAt = c.autoVerifyAt;
    c.endedBy = 'auto-verify';
  } else if (now >= c.expiresAt) {
    c.state = 'expired';
    c.endedAt = c.expiresAt;
    c.endedBy = 'clock';
  }
}
