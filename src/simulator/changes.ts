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
    loadScenario: (source: ScenarioSource) => sim.loadScenario(source),
    bindScenario: (apiUser: string, source: ScenarioSource) => sim.bindScenario(apiUser, source),
    unbindScenario: (apiUser: string) => sim.unbindScenario(apiUser),
    claimApiUser: (scenario?: ScenarioSource) => sim.claimApiUser(scenario),
    releaseApiUser: (apiUser: string) => sim.releaseApiUser(apiUser),
    reset: () => sim.reset(),
    newRun: () => sim.newRun(),
    approve: (id: string, authCode?: string) => sim.approve(id, authCode),
    deny: (id: string) => sim.deny(id),
    expire: (id: string) => sim.expire(id),
    /** The user's own answer, on the phone page. */
    answerOnPhone: (id: string, action: PressAction) =>
      action === 'approve'
        ? sim.world.challenges.approve(id, undefined, undefined, 'phone')
        : sim.world.challenges.deny(id, undefined, 'phone'),
    advance: (by: number | string) => sim.advance(by),
    freeze: (at?: number | string) => sim.freeze(at),
    unfreeze: () => sim.unfreeze(),
    advanceApiUserClock: (apiUser: string, by: unknown) => sim.apiUserClocks.advance(apiUser, by),
    freezeApiUserClock: (apiUser: string, at: unknown) => sim.apiUserClocks.freeze(apiUser, at),
    unfreezeApiUserClock: (apiUser: string) => sim.apiUserClocks.unfreeze(apiUser),
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
