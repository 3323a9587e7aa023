import type { Socket } from 'node:net';
import { ApiUserScopes } from './api-user-scopes.js';
import { argumentOnce, scenarioOnce } from '../contract/arguments.js';
import { Doctor } from '../doctor/doctor.js';
import type { Scope } from '../run/finding-types.js';
import type { ReportFormat, ReportOptions, RunSummary } from '../run/report.js';
import { AllowedHosts } from './allowed-hosts.js';
import { AnsweredEvents } from '../run/answered-events.js';
import { ObserverFailures } from '../run/failures.js';
import { hideSecrets, Journal, type JournalEntry, type JournalFilter } from '../run/journal.js';
import { RunRecord } from '../run/run-record.js';
import { Secrets } from '../run/secrets.js';
import { Links } from '../request/context.js';
import { RequestPath } from '../request/path.js';
import type { Replicas } from './replicas.js';
import { change, type Changes } from './changes.js';
import { DEFAULT_BODY_LIMIT, RUN_KEYS, runOptions, type SimulatorOptions } from './options.js';
import type { ApiUser, CompiledScenario } from '../scenario/compile.js';
import { defaultScenarioDirs, ScenarioDirectories } from '../scenario/files.js';
import { ScenarioRegistry, type ScenarioSource } from '../scenario/registry.js';
import { pinnedKeys, scenarioFromOptions } from '../scenario/load.js';
import { Watchers, type VirtualClock } from '../world/clock.js';
import { World } from '../world/world.js';
import { restoreState, stateOf, type SimulatorState } from './state.js';

/** One simulated service: wires its parts and offers the in-process methods, one per route of the control API. */
export class Simulator {
  readonly world: World;
  /** The virtual clock: nothing else reads the time (world/clock.ts). */
  readonly clock: VirtualClock;
  /** The journal ring of the current scenario, and its live feed (the event stream and the log lines read it). */
  readonly requestJournal: Journal;
  /** The request path, which the HTTP layer hands each request of the simulated API to. */
  readonly path: RequestPath;
  /** What the run is judged on: coverage, findings and hints, the observers that failed. */
  readonly run: RunRecord;
  /** The client doctor as the request path consults it (the explorer marks its own requests there). */
  readonly doctor = new Doctor();
  /** Request bodies larger than this many bytes get -413. */
  readonly bodyLimit: number;
  /** How answers link back here (moreInfo, challenge URLs); the server sets its public URL once listening. */
  readonly links: Links;
  /** Where the control API may read scenario files from. */
  readonly scenarioDirectories: ScenarioDirectories;
  /** The host names the control API and the pages answer (the server adds its own). */
  readonly allowedHosts: AllowedHosts;
  /** Connections a `hang` fault holds open; closing the server lets them go at once. */
  readonly hanging = new Set<Socket>();
  /** The secrets it holds (the API users' and the control token), hidden in everything shown outside. */
  readonly secrets: Secrets;
  private readonly registry: ScenarioRegistry;
  private readonly scenarioLoads = new Watchers<CompiledScenario>();
  private readonly scopes: ApiUserScopes;
  /** Claimed API users' clocks: read, moved, stopped, let run as the simulator's (`/__sim/api-users/:id/clock`). */
  readonly apiUserClocks: Pick<ApiUserScopes, 'clock' | 'advance' | 'freeze' | 'unfreeze'>;
  /** Set while it shares the simulated service with other replicas on a store (replicas.ts). */
  replicas?: Replicas;

