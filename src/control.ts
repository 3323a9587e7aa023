/**
 * `mfa-sim/control`: a typed client of a running simulator's control API (`/__sim/`), for test workers that share one
 * simulator started elsewhere; each claims an API user of its own with `claimApiUser()`. Needs only the global `fetch`.
 *
 * @packageDocumentation
 * @module mfa-sim/control
 */
import { ControlError, type ScenarioIssue } from './contract/errors.js';
import { CONTROL_HEADER } from './http/control-access.js';
import type { ChallengeView, ClockView } from './http/control.js';
import { isScenarioText } from './scenario/catalog.js';
import type { CoverageReport } from './run/coverage.js';
import type { Finding, HintSeen, Scope, Severity } from './run/finding-types.js';
import type { JournalEntry } from './run/answered.js';
import type { ObserverFailure } from './run/failures.js';
import type { Verdict } from './run/report.js';
import type { ScenarioInput } from './scenario/schema.js';

export type {
  ChallengeView,
  ClockView,
  CoverageReport,
  Finding,
  HintSeen,
  JournalEntry,
  ObserverFailure,
  Scope,
  Severity,
  Verdict,
};
export { ControlError, isMfaSimError, type MfaSimErrorCode, type ScenarioIssue } from './contract/errors.js';

/** A scenario as the control API takes it: a name, YAML or JSON text, `{ file }`, `{ text }`, or a scenario object. */
export type ControlScenario = string | { file: string } | { text: string } | Partial<ScenarioInput>;

/** How to reach the control API. */
export interface ControlOptions {
  /** The control token, when the simulator listens beyond loopback (`--control-token`, `MFA_SIM_CONTROL_TOKEN`). */
  controlToken?: string;
  /** The fetch to use. Default the global `fetch`. */
  fetch?: typeof fetch;
}

/** Journal filters: some codes, and at most `limit` entries (newest first). */
export interface JournalQuery {
  code?: number | number[];
  limit?: number;
}

/** What a report or a verdict judges: codes that must have been answered, and the severity of findings that fails. */
export interface Gates {
  required?: readonly number[] | 'all';
  failOn?: Severity;
}

/** A clock: the simulator's, or a claimed API user's own (the simulator's, which it follows, until it moves it). */
export interface ClockControl {
  /** The clock as it stands. */
  clock(): Promise<ClockView>;
  /** Moves the clock by a duration (ms, or 90s, 10m, -1h); answers once what fell due is done. */
  advance(by: number | string): Promise<ClockView>;
  /** Stops the clock, at an instant (ISO 8601 or epoch ms) or where it stands. */
  freeze(at?: number | string): Promise<ClockView>;
  /** Lets the clock run again. */
  unfreeze(): Promise<ClockView>;
}

/** An API user of one test worker's own (`claimApiUser`): sign with `apiUser` and `secret`, send to `url`. */
export interface ClaimedApiUser extends ClockControl {
  apiUser: string;
  secret: string;
  /** The base URL of the simulated API. */
  url: string;
  /** The identifier token in force (header names, scheme). */
  token: string;
  /** The scenario it runs. */
  scenario: string;
  /** Loads a scenario for this API user only: its rules, challenges, replay memory and journal start afresh. */
  loadScenario(scenario: ControlScenario): Promise<{ scenario: string }>;
  /** This API user's journal since its scenario was loaded, newest first. */
  journal(query?: JournalQuery): Promise<JournalEntry[]>;
  /** This API user's challenges, newest first. */
  challenges(): Promise<ChallengeView[]>;
  /** Gives the API user back: it is no longer known, and its challenges and replay memory are forgotten. */
  release(): Promise<boolean>;
}

/** The control API of one running simulator; its clock methods move the simulator's clock. */
export interface Control extends ClockControl {
  /** The simulator's base URL. */
  readonly url: string;
  /** An API user of this worker's own, running `scenario` (default: the active one as it is now). */
  claimApiUser(options?: { scenario?: ControlScenario }): Promise<ClaimedApiUser>;
  /** Makes a scenario the active one for every API user not claimed or bound; the scenario's scope starts afresh. */
  loadScenario(scenario: ControlScenario): Promise<{ active: string }>;
  /** Runs a scenario for one API user's requests only; that API user's scope starts afresh. */
  bindScenario(apiUser: string, scenario: ControlScenario): Promise<{ scenario: string }>;
  /** Ends a binding; says whether there was one. */
  unbindScenario(apiUser: string): Promise<boolean>;
  /** Starts the scenario's scope afresh; the run goes on. */
  reset(): Promise<void>;
  /** Starts a new run: the run's coverage, findings and request count are forgotten too. */
  newRun(): Promise<void>;
  /** Every challenge, newest first. */
  challenges(): Promise<ChallengeView[]>;
  /** The user approves a waiting challenge, having been shown `authCode` (default: six random digits). */
  approve(challengeId: string, authCode?: string): Promise<ChallengeView>;
  /** The user denies a waiting challenge. */
  deny(challengeId: string): Promise<ChallengeView>;
  /** A waiting challenge expires now. */
  expire(challengeId: string): Promise<ChallengeView>;
  /** Journal entries of the current scenario, newest first. */
  journal(query?: JournalQuery & { apiUser?: string }): Promise<JournalEntry[]>;
  /** Status coverage of the whole run (default) or the current scenario. */
  coverage(options?: { scope?: Scope }): Promise<CoverageReport>;
  /** The client doctor's findings and hints, and any observer that failed. */
  findings(options?: {
    scope?: Scope;
  }): Promise<{ findings: Finding[]; hints: HintSeen[]; observerFailures: ObserverFailure[] }>;
  /** The report a CI job shows, Markdown or JUnit XML. */
  report(options?: Gates & { format?: 'markdown' | 'junit'; scope?: Scope }): Promise<string>;
  /** The run's verdict now: the exit status the command line would give (0, 3, 4 or 5) and why. */
  verdict(options?: Gates): Promise<Verdict>;
}

