import type { ClockView } from '../http/control.js';
import { isoClock } from '../http/html.js';
import { $ } from './page.js';

/** The simulator's clock, as the dashboard follows it between the times it reads it. */

const clockEl = $('#clock');
let clockNow = Number(clockEl.dataset.now);
// The page was rendered at about the time its navigation started.
let clockAt = performance.timeOrigin;
let frozen = clockEl.dataset.frozen === 'true';
export const simulatorNow = () => (frozen ? clockNow : clockNow + Date.now() - clockAt);
/** When the reading on the page was asked for (the page's monotonic ms). */
let readingAskedAt = 0;

/** Shows the clock; a new reading is followed from now on, unless it was asked for before the one on the page. */
export function showClock(c?: Pick<ClockView, 'now' | 'frozen'>, askedAt = performance.now()): void {
  if (c && askedAt >= readingAskedAt) {
    [readingAskedAt, clockNow, clockAt, frozen] = [askedAt, c.now, Date.now(), c.frozen];
    const s = $('#clock-state');
    s.textContent = frozen ? 'frozen' : 'running';
    s.className = `pill ${frozen ? 'warn' : 'ok'}`;
  }
  clockEl.textContent = isoClock(simulatorNow());
}
