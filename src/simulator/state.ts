import type { JournalState } from '../run/journal.js';
import type { RunState } from '../run/run-record.js';
import type { RegistryState, ScenarioRegistry } from '../scenario/registry.js';
import type { WorldState } from '../world/world.js';
import type { Simulator } from './simulator.js';

/**
 * Everything a simulator's future answers, reports and control reads depend on, as plain data that JSON keeps whole
 * (a snapshot: `Simulator.state`, `Simulator.restore`). Each part gives and takes its own piece. Per machine, and so
 * left out: the doctor's per-second budget and the explorer's marks of its own nonces (doctor/doctor.ts), the timers of
 * delayed requests and of scripted presses (set again on restore), the connections a fault holds, the watchers.
 */
export interface SimulatorState {
  world: WorldState;
  scenarios: RegistryState;
  journal: JournalState;
  run: RunState;
  path: { seq: number };
}

type Parts = Pick<Simulator, 'world' | 'requestJournal' | 'run' | 'path' | 'secrets'>;

/** A copy: the snapshot shares nothing with the simulator it was taken of. */
export function stateOf(sim: Parts, registry: ScenarioRegistry): SimulatorState {
  const { world, requestJournal: journal, run, path } = sim;
  const state = { world: world.state(), scenarios: registry.state(), journal: journal.state(), run: run.state() };
  return structuredClone({ ...state, path: path.state() });
}

/** A simulator made with the same options stands where the one that gave `state` stood (nothing of `state` shared). */
export function restoreState(sim: Parts, registry: ScenarioRegistry, state: SimulatorState): void {
  const s = structuredClone(state);
  sim.world.restore(s.world);
  registry.restore(s.scenarios);
  sim.requestJournal.restore(s.journal);
  sim.run.restore(s.run);
  sim.path.restore(s.path);
  // The secrets held follow from the rest: the default API user's, the scenarios', the claimed API users'.
  sim.secrets.update();
}
