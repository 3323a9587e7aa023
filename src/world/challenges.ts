import { answer, clipText, type Answer } from '../contract/answer.js';
import type { ChallengeBody, LookupBody } from '../contract/bodies.js';
import { ControlError } from '../errors.js';
import { foldCase } from './fold-case.js';
import type { RandomSource } from './random.js';

/**
 * The challenges a simulator has issued and their whole life: made by a new-challenge request; then approved or
 * denied by the user (the phone page, the dashboard, the control API), verified or cancelled by the client,
 * expired or auto-verified by the clock. A maintainer who changes how a challenge ends changes this file.
 */

/** Where a challenge stands (decisions §8). `approved`: the user said yes; `verified`: the client then verified it. */
export type ChallengeState = 'waiting' | 'approved' | 'verified' | 'denied' | 'expired' | 'cancelled';
/** How a challenge ended: by the user, by the client, by the clock, by auto-verify. */
export type EndedBy = 'user' | 'client' | 'clock' | 'auto-verify';

// Written as records so that the compiler holds the lists to the types: a value missing or extra does not build.
const STATES: Record<ChallengeState, true> = { waiting: true, approved: true, verified: true, denied: true, expired: true, cancelled: true };
const ENDINGS: Record<EndedBy, true> = { user: true, client: true, clock: true, 'auto-verify': true };
/** Every state a challenge can be in (for the control API's document). */
export const CHALLENGE_STATES = Object.keys(STATES) as ChallengeState[];
/** Every way a challenge can end (for the control API's document). */
export const ENDED_BY = Object.keys(ENDINGS) as EndedBy[];

/** A challenge as the simulator keeps it (the control API's `GET /__sim/challenges` shows it with ISO times). */
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
  /** How it ended. */
  endedBy?: EndedBy;
}

/** A challenge keeps this many characters of the profile its request named (shown nowhere; kept small, as a challenge is kept long). */
export const PROFILE_KEPT = 256;

/** Default number of challenges kept; past it the oldest are forgotten. */
export const DEFAULT_MAX_CHALLENGES = 10_000;

const json = (o: unknown) => JSON.stringify(o);

/**
 * The challenges, in the order they were made, bounded: past `max`, the oldest one is forgotten (it then answers as
 * unknown). Expiry and auto-verify follow the virtual clock and are applied when a challenge is looked at
 * (`settle`), so nothing runs on a timer.
 */
export class Challenges {
  private readonly map = new Map<string, Challenge>();
  /**
   * The ids in the order they were added, a ring once full: `head` is the oldest. (Deleting a Map's first key
   * and then asking the Map for its new first key makes V8 step over every entry deleted since the table was
   * last compacted: about 10 µs per new challenge once the store is full.)
   */
  private order: string[] = [];
  private head = 0;

  constructor(
    private readonly random: RandomSource,
    private readonly max = DEFAULT_MAX_CHALLENGES,
    /** Hides secrets in a refusal that quotes what the caller sent. */
    private readonly hide: (text: string) => string = (text) => text,
  ) {}

  // ---- What the client's requests do (the operations of the service).

  /** A new challenge (2025) for `apiUser`, waiting for the user; with auto-verify it completes by itself after `autoVerifyDelay`. */
  create(apiUser: string, body: ChallengeBody, now: number, autoVerifyDelay: number): Challenge {
    const c: Challenge = {
      id: this.random.uuid(),
      apiUser,
      user: body.user,
      challengeType: body.challengeType,
      expiry: body.expiry,
      createdAt: now,
      expiresAt: now + body.expiryMs,
      autoVerifyAt: body.autoVerify ? now + autoVerifyDelay : undefined,
      profile: body.profile === undefined ? undefined : clipText(body.profile, PROFILE_KEPT),
      ipAddress: body.ipAddress,
      qr: body.qr,
      state: 'waiting',
    };
    this.add(c);
    return c;
  }

  /**
   * The client cancels a challenge of its own: 2028 when it was waiting, else -2035 (unknown, someone else's, or
   * already ended). `forced` (a scenario rule forcing 2028) cancels a waiting one and answers 2028 whatever it finds.
   */
  cancel(apiUser: string, body: { user: string; challengeId: string }, now: number, forced: boolean): Answer & { challenge?: Challenge } {
    const c = this.own(apiUser, body.user, body.challengeId, now);
    if (c?.state === 'waiting') {
      end(c, 'cancelled', now, 'client');
      return { code: 2028, message: json({ status: 'CANCELLED' }), challenge: c };
    }
    if (forced) return { code: 2028, message: json({ status: 'CANCELLED' }), challenge: c };
    if (!c) return answer(-2035, 'no such challenge for this user');
    return { ...answer(-2035, `the challenge is already ${c.state}`), challenge: c };
  }

