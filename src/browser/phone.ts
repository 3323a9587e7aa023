import { duration } from '../http/html.js';

/**
 * The phone page's script (`/phone/<id>`): counts the time left down while the simulator's clock runs, and reloads
 * when it is up, to show the expiry. The page works without it (plain forms).
 */

const left = document.getElementById('left');
if (left && left.dataset.frozen !== 'true') {
  const end = Date.now() + Number(left.dataset.ms);
  const tick = () => {
    const ms = Math.max(0, end - Date.now());
    left.textContent = duration(ms);
    if (ms <= 0) location.reload();
    // On the next whole second of what is left, so the display turns with it.
    else setTimeout(tick, (ms % 1000 || 1000) + 5);
  };
  tick();
}
