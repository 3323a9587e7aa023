import type { JournalEntry } from '../run/answered.js';
import { challengeStep, refreshChallenges } from './challenges.js';
import { showClock } from './clock.js';
import { refreshFindingsSoon } from './findings.js';
import { $, callControlApi, config, flash } from './page.js';
import { addToLog, clearLog } from './request-log.js';
import { showScenario } from './scenario.js';

// The event stream the dashboard follows (`/__sim/events`).

let ready = false;
let buffered: JournalEntry[] = [];

export function followEvents(): void {
  const live = $('#live');
  const events = new EventSource('/__sim/events');
  const on = <T>(event: string, show: (value: T) => void) =>
    events.addEventListener(event, (ev) => show(JSON.parse((ev as MessageEvent<string>).data) as T));
  on<JournalEntry>('request', (e) => {
    if (ready) addToLog(e);
    else buffered.push(e);
    refreshFindingsSoon();
  });
  on('challenge', challengeStep);
  on('clock', showClock);
  on('scenario', showScenario);
  events.onerror = () => {
    live.textContent = 'reconnecting';
    live.className = 'pill warn';
    ready = false;
  };
  events.onopen = async () => {
    live.textContent = 'live';
    live.className = 'pill ok';
    ready = false;
    buffered = [];
    try {
      const list = await callControlApi<JournalEntry[]>('GET', `/__sim/journal?limit=${config.logRows}`);
      clearLog();
      const seen = new Set(list.map((e) => e.seq));
      for (const e of [...list.reverse(), ...buffered.filter((b) => !seen.has(b.seq))]) addToLog(e);
    } catch (err) {
      flash(`Could not read the journal: ${(err as Error).message}`, true);
    }
    ready = true;
    buffered = [];
    // Steps missed while the stream was away.
    void refreshChallenges();
  };
}
