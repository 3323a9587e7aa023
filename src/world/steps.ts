import type { PressAction } from '../scenario/person-scripts.js';
/**
 * The steps of a challenge's life: the states it goes through, who takes each step, and how a person reads one. Kept
 * apart from the challenges themselves so that the dashboard's browser script words a step as the page does.
 */

/**
 * Where a challenge stands (docs/behaviour.md#challenges). `approved`: the user said yes; `verified`: the client then
 * verified it.
 */
export type ChallengeState = 'waiting' | 'approved' | 'verified' | 'denied' | 'expired' | 'cancelled';

/**
 * Who took a step in a challenge's life: a client's request, the dashboard's explorer (a request the simulator sent
 * itself), the user on the phone page, a control call (the control API, the dashboard's buttons, the in-process API),
 * the clock, auto-verify, or the scenario (the person it scripts: `people:`, or a magic address).
 */
export type Actor = 'client' | 'explorer' | 'phone' | 'control' | 'clock' | 'auto-verify' | 'scenario' | 'service';

export type { PressAction };

/**
 * One step of a challenge's life: the state it reached, when (simulator time) and by whom. `pressed`: a scripted press
 * on a challenge that had already ended; it changed nothing (the state is where the challenge stands), as the phone
 * page says "Nothing changed" to a person who presses too late.
 */
export interface Step {
  state: ChallengeState;
  at: number;
  by: Actor;
  pressed?: PressAction;
}

const DONE: Record<ChallengeState, string> = {
  waiting: 'sent',
  approved: 'approved',
  verified: 'verified',
  denied: 'denied',
  expired: 'expired',
  cancelled: 'cancelled',
};
const BY: Record<Actor, string> = {
  client: 'by the client',
  explorer: 'by the explorer',
  phone: 'by the user on the phone page',
  control: 'by a control call',
  clock: 'by the clock',
  'auto-verify': 'by auto-verify',
  scenario: 'by the scenario (a scripted person)',
  service: "by the user on the real service's phone (proxy mode)",
};

/** Every state a challenge can be in (for the control API's document). */
export const CHALLENGE_STATES = Object.keys(DONE) as ChallengeState[];
/** Everyone who can take a step in a challenge's life (for the control API's document). */
export const ACTOR_NAMES = Object.keys(BY) as Actor[];

/** A step as a person reads it: "approved by the user on the phone page". */
export function stepWords(step: { state: ChallengeState; by: Actor; pressed?: PressAction }): string {
  if (step.pressed) return `${step.pressed} pressed ${BY[step.by]}: nothing changed, already ${DONE[step.state]}`;
  return `${DONE[step.state]} ${BY[step.by]}`;
}
