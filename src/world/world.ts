import { DEFAULT_REPLAY_CAP, ReplayMemory, type ReplayState } from '../auth/replay.js';
import { makeApiUser, type ApiUser, type CompiledScenario } from '../scenario/compile.js';
import { Challenges, DEFAULT_MAX_CHALLENGES, type Challenge } from './challenges.js';
import { ControlError } from '../contract/errors.js';
import { VirtualClock, Watchers, type ClockState } from './clock.js';
import { boundedDuration, boundedInstant, LIMITS } from '../contract/time-limits.js';
import { People } from './people.js';
import { machine } from './clock.js';
import { RandomSource, unguessable, type RandomState } from './random.js';

/** The default API user's id when none is given. */
export const DEFAULT_API_USER = '123456789';

/** What a world is made from (the simulator's options). */
export interface WorldOptions {
  seed?: number;
  apiUser?: string;
  secret?: string;
  maxChallenges?: number;
  replayCap?: number;
}

/** The world as plain data (`World.state`): what its future answers depend on. */
export interface WorldState {
  clock: ClockState;
  random: RandomState;
  /** The sample people's seed (an unseeded simulator draws one). */
  people: number;
  /** The default API user's secret (drawn when the options give none). */
  defaultSecret: string;
  /** Oldest first. */
  challenges: Challenge[];
  replay: [string, ReplayState][];
  claimed: { id: string; secret: string }[];
  ownClocks: [string, ClockState][];
}

/** A timer waits at most this long (setTimeout's own limit is about 24.8 days); then it looks again. */
const LONGEST_WAIT_MS = 2 ** 31 - 1;

/** The simulated service's state, which requests and the control API change: API users, challenges, replay, clocks. */
export class World {
  /** The simulator's clock: every API user's, but a claimed one's that has a clock of its own. */
  readonly clock = new VirtualClock();
  readonly random: RandomSource;
  /** Realistic sample people for the dashboard and the phone page (faker, loaded on first use). */
  readonly people: People;
  readonly challenges: Challenges;
  /** The API user to sign with when a scenario lists none, and whether its id or secret was given. */
  readonly defaultApiUser: ApiUser;
  readonly defaultGiven: boolean;
  readonly secretGiven: boolean;
  private readonly replay = new Map<string, ReplayMemory>();
  private readonly replayCap: number;
  /** API users handed out at run time, one per parallel test worker (claim), until released. */
  private readonly claimed = new Map<string, ApiUser>();
  /** Claimed API users' own clocks, made on the worker's first move; until then it follows the simulator's. */
  private readonly ownClocks = new Map<string, VirtualClock>();
  private readonly clockMoves = new Watchers<void>();
  /** The one timer that waits for the earliest scripted press on a running clock. */
  private pressTimer?: ReturnType<typeof setTimeout>;
  private stopped = false;

  /** `hide`: hides secrets in a refusal that quotes what the caller sent (a challenge id, a duration). */
  constructor(
    opts: WorldOptions,
    private readonly hide: (text: string) => string = (text) => text,
  ) {
    this.random = new RandomSource(opts.seed);
    // Unseeded, drawn from the crypto source (the seeded sequence is untouched).
    this.people = new People(this.random.seed ?? this.random.uint32());
    this.challenges = new Challenges(this.random, opts.maxChallenges ?? DEFAULT_MAX_CHALLENGES, hide, (apiUser) =>
      this.clockOf(apiUser).now(),
    );
    this.replayCap = opts.replayCap ?? DEFAULT_REPLAY_CAP;
    this.secretGiven = opts.secret !== undefined;
    this.defaultGiven = opts.apiUser !== undefined || opts.secret !== undefined;
    this.clock.onMove(() => this.clockMoves.tell());
    this.defaultApiUser = makeApiUser(opts.apiUser ?? DEFAULT_API_USER, opts.secret ?? unguessable(32));
  }

  /** Who API user `id` is under `sc` while `active` is active: listed by `sc`, by `active`, else the default. */
  apiUser(sc: CompiledScenario, active: CompiledScenario, id: string): ApiUser | undefined {
    const own = sc.apiUsers?.get(id) ?? this.claimed.get(id);
    if (own) return own;
    const listed = active.apiUsers?.get(id);
    if (listed) return listed;
    return (!active.apiUsers || this.defaultGiven) && id === this.defaultApiUser.id ? this.defaultApiUser : undefined;
  }

