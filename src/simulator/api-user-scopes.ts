import { argumentOnce, scenarioOnce } from '../contract/arguments.js';
import type { CompiledScenario } from '../scenario/compile.js';
import type { ScenarioRegistry, ScenarioSource } from '../scenario/registry.js';
import type { VirtualClock } from '../world/clock.js';
import type { Simulator } from './simulator.js';

/** The parts of the simulator an API user's own scenario starts afresh in, or tells of a new secret. */
type ScopedParts = Pick<Simulator, 'world' | 'requestJournal' | 'secrets' | 'path' | 'links'>;

/**
 * One API user's own scenario beside the active one: a binding, or an API user claimed for one parallel test worker
 * (docs/coverage-and-ci.md#parallel-workers-on-one-simulator).
 */
export class ApiUserScopes {
  constructor(
    private readonly sim: ScopedParts,
    private readonly registry: ScenarioRegistry,
  ) {}

  /** Runs a scenario for one API user's requests only; that API user's share of the scenario scope starts afresh. */
  bind(apiUser: string, source: ScenarioSource): CompiledScenario {
    // A worker's API user: the scenarios bound to it are its own, also for x-sim-scenario.
    const sc = this.registry.bind(apiUser, scenarioOnce(source, 'scenario'), this.sim.world.isClaimed(apiUser));
    this.startAfresh(apiUser, sc);
    this.sim.secrets.update();
    return sc;
  }

  /** Ends a binding; says whether there was one. */
  unbind(apiUser: string): boolean {
    const removed = this.registry.unbind(apiUser);
    if (removed) this.sim.secrets.update();
    return removed;
  }

  /** A new API user, running `scenario` (default: the active one) with a scope of its own; `url`: where to send. */
  claim(scenario: ScenarioSource | undefined): { apiUser: string; secret: string; scenario: string; url: string } {
    const { world, secrets } = this.sim;
    const { registry } = this;
    registry.checkRoom();
    const user = world.claim(registry.active);
    try {
      const sc = registry.bind(user.id, scenario === undefined ? undefined : scenarioOnce(scenario, 'scenario'), true);
      // Without a scenario of its own it runs the active one as it is now: on the simulator's clock as it stands.
      this.startAfresh(user.id, scenario === undefined ? undefined : sc);
      return { apiUser: user.id, secret: user.secret, scenario: sc.name, url: this.sim.links.base() };
    } catch (e) {
      world.release(user.id);
      throw e;
    } finally {
      secrets.update();
    }
  }

  /** Ends a claim: the API user is no longer known; its binding, challenges and replay memory go. */
  release(apiUser: string): boolean {
    const { world, requestJournal, secrets } = this.sim;
    if (typeof apiUser !== 'string' || !world.isClaimed(apiUser)) return false;
    this.registry.unbind(apiUser);
    world.release(apiUser);
    requestJournal.forgetStart(apiUser);
    secrets.update();
    return true;
  }

  /** Moves a claimed API user's own clock (the others' and the simulator's stay); returns its time. */
  advance(apiUser: string, by: unknown): number {
    return this.sim.world.advance(argumentOnce(by, 'by'), this.ownClock(apiUser));
  }

  /** Stops a claimed API user's own clock, at an instant or where it stands; returns its time. */
  freeze(apiUser: string, at: unknown): number {
    return this.sim.world.freeze(argumentOnce(at, 'at'), this.ownClock(apiUser));
  }

  /** Lets a claimed API user's own clock run again from where it stands; returns its time. */
  unfreeze(apiUser: string): number {
    return this.sim.world.unfreeze(this.ownClock(apiUser));
  }

  /** A claimed API user's own clock, made when first asked for (not for a move refused); 404 at once if unclaimed. */
  private ownClock(apiUser: unknown): () => VirtualClock {
    const id = argumentOnce(apiUser, 'apiUser') as string;
    this.sim.world.mustBeClaimed(id);
    return () => this.sim.world.ownClock(id, this.scenarioOf(id).offset);
  }

  /** Where a claimed API user's clock stands, as its requests read it, and whether it is stopped; 404 if unclaimed. */
  clock(apiUser: string): { now: number; frozen: boolean; offset: number } {
    const { world } = this.sim;
    apiUser = argumentOnce(apiUser, 'apiUser');
    world.mustBeClaimed(apiUser);
    const clock = world.clockOf(apiUser);
    const { offset } = this.scenarioOf(apiUser);
    return { now: clock.at(offset), frozen: clock.frozen, offset };
  }

  private scenarioOf(apiUser: string): CompiledScenario {
    return this.registry.boundTo(apiUser) ?? this.registry.active;
  }

  /** `sc`: the scenario it was given, whose `clock.frozenAt` stops a claimed API user's own clock. */
  private startAfresh(apiUser: string, sc: CompiledScenario | undefined): void {
    const { world } = this.sim;
    world.forgetApiUser(apiUser);
    // A worker's clock starts afresh with its scenario, as the simulator's does with the active one.
    if (world.isClaimed(apiUser)) world.startClock(apiUser, sc?.offset ?? 0, sc?.frozenAt);
    this.sim.requestJournal.startAfresh(apiUser, this.sim.path.answeredCount + 1);
  }
}
