import type { JournalEntry } from '../observers/answered.js';
import { challengeStep, refreshChallenges, type ChallengeView } from './challenges.js';
import { showClock, type ClockReading } from './clock.js';
import { refreshFindingsSoon } from './findings.js';
import { showScenario, type ScenarioCard } from './scenario.js';
import { $, callControlApi, config, flash } from './page.js';
import { addToLog, clearLog } from './request-log.js';

/**
 * The event stream the dashboard follows (`/__sim/events`): a `request` event per answered request, a `challenge`
 * event per step of a challenge, a `clock` event per move of the simulator's clock (by a test, a scenario, this page),
 * a `scenario` event per scenario made active (by a test, --watch, this page).
 */

let ready = false;
let buffered: JournalEntry[] = [];

export function followEvents(): void {
  const live = $('#live');
  const events = new EventSource('/__sim/events');
  events.addEventListener('request', (ev) => {
    const e = JSON.parse((ev as MessageEvent<string>).data) as JournalEntry;
    if (ready) addToLog(e);
    else buffered.push(e);
    refreshFindingsSoon();
  });
  events.addEventListener('challenge', (ev) =>
    challengeStep(JSON.parse((ev as MessageEvent<string>).data) as ChallengeView),
  );
  events.addEventListener('clock', (ev) => showClock(JSON.parse((ev as MessageEvent<string>).data) as ClockReading));
  events.addEventListener('scenario', (ev) =>
    showScenario(JSON.parse((ev as MessageEvent<string>).data) as ScenarioCard),
  );
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
      for (const e of list.reverse()) addToLog(e);
      for (const e of buffered) if (!seen.has(e.seq)) addToLog(e);
    } catch (err) {
      flash(`Could not read the journal: ${(err as Error).message}`, true);
    }
    ready = true;
    buffered = [];
    // Steps missed while the stream was away.
    void refreshChallenges();
  };
}
