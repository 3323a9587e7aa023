import type { PressAction } from '../scenario/accounts.js';

/** Every state a challenge can be in (for the control API's document). */
export const CHALLENGE_STATES = ['waiting', 'approved', 'verified', 'denied', 'expired', 'cancelled'] as const;
/** Where a challenge stands (docs/behaviour.md#challenges). */
export type ChallengeState = (typeof CHALLENGE_STATES)[number];

/**
 * Who took a step in a challenge's life (`scenario`: the person it scripts, `people:` or a magic address; `service`:
 * the user on the real service's phone, in proxy mode).
 */
export type Actor = 'client' | 'explorer' | 'phone' | 'control' | 'clock' | 'auto-verify' | 'scenario' | 'service';

export type { PressAction };

/** One step of a challenge's life; `pressed`: a scripted press too late, which changed nothing. */
export interface Step {
  state: ChallengeState;
  at: number;
  by: Actor;
  pressed?: PressAction;
}

/** A state as a step's words say it: the waiting challenge was sent. */
const done = (state: ChallengeState) => (state === 'waiting' ? 'sent' : state);
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

/** Everyone who can take a step in a challenge's life (for the control API's document). */
export const ACTOR_NAMES = Object.keys(BY) as Actor[];

/** A step as a person reads it: "approved by the user on the phone page". */
export function stepWords(step: { state: ChallengeState; by: Actor; pressed?: PressAction }): string {
  if (step.pressed) return `${step.pressed} pressed ${BY[step.by]}: nothing changed, already ${done(step.state)}`;
  return `${done(step.state)} ${BY[step.by]}`;
}
