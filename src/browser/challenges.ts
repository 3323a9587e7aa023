import { duration } from '../http/html.js';
import { stepWords, type Actor, type ChallengeState, type PressAction } from '../world/steps.js';
import { showClock, simulatorNow } from './clock.js';
import { $, flash } from './page.js';

/** The dashboard's challenges: the table the simulator renders, fetched again at each step of a challenge. */

/** A challenge as the event stream's `challenge` event carries it (the control API's view). */
export interface ChallengeView {
  id: string;
  user: string;
  state: ChallengeState;
  trail: { state: ChallengeState; at: string; by: Actor; pressed?: PressAction }[];
}

let fetching: Promise<void> | undefined;
let again = false;
/** Fetches the table; a step that comes while it is on its way fetches it once more after. */
export function refreshChallenges(): Promise<void> {
  if (fetching) {
    again = true;
    return fetching;
  }
  fetching = (async () => {
    const askedAt = performance.now();
    const r = await fetch('/__sim/ui/challenges');
    if (r.ok) {
      const box = $('#challenges');
      box.innerHTML = await r.text();
      // The time left counts from the simulator's clock as the table was made.
      const clock = box.querySelector<HTMLElement>('[data-now]')!.dataset;
      showClock({ now: Number(clock.now), frozen: clock.frozen === 'true' }, askedAt);
    }
    countDown();
  })().finally(() => {
    fetching = undefined;
    if (again) void refreshChallenges();
    again = false;
  });
  return fetching;
}

/** The time left of each waiting challenge on the simulator's clock; one that runs out is fetched as it now stands. */
export function countDown(): void {
  let ranOut = false;
  for (const cell of document.querySelectorAll<HTMLElement>('#challenges td[data-expires]')) {
    const left = Number(cell.dataset.expires) - simulatorNow();
    cell.textContent = duration(left);
    ranOut ||= left <= 0;
  }
  if (ranOut) void refreshChallenges();
}

export function challengeStep(c: ChallengeView): void {
  const step = c.trail[c.trail.length - 1];
  // What this page did itself it already says; what someone else did is flashed.
  if (step && step.by !== 'control' && step.by !== 'explorer' && step.state !== 'waiting')
    flash(`Challenge for ${c.user} ${stepWords(step)}`);
  void refreshChallenges();
}
