import { answer, clampInstant, clipText, type Answer } from '../contract/response.js';
import type { ChallengeBody } from '../contract/bodies.js';
import { ControlError } from '../contract/errors.js';
import type { RandomSource } from './random.js';
import { Watchers } from './clock.js';
import type { PersonScript } from '../scenario/accounts.js';
import type { Actor, ChallengeState, PressAction, Step } from './steps.js';

/** Every way a challenge can end: by the user, by the client, by the clock, by auto-verify. */
export const ENDED_BY = ['user', 'client', 'clock', 'auto-verify'] as const;
type EndedBy = (typeof ENDED_BY)[number];

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
  endedBy?: EndedBy;
  /** Its life step by step, from its creation: who made it, who answered it, who verified or cancelled it. */
  trail: Step[];
  /** The presses its person is scripted to make (`people:`, a magic address) and not made yet, in time order. */
  presses?: { action: PressAction; at: number }[];
}

/** Something that falls due on a challenge: auto-verify, expiry or a scripted press, at an instant. */
interface Due {
  c: Challenge;
  at: number;
  /** At one instant: auto-verify (0) before expiry (1) before a press (2), so that a press at expiry is too late. */
  rank: 0 | 1 | 2;
  press?: { action: PressAction; at: number };
}

/** A challenge keeps this many characters of the profile its request named (shown nowhere). */
const PROFILE_KEPT = 256;

/** Default number of challenges kept; past it the oldest are forgotten. */
export const DEFAULT_MAX_CHALLENGES = 10_000;

const json = (o: unknown) => JSON.stringify(o);

/** The challenges, in the order they were made; past `max`, the oldest is forgotten (and then answers as unknown). */
export class Challenges {
  private readonly map = new Map<string, Challenge>();
  private readonly watchers = new Watchers<Challenge>();
  /** The challenges with scripted presses still to make: the only ones a timer waits for. */
  private readonly scripted = new Set<Challenge>();

  constructor(
    private readonly random: RandomSource,
    private readonly max = DEFAULT_MAX_CHALLENGES,
    /** Hides secrets in a refusal that quotes what the caller sent. */
    private readonly hide: (text: string) => string = (text) => text,
    /** Now on the clock an API user's challenges follow. */
    private readonly nowOf: (apiUser: string) => number = () => Date.now(),
  ) {}

  // ---- What the client's requests do; the request path commits the step it decided on.

