import { countDown, refreshChallenges } from './challenges.js';
import { showClock, type ClockReading } from './clock.js';
import { explore, explorerField, setExplorerField, showPhoneLink } from './explorer.js';
import { refreshFindings, refreshFindingsOnScopeChange } from './findings.js';
import { followEvents } from './live-events.js';
import { $, callControlApi, flash } from './page.js';
import { clearLog } from './request-log.js';

/**
 * The dashboard's script (`/__sim/ui`): the live request log and the challenges, both following the event stream
 * (`/__sim/events`: a `request` event per answered request, a `challenge` event per step of a challenge), the time
 * left of each waiting challenge counted down on the simulator's clock, the explorer and the buttons. Everything from
 * the journal or a client is put in the page as text (textContent), never as HTML.
 */

/** A button of the page was clicked: explore, act on a challenge, move the clock, switch the scenario, ... */
async function onClick(ev: MouseEvent): Promise<void> {
  const b = (ev.target as Element).closest('button');
  if (!b) return;
  const data = b.dataset;
  try {
    if (data.kind) return void (await explore(data.kind));
    if (data.act) {
      const c = await callControlApi<{ id: string; state: string; authCode?: string }>(
        'POST',
        `/__sim/challenges/${encodeURIComponent(data.id!)}/${data.act}`,
      );
      const shown = c.authCode ? `: the user was shown auth code ${c.authCode}` : '';
      flash(`Challenge ${c.state} by a control call (this page)${shown}`);
      if (c.authCode && explorerField('challengeId').value === c.id) setExplorerField('authCode', c.authCode);
      return void (await refreshChallenges());
    }
    if (data.use) {
      setExplorerField('challengeId', data.use);
      setExplorerField('user', data.user ?? '');
      setExplorerField('authCode', data.code ?? '');
      return void flash('Challenge put into the explorer');
    }
    if (data.clock) {
      showClock(
        await callControlApi<ClockReading>('POST', `/__sim/clock/${data.clock}`, data.by ? { by: data.by } : undefined),
      );
      return void (await refreshChallenges());
    }
    if (b.id === 'switch') {
      await callControlApi('POST', '/__sim/scenario', { name: $<HTMLSelectElement>('#scenario-pick').value });
      return void location.reload();
    }
    if (b.id === 'reset') {
      if (!confirm('Forget every challenge, the log and the replay memory, and put the clock back?')) return;
      await callControlApi('POST', '/__sim/reset');
      return void location.reload();
    }
    if (b.id === 'clear-log') {
      await callControlApi('DELETE', '/__sim/journal');
      clearLog();
    }
  } catch (err) {
    flash((err as Error).message, true);
  }
}

refreshFindingsOnScopeChange();
followEvents();
explorerField('challengeId').addEventListener('input', showPhoneLink);
document.addEventListener('click', (ev) => void onClick(ev));

void refreshFindings();
setInterval(() => {
  showClock();
  countDown();
}, 1000);
