import { answer, clipText, type Answer } from '../contract/response.js';
import type { ChallengeBody } from '../contract/bodies.js';
import { ControlError } from '../contract/errors.js';
import { clampInstant } from '../contract/response.js';
import type { RandomSource } from './random.js';
import { Watchers } from './watchers.js';
import type { Actor, ChallengeState, Step } from './steps.js';

/**
 * The challenges a simulator has issued and their whole life: made by a new-challenge request; then approved or
 * denied by the user (the phone page, the dashboard, the control API), verified or cancelled by the client,
 * expired or auto-verified by the clock. A maintainer who changes how a challenge ends changes this file.
 */

/** How a challenge ended: by the user, by the client, by the clock, by auto-verify. */
export type EndedBy = 'user' | 'client' | 'clock' | 'auto-verify';

// Written as a record so that the compiler holds the list to the type: a value missing or extra does not build.
const ENDINGS: Record<EndedBy, true> = { user: true, client: true, clock: true, 'auto-verify': true };
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
  /** Its life step by step, from its creation: who made it, who answered it, who verified or cancelled it. */
  trail: Step[];
}

/**
 * A challenge keeps this many characters of the profile its request named (shown nowhere; kept small, as a challenge
 * is kept long).
 */
const PROFILE_KEPT = 256;

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
   * last compacted: about 10 microseconds per new challenge once the store is full.)
   */
  private order: string[] = [];
  private head = 0;
  private readonly watchers = new Watchers<Challenge>();

  constructor(
    private readonly random: RandomSource,
    private readonly max = DEFAULT_MAX_CHALLENGES,
    /** Hides secrets in a refusal that quotes what the caller sent. */
    private readonly hide: (text: string) => string = (text) => text,
  ) {}

  // ---- What the client's requests do (the operations of the service). The request path decides with these
  // readings and commits the step it decided on (request/commit.ts) once the request is answered.

  /**
   * A new challenge (2025) for `apiUser`, waiting for the user, not kept yet (`add` keeps it); with auto-verify it
   * completes by itself after `autoVerifyDelay`.
   */
  make(apiUser: string, body: ChallengeBody, now: number, autoVerifyDelay: number, by: Actor = 'client'): Challenge {
    return {
      id: this.random.uuid(),
      apiUser,
      user: body.user,
      challengeType: body.challengeType,
      expiry: body.expiry,
      createdAt: now,
      // Never past the clock's last instant: the clock cannot reach a later one, so such a challenge could never end.
      expiresAt: clampInstant(now + body.expiryMs),
      autoVerifyAt: body.autoVerify ? clampInstant(now + autoVerifyDelay) : undefined,
      profile: body.profile === undefined ? undefined : clipText(body.profile, PROFILE_KEPT),
      ipAddress: body.ipAddress,
      qr: body.qr,
      state: 'waiting',
      trail: [{ state: 'waiting', at: now, by }],
    };
  }

  /** Keeps a challenge made by `make`. */
  add(c: Challenge): void {
    this.store(c);
    this.changed(c);
  }

  /** The challenge with this id, settled at `now`, if it belongs to this API user and this user. */
  find(apiUser: string, user: string, id: string, now: number): Challenge | undefined {
    const c = this.get(id, now);
    return c && c.apiUser === apiUser && c.user.toLowerCase() === user.toLowerCase() ? c : undefined;
  }

  /** The client cancels a waiting challenge of its own. */
  cancel(c: Challenge, now: number, by: Actor = 'client'): void {
    this.end(c, 'cancelled', now, 'client', by);
  }

  /** The client verifies a challenge: the code the user was shown matched (or a rule forced 3080). */
  verify(c: Challenge, now: number, by: Actor = 'client'): void {
    if (c.state === 'verified') return;
    c.endedAt ??= now;
    c.endedBy ??= 'client';
    this.step(c, 'verified', now, by);
  }

  // ---- What the user (or a test standing in for the user) does, and the clock.

  /** The user approves a waiting challenge, having been shown `authCode` (default: six random digits). */
  approve(id: string, now: number, authCode?: string, by: Actor = 'control'): Challenge {
    if (authCode !== undefined && (typeof authCode !== 'string' || authCode.length === 0 || authCode.length > 64))
      throw new ControlError(400, 'authCode must be a string of 1 to 64 characters');
    const c = this.waiting(id, now);
    c.authCode = authCode ?? this.random.digits(6);
    return this.end(c, 'approved', now, 'user', by);
  }

  /** The user denies a waiting challenge. */
  deny(id: string, now: number, by: Actor = 'control'): Challenge {
    return this.end(this.waiting(id, now), 'denied', now, 'user', by);
  }

  /** A waiting challenge expires now, as if its challengeExpiry had passed. */
  expire(id: string, now: number, by: Actor = 'control'): Challenge {
    const c = this.waiting(id, now);
    c.expiresAt = now;
    return this.end(c, 'expired', now, 'clock', by);
  }

  /** Calls `watcher` after every step of every challenge (the dashboard's live view); returns how to stop. */
  watch(watcher: (c: Challenge) => void): () => void {
    return this.watchers.add(watcher);
  }

  // ---- The store.

  /** The challenge with its state brought up to `now`, or undefined. */
  get(id: string, now: number): Challenge | undefined {
    const c = this.map.get(id);
    if (c) this.settle(c, now);
    return c;
  }

  /** Every challenge, newest first, settled at `now`. */
  list(now: number): Challenge[] {
    const out = [...this.map.values()].reverse();
    for (const c of out) this.settle(c, now);
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

  /** Forgets one API user's challenges (its own scenario was loaded); the others keep theirs, in their order. */
  forgetApiUser(apiUser: string): void {
    let removed = false;
    for (const [id, c] of this.map) if (c.apiUser === apiUser && this.map.delete(id)) removed = true;
    if (!removed) return;
    // Oldest first again, so that the next one past the bound forgets the oldest that is left.
    this.order = [...this.map.keys()];
    this.head = 0;
  }

  /** A challenge ends (approved, denied, expired or cancelled), and who did it. */
  private end(c: Challenge, state: ChallengeState, at: number, endedBy: EndedBy, by: Actor): Challenge {
    endAt(c, state, at, endedBy, by);
    this.changed(c);
    return c;
  }

  /** A step that is not an end: an approved challenge verified. */
  private step(c: Challenge, state: ChallengeState, at: number, by: Actor): void {
    c.state = state;
    c.trail.push({ state, at, by });
    this.changed(c);
  }

  /** The clock's steps (auto-verify, expiry), taken when a challenge is looked at. */
  private settle(c: Challenge, now: number): void {
    const before = c.state;
    settle(c, now);
    if (c.state !== before) this.changed(c);
  }

  private changed(c: Challenge): void {
    this.watchers.tell(c);
  }

  private waiting(id: string, now: number): Challenge {
    if (typeof id !== 'string') throw new ControlError(400, 'a challenge id is a string');
    const c = this.get(id, now);
    // The id is quoted whole (its secrets hidden) or not at all: cut, a secret in it would show in part.
    if (!c)
      throw new ControlError(
        404,
        `no challenge ${id.length <= 64 ? this.hide(id) : `(an id of ${id.length} characters)`}`,
      );
    if (c.state !== 'waiting') throw new ControlError(409, `the challenge is already ${c.state}`);
    return c;
  }

  private store(c: Challenge): void {
    if (this.max < 1) return;
    const before = this.map.size;
    this.map.set(c.id, c);
    // Set again, a known id keeps its place, as in a Map (told by the size: one lookup where has() and set() are two).
    if (this.map.size === before) return;
    if (this.order.length < this.max) {
      this.order.push(c.id);
      return;
    }
    this.map.delete(this.order[this.head]);
    this.order[this.head] = c.id;
    this.head = (this.head + 1) % this.max;
  }
}