  /** A new challenge (2025) for `apiUser`, waiting for the user, not kept yet (`add` keeps it). */
  make(
    apiUser: string,
    body: ChallengeBody,
    now: number,
    autoVerifyDelay: number,
    by: Actor = 'client',
    script?: PersonScript,
  ): Challenge {
    const presses = script?.map((p) => ({ action: p.action, at: clampInstant(now + p.afterMs) }));
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
      ...(presses?.length ? { presses } : {}),
    };
  }

  /** Keeps a challenge made by `make`; past `max`, forgets the oldest (a Map keeps insertion order). */
  add(c: Challenge): void {
    if (this.max >= 1) {
      this.map.set(c.id, c);
      if (c.presses) this.scripted.add(c);
    }
    if (this.map.size > this.max) {
      const oldest = this.map.values().next().value!;
      this.map.delete(oldest.id);
      this.scripted.delete(oldest);
    }
    this.watchers.tell(c);
  }

  /** The earliest scripted press still to make on each API user's challenges (for the timer that makes them). */
  nextPresses(): Map<string, number> {
    const next = new Map<string, number>();
    for (const c of this.scripted) {
      const at = c.presses![0].at;
      if (!(next.get(c.apiUser)! <= at)) next.set(c.apiUser, at);
    }
    return next;
  }

  /** Takes every step that has fallen due on every challenge by its clock's now, in time order across challenges. */
  settleAll(): void {
    const due: Due[] = [];
    const nows = new Map<string, number>();
    for (const c of this.map.values()) {
      let now = nows.get(c.apiUser);
      if (now === undefined) nows.set(c.apiUser, (now = this.nowOf(c.apiUser)));
      dueOf(c, now, due);
    }
    this.take(due);
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
    c.state = 'verified';
    c.trail.push({ state: 'verified', at: now, by });
    this.watchers.tell(c);
  }

  // ---- What the user (or a test standing in for the user) does; `now` left out: the API user's clock's now.

  /** The user approves a waiting challenge, having been shown `authCode` (default: six random digits). */
  approve(id: string, now?: number, authCode?: string, by: Actor = 'control'): Challenge {
    if (authCode !== undefined && (typeof authCode !== 'string' || authCode.length === 0 || authCode.length > 64))
      throw new ControlError(400, 'authCode must be a string of 1 to 64 characters');
    const c = this.waiting(id, now);
    c.authCode = authCode ?? this.random.digits(6);
    return this.end(c, 'approved', now ?? this.nowOf(c.apiUser), 'user', by);
  }

  /** Proxy mode: the real service's user answered; the waiting copy takes the answer, with no auth code of its own. */
  answeredAtService(id: string, action: PressAction): Challenge {
    const c = this.waiting(id, undefined);
    return this.end(c, action === 'approve' ? 'approved' : 'denied', this.nowOf(c.apiUser), 'user', 'service');
  }

  /** The user denies a waiting challenge. */
  deny(id: string, now?: number, by: Actor = 'control'): Challenge {
    const c = this.waiting(id, now);
    return this.end(c, 'denied', now ?? this.nowOf(c.apiUser), 'user', by);
  }

  /** A waiting challenge expires now, as if its challengeExpiry had passed. */
  expire(id: string, now?: number, by: Actor = 'control'): Challenge {
    const c = this.waiting(id, now);
    c.expiresAt = now ?? this.nowOf(c.apiUser);
    return this.end(c, 'expired', c.expiresAt, 'clock', by);
  }

  /** Calls `watcher` after every step of every challenge (the dashboard's live view); returns how to stop. */
  watch(watcher: (c: Challenge) => void): () => void {
    return this.watchers.add(watcher);
  }

  // ---- The store.

  /** The challenge with its state brought up to `now` (default: its clock's), or undefined. */
  get(id: string, now?: number): Challenge | undefined {
    const c = this.map.get(id);
    if (c) this.take(dueOf(c, now ?? this.nowOf(c.apiUser), []));
    return c;
  }

  /** Every challenge, newest first, each settled at its clock's now. */
  list(): Challenge[] {
    this.settleAll();
    return [...this.map.values()].reverse();
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
    this.scripted.clear();
  }

  /** Every challenge kept, oldest first (the order the oldest are forgotten in); the caller copies them. */
  state(): Challenge[] {
    return [...this.map.values()];
  }

  /** Keeps these challenges in this order, as `state` gave them; those with presses to make are the scripted ones. */
  restore(challenges: Challenge[]): void {
    this.clear();
    for (const c of challenges) {
      this.map.set(c.id, c);
      if (c.presses) this.scripted.add(c);
    }
  }

  /** Forgets one API user's challenges (its own scenario was loaded); the others keep theirs, in their order. */
  forgetApiUser(apiUser: string): void {
    for (const [id, c] of this.map)
      if (c.apiUser === apiUser) {
        this.map.delete(id);
        this.scripted.delete(c);
      }
  }

  private end(c: Challenge, state: ChallengeState, at: number, endedBy: EndedBy, by: Actor): Challenge {
    endAt(c, state, at, endedBy, by);
    this.watchers.tell(c);
    return c;
  }

  /** Takes the steps that fell due, in time order (a stable sort: at one instant, in the order found). */
  private take(due: Due[]): void {
    due.sort((a, b) => a.at - b.at || a.rank - b.rank);
    for (const { c, at, rank, press } of due) {
      if (press) {
        c.presses!.splice(c.presses!.indexOf(press), 1);
        if (!c.presses!.length) {
          delete c.presses;
          this.scripted.delete(c);
        }
        // A scripted approval shows no code: no one types it, so verify takes any code, as for auto-verify.
        if (c.state === 'waiting') endAt(c, press.action === 'approve' ? 'approved' : 'denied', at, 'user', 'scenario');
        // Too late (expired, or answered before): nothing changes, and the trail says it was pressed.
        else c.trail.push({ state: c.state, at, by: 'scenario', pressed: press.action });
      } else if (c.state !== 'waiting') continue;
      else if (rank === 0) endAt(c, 'approved', at, 'auto-verify', 'auto-verify');
      else endAt(c, 'expired', at, 'clock', 'clock');
      this.watchers.tell(c);
    }
  }

  private waiting(id: string, now: number | undefined): Challenge {
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
}

/** What has fallen due on a challenge by `now`: auto-verify (before it expires), expiry, its scripted presses. */
function dueOf(c: Challenge, now: number, due: Due[]): Due[] {
  if (c.state === 'waiting') {
    if (c.autoVerifyAt !== undefined && c.autoVerifyAt <= now && c.autoVerifyAt < c.expiresAt)
      due.push({ c, at: c.autoVerifyAt, rank: 0 });
    if (c.expiresAt <= now) due.push({ c, at: c.expiresAt, rank: 1 });
  }
  for (const press of c.presses ?? []) {
    if (press.at > now) break;
    due.push({ c, at: press.at, rank: 2, press });
  }
  return due;
}

function endAt(c: Challenge, state: ChallengeState, at: number, endedBy: EndedBy, by: Actor): void {
  c.state = state;
  c.endedAt = at;
  c.endedBy = endedBy;
  c.trail.push({ state, at, by });
}

/** What cancelling a challenge answers: 2028 when it was waiting, else -2035. */
export function cancelOutcome(c: Challenge | undefined): Answer {
  if (c?.state === 'waiting') return { code: 2028, message: json({ status: 'CANCELLED' }) };
  return c ? answer(-2035, `the challenge is already ${c.state}`) : answer(-2035, 'no such challenge for this user');
}

/** What status (171) or verify (170) answers: 3080 once approved, -3091 waiting, -3092 ended, -3087 unknown. */
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
      if (c.autoVerifyAt === undefined && c.authCode !== undefined && authCode !== c.authCode)
        return answer(-3087, 'the auth code does not match the one the user was shown');
      return { code: 3080, message: json({ challengeId: c.id, status: 'VERIFIED' }) };
  }
}
