import type { ApiRequest } from '../request/context.js';
import { findShippedScenario, shippedScenarioNames } from './catalog.js';
import type { CompiledScenario } from './compile.js';
import { ControlError, ScenarioError } from '../errors.js';
import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import { compileOrThrow, loadScenarioFile } from './load.js';
import { running, type Running } from './rules.js';
import type { ScenarioInput } from './schema.js';
import { resolveScenario, type ScenarioSource } from './sources.js';

export type { ScenarioSource } from './sources.js';

/**
 * The scenarios a simulator runs (active, bound, picked by header, given at run time), which one a request runs
 * under, and their bounds.
 */

/** The header that picks a scenario for one request. */
export const SCENARIO_HEADER = 'x-sim-scenario';
/**
 * Scenarios given at run time (loaded or bound) are kept by name for x-sim-scenario, at most this many besides the live
 * ones.
 */
export const MAX_GIVEN_SCENARIOS = 64;
/** Scenarios bound to API users at once. */
export const MAX_BINDINGS = 256;

const AUTH_STRICTNESS = { off: 0, log: 1, verify: 2 } as const;

/**
 * The scenarios a simulator runs: the active one, those bound to one API user, those a request picks by header,
 * and those given at run time (kept by name so a request can pick them). It decides which scenario a request runs
 * under, and keeps every one of these bounded.
 */
export class ScenarioRegistry {
  private activeRun: Running;
  private readonly bindings = new Map<string, Running>();
  private readonly given = new Map<string, CompiledScenario>();
  /**
   * Scenarios picked by header, per scenario they are picked under (a Running replaced on reset takes its picks along).
   */
  private readonly picks = new WeakMap<Running, Map<string, Running>>();

  /** `pinned`: scenario keys given as options (flags), kept when another scenario is loaded. */
  constructor(
    initial: CompiledScenario,
    private readonly pinned: Partial<ScenarioInput>,
  ) {
    this.activeRun = running(initial);
  }

  /** The scenario in force for requests that are not bound or picked otherwise. */
  get active(): CompiledScenario {
    return this.activeRun.sc;
  }

  /** The identifier token in force (the active scenario's). */
  get token(): string {
    return this.activeRun.sc.token;
  }