/** Applies what the clock has done to a waiting challenge: auto-verify first, then expiry. */
function settle(c: Challenge, now: number): void {
  if (c.state !== 'waiting') return;
  if (c.autoVerifyAt !== undefined && now >= c.autoVerifyAt && c.autoVerifyAt < c.expiresAt)
    endAt(c, 'approved', c.autoVerifyAt, 'auto-verify', 'auto-verify');
  else if (now >= c.expiresAt) endAt(c, 'expired', c.expiresAt, 'clock', 'clock');
}

function endAt(c: Challenge, state: ChallengeState, at: number, endedBy: EndedBy, by: Actor): void {
  c.state = state;
  c.endedAt = at;
  c.endedBy = endedBy;
  c.trail.push({ state, at, by });
}

/**
 * What cancelling a challenge answers: 2028 when it was waiting (then it is cancelled), else -2035 (unknown, someone
 * else's, or already ended).
 */
export function cancelOutcome(c: Challenge | undefined): Answer {
  if (c?.state === 'waiting') return { code: 2028, message: json({ status: 'CANCELLED' }) };
  return c ? answer(-2035, `the challenge is already ${c.state}`) : answer(-2035, 'no such challenge for this user');
}

/**
 * What asking where a challenge stands (status, 171) or verifying the code the user was shown (verify, 170) answers:
 * 3080 once approved (verify: with the right code, then it is verified), -3091 while waiting, -3092 when it ended
 * otherwise, -3087 for an unknown one or a wrong code.
 */
export function lookUpOutcome(op: 'status' | 'verify', c: Challenge | undefined, authCode: string | undefined): Answer {
  if (!c) return answer(-3087, 'no such challenge for this user');
  switch (c.state) {
    case 'waiting':
      return answer(-3091, 'the user has not answered yet');
    case 'denied':
      return answer(-3092, 'the user denied the challenge');
    case 'expired':
      return answer(-3092, 'the challenge expired');
    case 'cancelled':
      return answer(-3092, 'the challenge was cancelled');
    case 'approved':
    case 'verified':
      if (op === 'status')
        return {
          code: 3080,
          message: json({ challengeId: c.id, status: c.state === 'verified' ? 'VERIFIED' : 'APPROVED' }),
        };
      if (c.autoVerifyAt === undefined && c.authCode !== undefined && authCode !== c.authCode) {
        return answer(-3087, 'the auth code does not match the one the user was shown');
      }
      return { code: 3080, message: json({ challengeId: c.id, status: 'VERIFIED' }) };
  }
}
