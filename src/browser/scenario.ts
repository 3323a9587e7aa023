import type { scenarioCardView } from '../http/control.js';
import { magicWords } from '../http/html.js';
import { refreshChallenges } from './challenges.js';
import { refreshFindingsSoon } from './findings.js';
import { $, el } from './page.js';

/** The Scenario card and the explorer's API users and e-mails, following the scenario a test (or --watch) loads. */

/** Shows the scenario now in force; a load resets the world, so the challenges and findings are read again. */
export function showScenario(s: ReturnType<typeof scenarioCardView>): void {
  $('#active-scenario').textContent = s.name;
  $('#scenario-description').textContent = s.description ?? 'no description';
  // Its people and the magic addresses: text, whatever a scenario wrote.
  $('#people').replaceChildren(...s.people.map((line) => el('li', { text: line })));
  const magic = $('#magic-addresses');
  magic.textContent = s.magicAddresses ? 'on' : 'off';
  magic.className = `pill ${s.magicAddresses ? 'ok' : 'warn'}`;
  $('#magic-words').textContent = magicWords(s.magicAddresses);
  // The picker shows it: a shipped one selected, any other as the first entry, "(loaded)".
  const pick = $<HTMLSelectElement>('#scenario-pick');
  for (const o of [...pick.options]) if (o.disabled) o.remove();
  const shipped = [...pick.options].find((o) => o.value === s.name);
  if (shipped) shipped.selected = true;
  else {
    pick.prepend(el('option', { text: `${s.name} (loaded)`, disabled: '' }));
    pick.selectedIndex = 0;
  }
  const apiUser = $<HTMLSelectElement>('#explorer select[name=apiUser]');
  const chosen = apiUser.value;
  apiUser.replaceChildren(...s.apiUsers.map((id) => el('option', { text: id })));
  if (s.apiUsers.includes(chosen)) apiUser.value = chosen;
  // The accounts it lists by name are suggested first in the user's e-mail field.
  const emails = $('#emails');
  const suggested = new Set([...emails.querySelectorAll('option')].map((o) => o.value));
  emails.prepend(...s.accounts.filter((a) => !suggested.has(a)).map((a) => el('option', { value: a })));
  void refreshChallenges();
  refreshFindingsSoon();
}
