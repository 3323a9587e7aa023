import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import { ControlError, ScenarioError } from '../contract/errors.js';
import { findShippedScenario, shippedScenarioNames } from './catalog.js';
import type { CompiledScenario } from './compile.js';
import { compileOrThrow, loadScenarioFile, resolveScenario } from './load.js';
import { running, type Running } from './rules.js';
import type { ScenarioInput } from './schema.js';

/** A scenario as the in-process methods take it: what the control API takes. */
export type ScenarioSource = string | Partial<ScenarioInput> | { text: string; source?: string };

/** The header that picks a scenario for one request. */
export const SCENARIO_HEADER = 'x-sim-scenario';
/** Scenarios given at run time (loaded or bound) kept by name for x-sim-scenario, besides the live ones. */
export const MAX_GIVEN_SCENARIOS = 64;
/** Scenarios bound to API users at once. */
export const MAX_BINDINGS = 256;
/** The scenario text the kept scenarios hold in all: compiled, a byte takes up to some 32 of memory. */
export const MAX_KEPT_SCENARIO_CHARS = 2 * 1024 * 1024;
/** Picks by header kept (with their rule counts), and their rules in all; past either, the oldest is forgotten. */
export const MAX_PICKS = 1024;
const MAX_PICKED_RULES = 65_536;
const AUTH_STRICTNESS = { off: 0, log: 1, verify: 2 } as const;
const TOO_MUCH_TEXT = `the active and bound scenarios would hold more than ${MAX_KEPT_SCENARIO_CHARS / 1024 / 1024} MiB of scenario text: end a binding first (DELETE /__sim/bindings/<apiUser>), or bind a smaller scenario`;
const TOO_MANY_BINDINGS = `at most ${MAX_BINDINGS} scenarios can be bound at once: end one first (DELETE /__sim/bindings/<apiUser>; a claimed API user holds one until DELETE /__sim/api-users/<apiUser>)`;
/** A scenario run with its rule counts, as plain data: the scenario by its index in `RegistryState.scenarios`. */
interface RunningState {
  scenario: number;
  counts: number[];
}

/**
 * The registry as plain data (`ScenarioRegistry.state`). Each distinct scenario is kept once, as given (`input`), and
 * named by its index, so that one scenario in several places (bound to several API users, given and active) is one
 * again once restored. A pick's scenario is the one it was picked as; `stale`: made under a run since replaced.
 */
export interface RegistryState {
  scenarios: ScenarioInput[];
  active: RunningState;
  bindings: [string, RunningState][];
  given: [string, number][];
  owners: string[];
  picks: [string, RunningState & { stale: boolean }][];
}

/** How much scenario text a scenario stands for (each counted once). */
const weight = (sc: CompiledScenario) => JSON.stringify(sc.input).length;
const weightOfAll = (scenarios: Set<CompiledScenario>) => [...scenarios].reduce((n, sc) => n + weight(sc), 0);

/** The scenarios a simulator runs, each kind bounded: active, bound to an API user, picked by header, given by name. */
export class ScenarioRegistry {
  private activeRun: Running;
  private readonly bindings = new Map<string, Running>();
  /** Scenarios given at run time, by `<owner>\0<name>`: no owner for everyone's, or a worker's claimed API user. */
  private readonly given = new Map<string, CompiledScenario>();
  private readonly owners = new Set<string>();
  /** Picks by `<API user bound, or empty>\0<name>`, with the run they were made under (stale once it is replaced). */
  private readonly picks = new Map<string, { base: Running; run: Running }>();
  /** Compiled once, so that every pick of one shares its rules and accounts. */
  private readonly shipped = new Map<string, CompiledScenario>();

  /** `pinned`: scenario keys given as options (flags), kept across loads. */
  constructor(
    initial: CompiledScenario,
    private readonly pinned: Partial<ScenarioInput>,
  ) {
    this.activeRun = running(initial);
  }

  /** The scenario of requests not bound or picked otherwise. */
  get active(): CompiledScenario {
    return this.activeRun.sc;
  }

  get token(): string {
    return this.activeRun.sc.token;
  }

  /** Which scenario a request runs under: picked by header, bound to its API user, or the active one. */
  runningFor(headers: Record<string, string | string[] | undefined>): Running | { error: string } {
    const id = headers[this.activeRun.sc.names.apiUser];
    const bound = typeof id === 'string' ? this.bindings.get(id) : undefined;
    const [base, baseKey] = bound ? [bound, id as string] : [this.activeRun, ''];
    const pick = headers[SCENARIO_HEADER];
    if (typeof pick !== 'string' || pick === '') return base;
    try {
      return this.picked(pick, base, baseKey) ?? { error: `${SCENARIO_HEADER}: no scenario named \`${pick}\`` };
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      return { error: `${SCENARIO_HEADER}: scenario \`${pick}\` cannot be picked: ${e.message}` };
    }
  }

