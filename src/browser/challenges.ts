import { duration, isoClock } from '../http/html.js';
import type { ChallengeView } from '../http/control.js';
import { stepWords } from '../world/steps.js';
import { showClock, simulatorNow } from './clock.js';
import { $, flash } from './page.js';

/** The dashboard's challenges: the table the simulator renders, fetched again at each step of a challenge. */

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
      // The simulator's own fragment, every text in it escaped there (dashboard.ts).
      box.innerHTML = await r.text();
      tableAt = performance.now();
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

/** When the table on the page was fetched (the page's monotonic ms; the first came with the page). */
let tableAt = 0;
/** How far a worker's clock read in the table has run since (nothing when it is frozen). */
const sinceTable = (cell: HTMLElement) => (cell.dataset.frozen === 'true' ? 0 : performance.now() - tableAt);

/**
 * The time left of each waiting challenge, on its API user's clock (the simulator's, or a worker's own), and each
 * worker's time; a challenge that runs out is fetched as it now stands.
 */
export function countDown(): void {
  let ranOut = false;
  for (const cell of document.querySelectorAll<HTMLElement>(
    '#challenges td[data-expires], #challenges td[data-left]',
  )) {
    const { expires, left: leftThen } = cell.dataset;
    const left = expires ? Number(expires) - simulatorNow() : Number(leftThen) - sinceTable(cell);
    cell.textContent = duration(left);
    ranOut ||= left <= 0;
  }
  for (const cell of document.querySelectorAll<HTMLElement>('#workers td[data-time]')) {
    const at = Number(cell.dataset.time) + sinceTable(cell);
    cell.textContent = isoClock(at);
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
