import type { Finding } from '../run/finding-types.js';
import { $, el } from './page.js';

/** The dashboard's findings about the clients and the codes they were answered, for the run or the scenario. */

const TONE: Record<Finding['severity'], string> = { error: 'err', warning: 'warn', info: 'info' };

export async function refreshFindings(): Promise<void> {
  // The whole run (what a CI job is judged on, across every scenario loaded) or the current scenario.
  const scope = document.querySelector<HTMLInputElement>('input[name="scope"]:checked')?.value ?? 'run';
  const [r, c] = await Promise.all([fetch(`/__sim/findings?scope=${scope}`), fetch(`/__sim/coverage?scope=${scope}`)]);
  if (!r.ok || !c.ok) return;
  const { findings } = (await r.json()) as { findings: Finding[] };
  const { met, missing } = (await c.json()) as { met: number[]; missing: number[] };
  const where = scope === 'run' ? 'in the whole run' : 'in the current scenario';
  const which = met.length ? ` (${met.join(', ')})` : '';
  $('#coverage').textContent = `Codes answered ${where}: ${met.length} of ${met.length + missing.length}${which}.`;
  const box = $('#findings');
  if (!findings.length) return void box.replaceChildren(el('p', { class: 'muted', text: 'Nothing found yet.' }));
  const head = ['Severity', 'Finding', 'What it means and the fix'].map((text) => el('th', { text }));
  const rows = findings.map((f) => {
    const seen = `API user ${f.apiUser} · #${f.firstSeq}${f.lastSeq !== f.firstSeq ? ` to #${f.lastSeq}` : ''} · ${f.count}×`;
    return el(
      'tr',
      { 'data-finding': f.id },
      el('td', {}, el('span', { class: `pill ${TONE[f.severity]}`, text: f.severity })),
      el('td', {}, el('code', { text: f.id }), el('div', { class: 'muted small', text: seen })),
      el('td', { class: 'small', text: f.explanation + (f.detail ? ` (${f.detail})` : '') }),
    );
  });
  box.replaceChildren(el('table', {}, el('thead', {}, el('tr', {}, ...head)), el('tbody', {}, ...rows)));
}

export function refreshFindingsOnScopeChange(): void {
  for (const input of document.querySelectorAll<HTMLInputElement>('input[name="scope"]'))
    input.addEventListener('change', () => void refreshFindings());
}

let findingsTimer: ReturnType<typeof setTimeout> | undefined;
/** Requests come in bursts: the findings are fetched once for a burst. */
export function refreshFindingsSoon(): void {
  findingsTimer ??= setTimeout(() => {
    findingsTimer = undefined;
    void refreshFindings();
  }, 200);
}