  /** Makes a scenario the active one (the caller resets the world); every rule count starts again. */
  load(source: ScenarioSource): CompiledScenario {
    const sc = this.withPinned(resolveScenario(source));
    this.activeRun = running(sc);
    this.restart();
    this.remember(sc);
    return sc;
  }

  /** Runs a scenario (by default the active one) for one API user's requests; `own`: only they may pick it by name. */
  bind(apiUser: string, source?: ScenarioSource, own = false): CompiledScenario {
    if (typeof apiUser !== 'string' || !API_USER_ID.test(apiUser))
      throw new ControlError(400, `an API user id ${API_USER_ID_RULE}`);
    this.checkRoom(apiUser);
    const sc = source === undefined ? this.active : this.overlay(resolveScenario(source), own);
    const live = new Set([this.active, sc]);
    for (const [id, r] of this.bindings) if (id !== apiUser) live.add(r.sc);
    if (weightOfAll(live) > MAX_KEPT_SCENARIO_CHARS) throw new ControlError(400, TOO_MUCH_TEXT);
    // Its picks are stale from now on: they were made under the run this one replaces.
    this.bindings.set(apiUser, running(sc));
    if (own) this.owners.add(apiUser);
    this.remember(sc, own && source !== undefined ? apiUser : '');
    return sc;
  }

  /** The scenario bound to an API user, if any. */
  boundTo(apiUser: string): CompiledScenario | undefined {
    return this.bindings.get(apiUser)?.sc;
  }

  /** Refuses a new binding past MAX_BINDINGS (a claimed API user holds one). */
  checkRoom(apiUser?: string): void {
    if ((apiUser === undefined || !this.bindings.has(apiUser)) && this.bindings.size >= MAX_BINDINGS)
      throw new ControlError(400, TOO_MANY_BINDINGS);
  }

  /** Ends a binding, and with it the scenarios the API user bound as its own; says whether there was one. */
  unbind(apiUser: string): boolean {
    if (this.owners.delete(apiUser))
      for (const key of this.given.keys()) if (key.startsWith(`${apiUser}\0`)) this.given.delete(key);
    return this.bindings.delete(apiUser);
  }

  /** Every rule count starts again (picks too), and the given scenarios neither active nor bound are forgotten. */
  restart(): void {
    this.picks.clear();
    this.activeRun = running(this.activeRun.sc);
    for (const [k, r] of this.bindings) this.bindings.set(k, running(r.sc));
    const live = this.live();
    for (const [key, sc] of this.given) if (!live.has(sc)) this.given.delete(key);
  }

  /** The active scenario, the bindings, and the shipped scenarios. */
  list(): { active: string; bindings: Record<string, string>; shipped: { name: string; description?: string }[] } {
    const bindings = Object.fromEntries([...this.bindings].map(([k, r]) => [k, r.sc.name]));
    const shipped = shippedScenarioNames().map((name) => {
      try {
        return { name, description: this.shippedScenario(name)?.description };
      } catch {
        return { name };
      }
    });
    return { active: this.active.name, bindings, shipped };
  }

  /** The secrets of every API user the kept scenarios list. */
  secrets(): string[] {
    const kept = new Set([...this.live(), ...this.given.values()]);
    return [...kept].flatMap((sc) => [...(sc.apiUsers?.values() ?? [])].map((u) => u.secret));
  }

  sizes(): { givenScenarios: number; bindings: number; picks: number } {
    return { givenScenarios: this.given.size, bindings: this.bindings.size, picks: this.picks.size };
  }

  /** The registry as plain data, for a snapshot (`restore` takes it); the caller copies it. The shipped scenarios
   * compiled for picks are left out: a cache of files, compiled again when next picked. */
  state(): RegistryState {
    const scenarios: ScenarioInput[] = [];
    const kept = new Map<CompiledScenario, number>();
    const texts = new Map<ScenarioInput, number>();
    const add = (input: ScenarioInput) => {
      const i = scenarios.push(input) - 1;
      if (!texts.has(input)) texts.set(input, i);
      return i;
    };
    // A kept scenario by itself; a pick's by its text (a pick's scenario is a copy made for the pick).
    const of = (sc: CompiledScenario) => kept.get(sc) ?? kept.set(sc, add(sc.input)).get(sc)!;
    const runOf = (r: Running) => ({ scenario: of(r.sc), counts: [...r.counts] });
    const active = runOf(this.activeRun);
    const bindings = [...this.bindings].map(([k, r]): [string, RunningState] => [k, runOf(r)]);
    const given = [...this.given].map(([k, sc]): [string, number] => [k, of(sc)]);
    const picks = [...this.picks].map(([key, { base, run }]): RegistryState['picks'][number] => {
      const scenario = texts.get(run.sc.input) ?? add(run.sc.input);
      return [key, { scenario, counts: [...run.counts], stale: base !== this.baseOf(key) }];
    });
    return { scenarios, active, bindings, given, owners: [...this.owners], picks };
  }