/** A client of the control API of the simulator at `url` (its base URL, e.g. `http://127.0.0.1:8080`). */
export function connect(url: string, options: ControlOptions = {}): Control {
  const base = new URL(url).toString().replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> =
    options.controlToken === undefined ? {} : { [CONTROL_HEADER]: options.controlToken };

  async function call<T>(
    method: string,
    path: string,
    body?: { json: unknown } | { text: string },
    expect: 'json' | 'text' = 'json',
  ): Promise<T> {
    const type = body && ('text' in body ? 'application/yaml' : 'application/json');
    const res = await doFetch(`${base}/__sim/${path}`, {
      method,
      headers: type ? { ...headers, 'content-type': type } : { ...headers },
      body: body && ('text' in body ? body.text : JSON.stringify(body.json)),
    });
    const text = await res.text();
    if (!res.ok) {
      let error = `HTTP ${res.status}`;
      let issues: ScenarioIssue[] = [];
      try {
        const parsed = JSON.parse(text) as { error?: string; issues?: ScenarioIssue[] };
        error = parsed.error ?? error;
        issues = parsed.issues ?? [];
      } catch {
        // Not the control API's JSON (a proxy in between?): the status says it all.
      }
      throw new ControlError(res.status, `${method} /__sim/${path}: ${error}`, issues);
    }
    return (expect === 'text' ? text : JSON.parse(text)) as T;
  }

  const query = (params: Record<string, string | number | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
    return q.size ? `?${q.toString()}` : '';
  };
  const codes = (code: number | number[] | undefined) => (code === undefined ? undefined : [code].flat().join(','));
  const gates = (g: Gates = {}) => ({
    require: g.required === undefined ? undefined : g.required === 'all' ? 'all' : g.required.join(','),
    failOn: g.failOn,
  });
  const journal = (q: JournalQuery & { apiUser?: string } = {}) =>
    call<JournalEntry[]>('GET', `journal${query({ code: codes(q.code), apiUser: q.apiUser, limit: q.limit })}`);
  const challenges = () => call<ChallengeView[]>('GET', 'challenges');
  /** The clock at `path`: the simulator's (`clock`), or a claimed API user's own. */
  const clockAt = (path: string): ClockControl => ({
    clock: () => call('GET', path),
    advance: (by) => call('POST', `${path}/advance`, { json: { by } }),
    freeze: (at) => call('POST', `${path}/freeze`, { json: at === undefined ? {} : { at } }),
    unfreeze: () => call('POST', `${path}/unfreeze`),
  });
  const bind = async (apiUser: string, scenario: ControlScenario) => ({
    scenario: (
      await call<{ scenario: string }>('PUT', `bindings/${encodeURIComponent(apiUser)}`, scenarioBody(scenario))
    ).scenario,
  });

  return {
    url: base,
    async claimApiUser({ scenario } = {}) {
      const claimed = await call<{ apiUser: string; secret: string; url: string; token: string; scenario: string }>(
        'POST',
        'api-users',
        scenario === undefined ? undefined : scenarioBody(scenario),
      );
      const { apiUser } = claimed;
      return {
        ...claimed,
        loadScenario: (s) => bind(apiUser, s),
        journal: (q = {}) => journal({ ...q, apiUser }),
        challenges: async () => (await challenges()).filter((c) => c.apiUser === apiUser),
        ...clockAt(`api-users/${encodeURIComponent(apiUser)}/clock`),
        release: async () => (await call<{ released: boolean }>('DELETE', `api-users/${apiUser}`)).released,
      };
    },
    loadScenario: async (s) => ({
      active: (await call<{ active: string }>('POST', 'scenario', scenarioBody(s))).active,
    }),
    bindScenario: bind,
    unbindScenario: async (apiUser) =>
      (await call<{ removed: boolean }>('DELETE', `bindings/${encodeURIComponent(apiUser)}`)).removed,
    reset: async () => void (await call('POST', 'reset')),
    newRun: async () => void (await call('POST', 'run')),
    challenges,
    approve: (id, authCode) =>
      call('POST', `challenges/${encodeURIComponent(id)}/approve`, {
        json: authCode === undefined ? {} : { authCode },
      }),
    deny: (id) => call('POST', `challenges/${encodeURIComponent(id)}/deny`),
    expire: (id) => call('POST', `challenges/${encodeURIComponent(id)}/expire`),
    ...clockAt('clock'),
    journal,
    coverage: ({ scope } = {}) => call('GET', `coverage${query({ scope })}`),
    findings: ({ scope } = {}) => call('GET', `findings${query({ scope })}`),
    report: ({ format, scope, ...g } = {}) =>
      call('GET', `report${query({ format, scope, ...gates(g) })}`, undefined, 'text'),
    verdict: (g) => call('GET', `verdict${query(gates(g))}`),
  };
}

/** How a scenario is sent: a name as `{ name }`, text as YAML, a file as `{ file }`, an object under `scenario`. */
function scenarioBody(scenario: ControlScenario): { json: unknown } | { text: string } {
  if (typeof scenario === 'string') return isScenarioText(scenario) ? { text: scenario } : { json: { name: scenario } };
  if (typeof (scenario as { text?: unknown }).text === 'string' && Object.keys(scenario).length === 1)
    return { text: (scenario as { text: string }).text };
  if (typeof (scenario as { file?: unknown }).file === 'string' && Object.keys(scenario).length === 1)
    return { json: scenario };
  // Under `scenario`: a whole scenario whose only key is `name` would otherwise be read as a name to look up.
  return { json: { scenario } };
}