  /** The API users of a scenario, as the banner and the dashboard list them. */
  apiUsersOf(sc: CompiledScenario): ApiUser[] {
    if (!sc.apiUsers) return [this.defaultApiUser];
    const users = [...sc.apiUsers.values()];
    if (this.defaultGiven && !sc.apiUsers.has(this.defaultApiUser.id)) users.unshift(this.defaultApiUser);
    return users;
  }

  /** What an API user has sent inside the drift window; made on its first authenticated request. */
  replayFor(apiUser: string): ReplayMemory {
    let m = this.replay.get(apiUser);
    if (!m) this.replay.set(apiUser, (m = new ReplayMemory(this.replayCap)));
    return m;
  }

  /** For tests of bounds: replay entries remembered per API user. */
  replayStats(): Record<string, { entries: number }> {
    const out: Record<string, { entries: number }> = {};
    for (const [id, m] of this.replay) {
      m.sweep(this.clock.now());
      out[id] = { entries: m.size };
    }
    return out;
  }

  // ---- The clocks. Each move settles what fell due within it, in time order, and sets the press timer again.

  /** The clock an API user's requests and challenges follow: its own once it has one, else the simulator's. */
  clockOf(apiUser: string): VirtualClock {
    return this.ownClocks.get(apiUser) ?? this.clock;
  }

  /** Calls `fn` after every move of any clock (the simulator's, a worker's own); returns how to stop. */
  onClockMove(fn: () => void): () => void {
    return this.clockMoves.add(fn);
  }

  /** A claimed API user's own clock, made on first use where the simulator's stands, under `offset`; 404 unclaimed. */
  ownClock(apiUser: string, offset: number): VirtualClock {
    this.mustBeClaimed(apiUser);
    let clock = this.ownClocks.get(apiUser);
    if (!clock) {
      clock = this.newOwnClock(apiUser, (c) => {
        c.reset(offset);
        c.follow(this.clock);
      });
    }
    return clock;
  }

  /** A claimed API user's own clock, `place`d before anyone follows its moves. */
  private newOwnClock(apiUser: string, place: (clock: VirtualClock) => void): VirtualClock {
    const clock = new VirtualClock();
    place(clock);
    clock.onMove(() => this.clockMoves.tell());
    this.ownClocks.set(apiUser, clock);
    return clock;
  }

  /** A claimed API user's scenario was loaded: its clock starts afresh, at `frozenAt` or following the simulator's. */
  startClock(apiUser: string, offset: number, frozenAt: number | undefined): void {
    this.ownClocks.delete(apiUser);
    if (frozenAt !== undefined) this.ownClock(apiUser, offset).reset(offset, frozenAt);
    this.settled();
  }

  /** 404 for an API user not claimed (the routes of a worker's clock). */
  mustBeClaimed(apiUser: string): void {
    if (typeof apiUser !== 'string' || !this.claimed.has(apiUser))
      throw new ControlError(404, `no claimed API user ${this.hide(String(apiUser).slice(0, 64))}`);
  }

  // `clockOf` is asked for once the value is read: a worker's own clock is not made for a move that is refused.

  /** Moves a clock (default: the simulator's) by a duration (ms, or 90s, 10m, -1h); returns the time. */
  advance(by: unknown, clockOf = () => this.clock): number {
    const read = boundedDuration(by, LIMITS.advance);
    if ('problem' in read) throw new ControlError(400, `by: ${this.hide(read.problem)}`);
    const clock = clockOf();
    onTheClock('by', () => clock.advance(read.ms));
    this.settled();
    return clock.now();
  }

  /** Stops a clock (default: the simulator's), at an instant or where it stands; returns the time. */
  freeze(at?: unknown, clockOf = () => this.clock): number {
    const read = at === undefined ? undefined : boundedInstant(at);
    if (read && 'problem' in read) throw new ControlError(400, `at: ${this.hide(read.problem)}`);
    const clock = clockOf();
    onTheClock('at', () => clock.freeze(read?.ms));
    this.settled();
    return clock.now();
  }

  /** Lets a clock (default: the simulator's) run again from where it stands; returns the time. */
  unfreeze(clockOf = () => this.clock): number {
    const clock = clockOf();
    clock.unfreeze();
    this.settled();
    return clock.now();
  }

