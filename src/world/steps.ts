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
 * the clock, or auto-verify.
 */
export type Actor = 'client' | 'explorer' | 'phone' | 'control' | 'clock' | 'auto-verify';

/** One step of a challenge's life: the state it reached, when (simulator time) and by whom. */
export interface Step {
  state: ChallengeState;
  at: number;
  by: Actor;
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
};

/** Every state a challenge can be in (for the control API's document). */
export const CHALLENGE_STATES = Object.keys(DONE) as ChallengeState[];
/** Everyone who can take a step in a challenge's life (for the control API's document). */
export const ACTOR_NAMES = Object.keys(BY) as Actor[];

/** A step as a person reads it: "approved by the user on the phone page". */
export function stepWords(step: { state: ChallengeState; by: Actor }): string {
  return `${DONE[step.state]} ${BY[step.by]}`;
}