  constructor(options: SimulatorOptions | string = {}) {
    const opts = runOptions(scenarioOnce(options, 'options'));
    this.world = new World(opts, (text) => this.redact(text));
    this.clock = this.world.clock;
    this.bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.scenarioDirectories = new ScenarioDirectories(opts.scenarioDirs ?? defaultScenarioDirs(opts.scenario));
    this.allowedHosts = new AllowedHosts(opts.allowedHosts, opts.publicUrl);
    this.registry = new ScenarioRegistry(scenarioFromOptions(opts, RUN_KEYS), pinnedKeys(opts));
    const failures = new ObserverFailures();
    this.requestJournal = new Journal(opts.journalSize, (e) => hideSecrets(this.secrets.redactor, e), failures);
    this.links = new Links((text) => this.redact(text), opts.publicUrl?.replace(/\/+$/, ''));
    const held = () => [this.world.defaultApiUser.secret, ...this.registry.secrets(), ...this.world.claimedSecrets()];
    this.secrets = new Secrets(held);
    this.secrets.controlToken = opts.controlToken;
    const answered = new AnsweredEvents(failures);
    this.run = new RunRecord(this, failures);
    // A client's distance to a clock is measured again from the clock's new place.
    this.world.onClockMove(() => this.run.clockMoved());
    this.run.observe(answered);
    this.requestJournal.observe(answered);
    this.path = new RequestPath(this.world, this.registry, this.links, this.secrets.redactor, answered, this.doctor);
    this.apiUserClocks = this.scopes = new ApiUserScopes(this, this.registry);
    this.reset();
  }

  /** The scenario in force for requests not bound or picked otherwise. */
  get scenario(): CompiledScenario {
    return this.registry.active;
  }

  /** The identifier token in force (the active scenario's). */
  get token(): string {
    return this.registry.token;
  }

  /** The API users of the active scenario (the default one when it lists none). */
  apiUsers = (): ApiUser[] => this.world.apiUsersOf(this.scenario);
  /** Simulator time now, under the active scenario (epoch ms). */
  now = (): number => this.world.clock.now();

  /** A control change (changes.ts): made here, or, sharing a store, on every replica in the log's order. */
  change = <K extends keyof Changes>(op: K, ...args: Parameters<Changes[K]>) => change(this, op, ...args);

  /** Makes a scenario the active one and starts the scenario's scope afresh (see reset); the run goes on. */
  loadScenario(source: ScenarioSource): CompiledScenario {
    const sc = this.registry.load(scenarioOnce(source, 'scenario'));
    this.reset();
    this.scenarioLoads.tell(sc);
    return sc;
  }

  /** Runs a scenario for one API user's requests only (api-user-scopes.ts); its share of the scope starts afresh. */
  bindScenario = (apiUser: string, source: ScenarioSource): CompiledScenario => this.scopes.bind(apiUser, source);
  /** Ends a binding; says whether there was one. A claimed API user goes back to the active scenario's rules. */
  unbindScenario = (apiUser: string): boolean => this.scopes.unbind(apiUser);
  /** An API user of its own for one parallel test worker (api-user-scopes.ts); `url`: where to send its requests. */
  claimApiUser = (scenario?: ScenarioSource) => this.scopes.claim(scenario);
  /** Ends a claim: the API user is no longer known; its binding, challenges and replay memory go. */
  releaseApiUser = (apiUser: string): boolean => this.scopes.release(apiUser);

  /** Calls `watcher` with each scenario made active (not bound) once its secrets are held; returns how to stop. */
  onScenarioLoad = (watcher: (sc: CompiledScenario) => void): (() => void) => this.scenarioLoads.add(watcher);
  /** The active scenario, the bindings, and the shipped scenarios. */
  scenarios = (): ReturnType<ScenarioRegistry['list']> => this.registry.list();

  /** Starts the scenario's scope afresh (challenges, replay memory, journal, rule counts, clock); the run goes on. */
  reset(): void {
    this.registry.restart();
    this.world.forget();
    this.requestJournal.clear();
    this.run.startScenario(this.path.answeredCount + 1);
    this.clock.reset(this.scenario.offset, this.scenario.frozenAt);
    this.secrets.update();
  }

  /** Starts a new run, as if the simulator had just started with the active scenario. */
  newRun(): void {
    this.run.newRun();
    this.path.restart();
    this.reset();
  }