  /** Stands where a registry made with the same options stood when it gave `state`. */
  restore(state: RegistryState): void {
    const scenarios = state.scenarios.map((input) => compileOrThrow(input, input.name));
    const runOf = (r: RunningState): Running => ({ sc: scenarios[r.scenario], counts: [...r.counts] });
    this.activeRun = runOf(state.active);
    this.bindings.clear();
    for (const [k, r] of state.bindings) this.bindings.set(k, runOf(r));
    this.given.clear();
    for (const [k, i] of state.given) this.given.set(k, scenarios[i]);
    this.owners.clear();
    for (const owner of state.owners) this.owners.add(owner);
    this.picks.clear();
    for (const [key, pick] of state.picks) {
      // A stale pick is never used again (the next request under its key picks afresh): any base stands for it.
      const base = (pick.stale ? undefined : this.baseOf(key)) ?? running(this.active);
      const run = { sc: this.pickOverlay(scenarios[pick.scenario], base.sc), counts: [...pick.counts], under: base };
      this.picks.set(key, { base, run });
    }
  }

  /** The run a pick under `key` (`<API user bound, or empty>\0<name>`) is made under now. */
  private baseOf(key: string): Running | undefined {
    const baseKey = key.slice(0, key.indexOf('\0'));
    return baseKey === '' ? this.activeRun : this.bindings.get(baseKey);
  }

  private picked(name: string, base: Running, baseKey: string): Running | undefined {
    const key = `${baseKey}\0${name}`;
    const known = this.picks.get(key);
    if (known?.base === base) return known.run;
    // A worker's own first, then everyone's, then a shipped one.
    const sc =
      (this.owners.has(baseKey) ? this.given.get(key) : undefined) ??
      this.given.get(`\0${name}`) ??
      this.shippedScenario(name);
    if (!sc) return undefined;
    const run = running(this.pickOverlay(sc, base.sc), base);
    this.picks.delete(key);
    this.picks.set(key, { base, run });
    // The oldest go first: a Map iterates in the order keys were set.
    let rules = [...this.picks.values()].reduce((n, p) => n + p.run.counts.length, 0);
    for (const [oldest, p] of this.picks) {
      if (this.picks.size <= MAX_PICKS && rules <= MAX_PICKED_RULES) break;
      if (oldest === key) continue;
      this.picks.delete(oldest);
      rules -= p.run.counts.length;
    }
    return run;
  }

  private shippedScenario(name: string): CompiledScenario | undefined {
    const file = this.shipped.has(name) ? undefined : findShippedScenario(name);
    if (file) this.shipped.set(name, loadScenarioFile(file));
    return this.shipped.get(name);
  }

  /** A picked scenario never grants: API users, auth mode and replay checks stay those of the one it runs under. */
  private pickOverlay(sc: CompiledScenario, under: CompiledScenario): CompiledScenario {
    const own = this.overlay(sc);
    return {
      ...own,
      apiUsers: under.apiUsers,
      auth: AUTH_STRICTNESS[own.auth] > AUTH_STRICTNESS[under.auth] ? own.auth : under.auth,
      replayNonces: own.replayNonces || under.replayNonces,
      replayTimestamps: own.replayTimestamps || under.replayTimestamps,
    };
  }

  /** A scenario to run beside the active one: same token, and the simulator's clock unless `ownClock`. */
  private overlay(sc: CompiledScenario, ownClock = false): CompiledScenario {
    const refuse = (path: string[], message: string) => new ScenarioError(sc.name, [{ path, message }]);
    if (sc.input.token !== undefined && sc.token !== this.token)
      throw refuse(['token'], `is ${sc.token}, but this simulator runs with token ${this.token}`);
    if (sc.frozenAt !== undefined && !ownClock)
      throw refuse(
        ['clock', 'frozenAt'],
        "sets the simulator's clock, so only the active scenario, or a claimed API user's (POST /__sim/api-users), may use it",
      );
    return sc.token === this.token ? sc : compileOrThrow({ ...sc.input, token: this.token }, sc.name);
  }

  /** Keeps a scenario given at run time by name, for all or its `owner`; past the bounds the oldest not live go. */
  private remember(sc: CompiledScenario, owner = ''): void {
    const named = `${owner}\0${sc.name}`;
    this.given.delete(named);
    this.given.set(named, sc);
    const live = this.live();
    let chars = weightOfAll(new Set([...live, ...this.given.values()]));
    for (const [key, kept] of this.given) {
      if (this.given.size <= MAX_GIVEN_SCENARIOS && chars <= MAX_KEPT_SCENARIO_CHARS) break;
      if (live.has(kept)) continue;
      this.given.delete(key);
      if (![...this.given.values()].includes(kept)) chars -= weight(kept);
    }
  }

  private live(): Set<CompiledScenario> {
    return new Set([this.active, ...[...this.bindings.values()].map((r) => r.sc)]);
  }

  private withPinned(sc: CompiledScenario): CompiledScenario {
    return Object.keys(this.pinned).length ? compileOrThrow({ ...sc.input, ...this.pinned }, sc.name) : sc;
  }
}