  /**
   * The client asks where a challenge stands (status, 171) or verifies the code the user was shown (verify, 170):
   * 3080 once approved (verify: with the right code, then it is verified), -3091 while waiting, -3092 when it ended
   * otherwise, -3087 for an unknown one or a wrong code. `forced` (a rule forcing 3080) answers 3080, and verify then
   * marks the challenge verified.
   */
  lookUp(op: 'status' | 'verify', apiUser: string, body: LookupBody, now: number, forced: boolean): Answer & { challenge?: Challenge } {
    const c = this.own(apiUser, body.user, body.challengeId, now);
    const found = c ? { challenge: c } : {};
    if (forced) {
      if (c && op === 'verify' && (c.state === 'waiting' || c.state === 'approved')) {
        c.state = 'verified';
        c.endedAt ??= now;
        c.endedBy ??= 'client';
      }
      return { code: 3080, message: json({ challengeId: body.challengeId, status: op === 'verify' ? 'VERIFIED' : 'APPROVED' }), ...found };
    }
    if (!c) return answer(-3087, 'no such challenge for this user');
    switch (c.state) {
      case 'waiting':
        return { ...answer(-3091, 'the user has not answered yet'), ...found };
      case 'denied':
        return { ...answer(-3092, 'the user denied the challenge'), ...found };
      case 'expired':
        return { ...answer(-3092, 'the challenge expired'), ...found };
      case 'cancelled':
        return { ...answer(-3092, 'the challenge was cancelled'), ...found };
      case 'approved':
      case 'verified':
        if (op === 'status') return { code: 3080, message: json({ challengeId: c.id, status: c.state === 'verified' ? 'VERIFIED' : 'APPROVED' }), ...found };
        if (c.autoVerifyAt === undefined && c.authCode !== undefined && body.authCode !== c.authCode) {
          return { ...answer(-3087, 'the auth code does not match the one the user was shown'), ...found };
        }
        c.state = 'verified';
        return { code: 3080, message: json({ challengeId: c.id, status: 'VERIFIED' }), ...found };
    }
  }

  // ---- What the user (or a test standing in for the user) does, and the clock.

  /** The user approves a waiting challenge, having been shown `authCode` (default: six random digits). */
  approve(id: string, now: number, authCode?: string): Challenge {
    if (authCode !== undefined && (typeof authCode !== 'string' || authCode.length === 0 || authCode.length > 64)) throw new ControlError(400, 'authCode must be a string of 1 to 64 characters');
    const c = this.waiting(id, now);
    end(c, 'approved', now, 'user');
    c.authCode = authCode ?? this.random.digits(6);
    return c;
  }

  /** The user denies a waiting challenge. */
  deny(id: string, now: number): Challenge {
    return end(this.waiting(id, now), 'denied', now, 'user');
  }

  /** A waiting challenge expires now, as if its challengeExpiry had passed. */
  expire(id: string, now: number): Challenge {
    const c = end(this.waiting(id, now), 'expired', now, 'clock');
    c.expiresAt = now;
    return c;
  }

  // ---- The store.

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

  /** The challenge with this id, if it belongs to this API user and this user. */
  private own(apiUser: string, user: string, id: string, now: number): Challenge | undefined {
    const c = this.get(id, now);
    return c && c.apiUser === apiUser && foldCase(c.user) === foldCase(user) ? c : undefined;
  }

  private waiting(id: string, now: number): Challenge {
    if (typeof id !== 'string') throw new ControlError(400, 'a challenge id is a string');
    const c = this.get(id, now);
    // The id is quoted whole (its secrets hidden) or not at all: cut, a secret in it would show in part.
    if (!c) throw new ControlError(404, `no challenge ${id.length <= 64 ? this.hide(id) : `(an id of ${id.length} characters)`}`);
    if (c.state !== 'waiting') throw new ControlError(409, `the challenge is already ${c.state}`);
    return c;
  }

  private add(c: Challenge): void {
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
}

function end(c: Challenge, state: ChallengeState, at: number, by: Challenge['endedBy']): Challenge {
  c.state = state;
  c.endedAt = at;
  c.endedBy = by;
  return c;
}

/** Applies what the clock has done to a waiting challenge: auto-verify first, then expiry. */
export function settle(c: Challenge, now: number): void {
  if (c.state !== 'waiting') return;
  if (c.autoVerifyAt !== undefined && now >= c.autoVerifyAt && c.autoVerifyAt < c.expiresAt) end(c, 'approved', c.autoVerifyAt, 'auto-verify');
  else if (now >= c.expiresAt) end(c, 'expired', c.expiresAt, 'clock');
}
