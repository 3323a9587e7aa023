import { ControlError } from '../contract/errors.js';
import type { ApiRequest } from '../request/context.js';
import type { ScenarioSource } from '../scenario/registry.js';
import type { PressAction } from '../world/steps.js';
import type { Simulator } from './simulator.js';

/**
 * The control operations that change the simulated service, by name: what the control API and the pages call through
 * `change`, and what every replica sharing a store applies in the same order (replicas.ts).
 */
export function changesOf(sim: Simulator) {
  return {
    /** Makes a scenario the active one (Simulator.loadScenario). */
    loadScenario: (source: ScenarioSource) => sim.loadScenario(source),
    /** Runs a scenario for one API user's requests (Simulator.bindScenario). */
    bindScenario: (apiUser: string, source: ScenarioSource) => sim.bindScenario(apiUser, source),
    /** Ends a binding (Simulator.unbindScenario). */
    unbindScenario: (apiUser: string) => sim.unbindScenario(apiUser),
    /** Claims an API user for one parallel test worker (Simulator.claimApiUser). */
    claimApiUser: (scenario?: ScenarioSource) => sim.claimApiUser(scenario),
    /** Ends a claim (Simulator.releaseApiUser). */
    releaseApiUser: (apiUser: string) => sim.releaseApiUser(apiUser),
    /** Starts the scenario's scope afresh (Simulator.reset). */
    reset: () => sim.reset(),
    /** Starts a new run (Simulator.newRun). */
    newRun: () => sim.newRun(),
    /** The user approves a waiting challenge (Simulator.approve). */
    approve: (id: string, authCode?: string) => sim.approve(id, authCode),
    /** The user denies a waiting challenge (Simulator.deny). */
    deny: (id: string) => sim.deny(id),
    /** A waiting challenge expires now (Simulator.expire). */
    expire: (id: string) => sim.expire(id),
    /** The user's own answer, on the phone page. */
    answerOnPhone: (id: string, action: PressAction) =>
      action === 'approve'
        ? sim.world.challenges.approve(id, undefined, undefined, 'phone')
        : sim.world.challenges.deny(id, undefined, 'phone'),
    /** Moves the simulator's clock (Simulator.advance). */
    advance: (by: number | string) => sim.advance(by),
    /** Stops the simulator's clock (Simulator.freeze). */
    freeze: (at?: number | string) => sim.freeze(at),
    /** Lets the simulator's clock run again (Simulator.unfreeze). */
    unfreeze: () => sim.unfreeze(),
    /** Moves a claimed API user's own clock. */
    advanceApiUserClock: (apiUser: string, by: unknown) => sim.apiUserClocks.advance(apiUser, by),
    /** Stops a claimed API user's own clock. */
    freezeApiUserClock: (apiUser: string, at: unknown) => sim.apiUserClocks.freeze(apiUser, at),
    /** Lets a claimed API user's own clock run again. */
    unfreezeApiUserClock: (apiUser: string) => sim.apiUserClocks.unfreeze(apiUser),
    /** Forgets the journal (Simulator.clearJournal). */
    clearJournal: () => sim.clearJournal(),
  };
}

export type Changes = ReturnType<typeof changesOf>;
type Change = (...args: unknown[]) => unknown;

/** A control change: made here, or, sharing a store, on every replica in the log's order (what it answers here). */
export async function change<K extends keyof Changes>(
  sim: Simulator,
  op: K,
  ...args: Parameters<Changes[K]>
): Promise<ReturnType<Changes[K]>> {
  const made = sim.replicas ? sim.replicas.change(op, args) : (changesOf(sim)[op] as Change)(...args);
  return (await made) as ReturnType<Changes[K]>;
}

/** Applies a change read from the store's log: a request of the simulated API, or a control change. */
export function applyChange(
  sim: Simulator,
  change: { request?: ApiRequest; sentItself?: string; op?: string; args?: unknown[] },
): unknown {
  if (change.sentItself !== undefined) sim.doctor.sendsItself(change.sentItself);
  if (change.request) return sim.path.answerAtOnce(change.request, true);
  const { op } = change;
  const changes = changesOf(sim);
  if (typeof op !== 'string' || !Object.hasOwn(changes, op) || !Array.isArray(change.args))
    throw new ControlError(400, 'the store holds a change this version of mfa-sim does not know');
  // JSON keeps an argument left out as null: it is left out again.
  const args = change.args.map((a: unknown) => (a === null ? undefined : a));
  return (changes[op as keyof Changes] as Change)(...args);
}