  /** The challenges issued, newest first, settled at the current simulator time (world/challenges.ts). */
  challenges = () => this.world.challenges.list();
  /** A challenge by id, settled now; undefined when unknown. */
  findChallenge = (id: string) => this.world.challenges.get(id);
  /** The user approves a waiting challenge, having been shown `authCode` (default: six random digits). */
  approve = (id: string, authCode?: string) =>
    this.world.challenges.approve(argumentOnce(id, 'id'), undefined, argumentOnce(authCode, 'authCode'));
  /** The user denies a waiting challenge. */
  deny = (id: string) => this.world.challenges.deny(id);
  /** A waiting challenge expires now, as if its challengeExpiry had passed. */
  expire = (id: string) => this.world.challenges.expire(id);

  /** Moves the clock by a duration (ms, or 90s, 10m, -1h), at most 50 years at once and never outside 1970 to 9999. */
  advance = (by: number | string): number => this.world.advance(argumentOnce(by, 'by'));
  /** Stops the clock, at an instant (ISO 8601 or epoch ms, simulator time, 1970 to 9999) or where it stands. */
  freeze = (at?: number | string): number => this.world.freeze(argumentOnce(at, 'at'));
  /** Lets the clock run again from where it stands. */
  unfreeze = (): number => this.world.unfreeze();

  /** The current scenario's journal (an API user's own since its scenario was loaded), newest first, filtered. */
  journal = (filter: JournalFilter = {}): JournalEntry[] =>
    this.requestJournal.query(argumentOnce(filter, 'journal filter'));
  /** Forgets the journal. */
  clearJournal = (): void => this.requestJournal.clear();
  /** How often each code of the service was answered, and which were never met, in the run or the scenario. */
  coverage = (scope: Scope = 'run') => this.run.coverageReport(scope);
  /** What the clients did that the service would punish or only tolerate, worst first; `final`: the run is over. */
  findings = (final = false, scope: Scope = 'run') => this.run.findingsOf(final, scope);
  /** Whether a client's challenge is still waiting, for the doctor (proxy mode reads the upstream's). @internal */
  challengeState = (id: string): string | undefined => this.world.challenges.get(id)?.state;
  /** The doctor's hints given (signature mistakes and the rest), most frequent first, in the run or the scenario. */
  hints = (scope: Scope = 'run') => this.run.hintsOf(scope);
  /** The observers of traffic that failed in this run (each makes the verdict untrustworthy). */
  observerFailures = () => this.run.observerFailures();
  /** The run (default) or the current scenario as the reports (`--report`, `--junit`, `report()`) summarise it. */
  runSummary = (options: ReportOptions = {}): RunSummary => this.run.summary(options);
  /** The report a CI job shows: Markdown (default) or JUnit XML, of the run (or `scope: 'scenario'`). */
  report = (format: ReportFormat = 'markdown', options?: ReportOptions): string => this.run.report(format, options);
  /** The run's verdict, as the exit status: 0, 3 (a required code never met), 4 (findings), 5 (an observer failed). */
  verdict = (gates: ReportOptions = {}) => this.run.verdict(gates);

  /** Text with every secret this simulator holds hidden, plain or escaped. */
  redact = (text: string): string => this.secrets.hide(text);
  /** A caller's value fit to be shown back: its secrets hidden, then cut to `max` characters. */
  echo = (value: string, max: number): string => this.secrets.echo(value, max);

  /** A snapshot: plain data JSON keeps whole, of all its future answers depend on (state.ts); `restore` takes it. */
  state = (): SimulatorState => stateOf(this, this.registry);
  /** Behaves from now on as the simulator that gave `state` did (both made with the same options). */
  restore = (state: SimulatorState): void => restoreState(this, this.registry, state);

  /** For tests of bounds: how much the simulator holds of what grows with use (replay memory: world.replayStats()). */
  sizes = () => ({
    ...this.registry.sizes(),
    secrets: this.secrets.size,
    journal: this.requestJournal.length,
    challenges: this.world.challenges.size,
  });
}
