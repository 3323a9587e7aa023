import { duration } from '../http/html.js';

// The phone page's script (`/phone/<id>`).

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