  /** Which scenario a request runs under: picked by header, bound to its API user, or the active one. */
  runningFor(req: ApiRequest): Running | { error: string } {
    let base = this.activeRun;
    if (this.bindings.size) {
      const id = req.headers[this.activeRun.sc.names.apiUser];
      const bound = typeof id === 'string' ? this.bindings.get(id) : undefined;
      if (bound) base = bound;
    }
    const pick = req.headers[SCENARIO_HEADER];
    if (typeof pick !== 'string' || pick === '') return base;
    try {
      return this.picked(pick, base) ?? { error: `${SCENARIO_HEADER}: no scenario named \`${pick}\`` };
    } catch (e) {
      if (e instanceof ScenarioError) return { error: `${SCENARIO_HEADER}: scenario \`${pick}\` cannot be picked: ${e.message}` };
      throw e;
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

  /**
   * Runs a scenario for one API user's requests only, beside the active one; other API users never see its rules.
   * Without a source, the active scenario as it is now, with rule counts of its own.
   */
  bind(apiUser: string, source?: ScenarioSource): CompiledScenario {
    if (typeof apiUser !== 'string' || !API_USER_ID.test(apiUser)) throw new ControlError(400, `an API user id ${API_USER_ID_RULE}`);
    this.checkRoom(apiUser);
    const sc = source === undefined ? this.active : this.overlay(resolveScenario(source));
    this.bindings.set(apiUser, running(sc));
    this.remember(sc);
    return sc;
  }

  /** Refuses a new binding past MAX_BINDINGS (a claimed API user holds one). */
  checkRoom(apiUser?: string): void {
    if ((apiUser === undefined || !this.bindings.has(apiUser)) && this.bindings.size >= MAX_BINDINGS) {
      throw new ControlError(400, `at most ${MAX_BINDINGS} scenarios can be bound at once: end one first (DELETE /__sim/bindings/<apiUser>; a claimed API user holds one until DELETE /__sim/api-users/<apiUser>)`);
    }
  }

  /** Ends a binding; says whether there was one. */
  unbind(apiUser: string): boolean {
    return this.bindings.delete(apiUser);
  }

  /**
   * Every rule count starts again (fresh runs of the active and bound scenarios, and with them their picks), and
   * the scenarios given earlier that are neither active nor bound are forgotten.
   */
  restart(): void {
    this.activeRun = running(this.activeRun.sc);
    for (const [k, r] of this.bindings) this.bindings.set(k, running(r.sc));
    const live = this.live();
    for (const [name, sc] of this.given) if (!live.has(sc)) this.given.delete(name);
  }

  /** The active scenario, the bindings, and the shipped scenarios. */
  list(): { active: string; bindings: Record<string, string>; shipped: { name: string; description?: string }[] } {
    const bindings: Record<string, string> = {};
    for (const [k, r] of this.bindings) bindings[k] = r.sc.name;
    const shipped = shippedScenarioNames().map((name) => {
      try {
        return { name, description: loadScenarioFile(findShippedScenario(name)!).description };
      } catch {
        return { name };
      }
    });
    return { active: this.active.name, bindings, shipped };
  }

  /** The secrets of every API user the kept scenarios list: what the simulator holds besides its default API user's. */
  secrets(): string[] {
    const out: string[] = [];
    for (const sc of new Set([this.active, ...[...this.bindings.values()].map((r) => r.sc), ...this.given.values()])) {
      for (const u of sc.apiUsers?.values() ?? []) out.push(u.secret);
    }
    return out;
  }

  /** For tests of bounds. */
  sizes(): { givenScenarios: number; bindings: number } {
    return { givenScenarios: this.given.size, bindings: this.bindings.size };
  }

  private picked(name: string, base: Running): Running | undefined {
    let picks = this.picks.get(base);
    const known = picks?.get(name);
    if (known) return known;
    // A scenario this simulator was given (loaded or bound) by that name, else a shipped one.
    const given = this.given.get(name);
    const file = given ? undefined : findShippedScenario(name);
    if (!given && !file) return undefined;
    const r = running(this.pickOverlay(given ?? loadScenarioFile(file!), base.sc), base);
    if (!picks) this.picks.set(base, (picks = new Map<string, Running>()));
    picks.set(name, r);
    return r;
  }

  /**
   * A scenario picked by a request header changes the rules and how the world behaves (accounts, strictness, its
   * clock offset), but never grants: API users and their secrets, the authentication mode and the replay checks
   * stay those of the scenario the request would otherwise run under, and its drift window is checked too.
   */
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

  /** Compiles a scenario to run beside the active one: same token and clock, API users added to the simulator's. */
  private overlay(sc: CompiledScenario): CompiledScenario {
    if (sc.input.token !== undefined && sc.token !== this.token) {
      throw new ScenarioError(sc.name, [{ path: ['token'], message: `is ${sc.token}, but this simulator runs with token ${this.token}` }]);
    }
    if (sc.frozenAt !== undefined) {
      throw new ScenarioError(sc.name, [{ path: ['clock', 'frozenAt'], message: "sets the simulator's clock, so only the active scenario may use it" }]);
    }
    return sc.token === this.token ? sc : compileOrThrow({ ...sc.input, token: this.token }, sc.name);
  }

  /**
   * Keeps a scenario given at run time by its name; past MAX_GIVEN_SCENARIOS, the oldest neither active nor bound is
   * forgotten.
   */
  private remember(sc: CompiledScenario): void {
    this.given.delete(sc.name);
    this.given.set(sc.name, sc);
    if (this.given.size <= MAX_GIVEN_SCENARIOS) return;
    const live = this.live();
    for (const [name, kept] of this.given) {
      if (this.given.size <= MAX_GIVEN_SCENARIOS) break;
      if (!live.has(kept)) this.given.delete(name);
    }
  }

  /** The scenarios requests run under now: the active one and the bound ones. */
  private live(): Set<CompiledScenario> {
    return new Set([this.active, ...[...this.bindings.values()].map((r) => r.sc)]);
  }

  /** Keeps the token, strictness and response style given as options (flags) across scenario loads. */
  private withPinned(sc: CompiledScenario): CompiledScenario {
    if (Object.keys(this.pinned).length === 0) return sc;
    return compileOrThrow({ ...sc.input, ...this.pinned }, sc.name);
  }
}