  /** Takes every step that fell due, then sets the timer for the next scripted press; after every move of a clock. */
  settled(): void {
    this.challenges.settleAll();
    this.schedulePresses();
  }

  /** Sets the one timer again, for the earliest scripted press on a running clock (none when none waits). */
  schedulePresses(): void {
    clearTimeout(this.pressTimer);
    this.pressTimer = undefined;
    if (this.stopped) return;
    let wait = Infinity;
    for (const [apiUser, at] of this.challenges.nextPresses()) {
      const clock = this.clockOf(apiUser);
      if (!clock.frozen) wait = Math.min(wait, at - clock.now());
    }
    if (wait === Infinity) return;
    // unref: a press still to come never keeps the process alive.
    this.pressTimer = setTimeout(() => this.settled(), Math.min(Math.max(wait, 0), LONGEST_WAIT_MS)).unref();
  }

  /** The simulator stopped: no timer waits for a scripted press any more. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.pressTimer);
  }

  /** Forgets challenges, replay memory and the workers' own clocks (whoever resets sets the simulator's). */
  forget(): void {
    this.challenges.clear();
    this.replay.clear();
    this.ownClocks.clear();
    this.settled();
  }

  /** Forgets one API user's challenges and replay memory (its own scenario was loaded). */
  forgetApiUser(apiUser: string): void {
    this.challenges.forgetApiUser(apiUser);
    this.replay.delete(apiUser);
  }

  /** A new API user for one test worker, unique, from the system's random source (`--seed` repeats not keys). */
  claim(active: CompiledScenario): ApiUser {
    let id: string;
    do id = String(100_000_000 + (machine.bytes(4).readUInt32LE(0) % 900_000_000));
    while (id === this.defaultApiUser.id || active.apiUsers?.has(id) || this.claimed.has(id));
    const user = makeApiUser(id, machine.bytes(24).toString('base64url'));
    this.claimed.set(id, user);
    return user;
  }

  /** Ends a claim: the API user is no longer known, and its challenges and replay memory are forgotten. */
  release(apiUser: string): boolean {
    if (!this.claimed.delete(apiUser)) return false;
    this.forgetApiUser(apiUser);
    this.ownClocks.delete(apiUser);
    this.settled();
    return true;
  }

  /** Whether an API user was claimed (and not released). */
  isClaimed(apiUser: string): boolean {
    return this.claimed.has(apiUser);
  }

  /** The world as plain data, for a snapshot (`restore` takes it); the caller copies it. */
  state(): WorldState {
    return {
      clock: this.clock.state(),
      random: this.random.state(),
      people: this.people.state(),
      defaultSecret: this.defaultApiUser.secret,
      challenges: this.challenges.state(),
      replay: [...this.replay].map(([id, m]) => [id, m.state()]),
      claimed: [...this.claimed.values()].map(({ id, secret }) => ({ id, secret })),
      ownClocks: [...this.ownClocks].map(([id, c]) => [id, c.state()]),
    };
  }

  /** Stands where a world made with the same options stood when it gave `state`; the press timer is set again. */
  restore(state: WorldState): void {
    this.clock.restore(state.clock);
    this.random.restore(state.random);
    this.people.restore(state.people);
    this.defaultApiUser.secret = state.defaultSecret;
    this.challenges.restore(state.challenges);
    this.replay.clear();
    for (const [id, memory] of state.replay) this.replayFor(id).restore(memory);
    this.claimed.clear();
    for (const { id, secret } of state.claimed) this.claimed.set(id, makeApiUser(id, secret));
    this.ownClocks.clear();
    for (const [id, clock] of state.ownClocks) this.newOwnClock(id, (c) => c.restore(clock));
    this.schedulePresses();
  }

  /** The claimed API users' secrets (they are hidden wherever secrets are). */
  claimedSecrets(): string[] {
    return [...this.claimed.values()].map((u) => u.secret);
  }
}

/** Runs a move of the clock; a move it refuses (a 400) names the key that asked for it. */
function onTheClock(key: string, move: () => void): void {
  try {
    move();
  } catch (e) {
    if (e instanceof ControlError) throw new ControlError(e.status, `${key}: ${e.message}`);
    throw e;
  }
}
