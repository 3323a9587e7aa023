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

  constructor(private readonly max = DEFAULT_MAX_CHALLENGES) {}

  add(c: Challenge): void {
    this.map.set(c.id, c);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
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
