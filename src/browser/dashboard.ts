import { countDown, refreshChallenges } from './challenges.js';
import type { ClockView } from '../http/control.js';
import { showClock } from './clock.js';
import { explore, explorerField, setExplorerField, showPhoneLink } from './explorer.js';
import { refreshFindings, refreshFindingsOnScopeChange } from './findings.js';
import { followEvents } from './live-events.js';
import { $, callControlApi, flash } from './page.js';
import { clearLog } from './request-log.js';

// The dashboard's script (`/__sim/ui`): what a client sent goes in as text (textContent), never as HTML.

/** A button of the page was clicked: explore, act on a challenge, move the clock, switch the scenario, ... */
async function onClick(b: HTMLButtonElement): Promise<void> {
  const data = b.dataset;
  if (data.kind) return explore(data.kind);
  if (data.act) {
    const path = `/__sim/challenges/${encodeURIComponent(data.id!)}/${data.act}`;
    const c = await callControlApi<{ id: string; state: string; authCode?: string }>('POST', path);
    flash(
      `Challenge ${c.state} by a control call (this page)${c.authCode ? `: the user was shown auth code ${c.authCode}` : ''}`,
    );
    if (c.authCode && explorerField('challengeId').value === c.id) setExplorerField('authCode', c.authCode);
    return refreshChallenges();
  }
  if (data.use) {
    setExplorerField('challengeId', data.use);
    setExplorerField('user', data.user ?? '');
    setExplorerField('authCode', data.code ?? '');
    return flash('Challenge put into the explorer');
  }
  if (data.clock) {
    const by = data.by ? { by: data.by } : undefined;
    showClock(await callControlApi<ClockView>('POST', `/__sim/clock/${data.clock}`, by));
    return refreshChallenges();
  }
  if (b.id === 'switch') {
    await callControlApi('POST', '/__sim/scenario', { name: $<HTMLSelectElement>('#scenario-pick').value });
    return location.reload();
  }
  if (b.id === 'reset') {
    if (!confirm('Forget every challenge, the log and the replay memory, and put the clock back?')) return;
    await callControlApi('POST', '/__sim/reset');
    return location.reload();
  }
  if (b.id === 'clear-log') {
    await callControlApi('DELETE', '/__sim/journal');
    clearLog();
  }
}

refreshFindingsOnScopeChange();
followEvents();
explorerField('challengeId').addEventListener('input', showPhoneLink);
document.addEventListener('click', (ev) => {
  const b = (ev.target as Element).closest('button');
  if (b) onClick(b).catch((err: Error) => flash(err.message, true));
});
void refreshFindings();
let ticks = 0;
setInterval(() => {
  showClock();
  countDown();
  // A worker claimed, or its clock moved, sends no event: the table (with the workers' clocks) is read every 5 s.
  if (++ticks % 5 === 0) void refreshChallenges();
}, 1000);
