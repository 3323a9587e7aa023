import type { Socket } from 'node:net';
import { argumentOnce, scenarioOnce } from './arguments.js';
import { ControlError } from './errors.js';
import { AllowedHosts } from './http/allowed-hosts.js';
import { version } from '../package.json';
import { Doctor } from './doctor/doctor.js';
import { ClientFindings, type Finding, type HintSeen, type Scope, type Severity } from './doctor/findings.js';
import { checkReportGates, checkScope, type RunSummary } from './doctor/report.js';
import { verdictOf, type Verdict } from './doctor/verdict.js';
import { AnsweredEvents, type AnsweredRequest, type Caller } from './observers/answered.js';
import { ObserverFailures, type ObserverFailure } from './observers/failures.js';
import { Coverage, type CoverageReport } from './observers/coverage.js';
import { DEFAULT_JOURNAL_SIZE, Journal, type JournalEntry, type JournalFilter } from './observers/journal.js';
import { sealRecord } from './observers/redactor.js';
import { Secrets } from './observers/secrets.js';
import type { ApiRequest } from './request/context.js';
import { Links } from './request/links.js';
import { RequestPath, type ApiResult } from './request/path.js';
import { DEFAULT_BODY_LIMIT, runOptions, type SimulatorOptions } from './run-options.js';
import type { ApiUser, CompiledScenario } from './scenario/compile.js';
import { defaultScenarioDirs, ScenarioDirectories } from './scenario/directories.js';
import { ScenarioRegistry, type ScenarioSource } from './scenario/registry.js';
import { pinnedKeys, scenarioFromOptions } from './scenario/sources.js';
import type { Challenge } from './world/challenges.js';
import type { VirtualClock } from './world/clock.js';
import { unguessable } from './world/random.js';
import { World } from './world/world.js';

export type { SimulatorOptions } from './run-options.js';
export type { ScenarioSource } from './scenario/registry.js';

/**
 * One simulated service: the facade that wires its parts and offers the in-process methods, one per route of the
 * control API. The parts: the world (world/), the scenarios (scenario/registry.ts), the request path
 * (request/path.ts) and the observers of traffic (observers/). Everything lives on the instance, so many
 * simulators run side by side in one process.
 */
export class Simulator {
  readonly world: World;
  readonly journal: Journal;
  readonly bodyLimit: number;
  /** How answers link back here (moreInfo, challenge URLs); the server sets its public URL once listening. */
  readonly links: Links;
  /** Where the control API may read scenario files from, and the host names it answers (the server adds its own). */
  readonly scenarioDirectories: ScenarioDirectories;
  readonly allowedHosts: AllowedHosts;
  /** Connections a `hang` fault holds open; closing the server lets them go at once. */
  readonly hanging = new Set<Socket>();
  /** Failures of the observers of traffic: run scope, they make the run's verdict untrustworthy (exit 5). */
  readonly failures = new ObserverFailures();
  private readonly registry: ScenarioRegistry;
  /** Status coverage of the whole run (what the CI gate judges), and of the current scenario (one test's view). */
  private readonly coverage = new Coverage();
  private readonly scenarioCoverage = new Coverage();
  /**
   * The first request (seq) of the current scenario: seq numbers the whole run, so a scenario's requests start here.
   */
  private scenarioFrom = 1;
  /** Scenario loads and resets in this run. */
  private scenarioStarts = 0;
  private readonly secrets: Secrets;
  private readonly path: RequestPath;
  private readonly doctor = new Doctor();
  private readonly clientFindings = new ClientFindings((text) => this.redact(text));
  private control?: string;

  constructor(options: SimulatorOptions | string = {}) {
    const opts = runOptions(scenarioOnce(options, 'options'));
    this.world = new World(opts, (text) => this.redact(text));
    this.bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.control = opts.controlToken;
    this.scenarioDirectories = new ScenarioDirectories(opts.scenarioDirs ?? defaultScenarioDirs(opts.scenario));
    this.allowedHosts = AllowedHosts.of(opts.allowedHosts, opts.publicUrl);
    this.registry = new ScenarioRegistry(scenarioFromOptions(opts), pinnedKeys(opts));
    this.journal = new Journal(opts.journalSize ?? DEFAULT_JOURNAL_SIZE, (e, to, from) => sealRecord(this.secrets.redactor, e, to, from), this.failures);
    this.links = new Links((text) => this.redact(text), opts.publicUrl?.replace(/\/+$/, ''));
    // The control token opens the control API: hidden as the API users' secrets are, wherever a client sent it.
    this.secrets = new Secrets(
      this.journal,
      () => [this.world.defaultApiUser.secret, ...this.registry.secrets(), ...this.world.claimedSecrets(), ...(this.control === undefined ? [] : [this.control])],
      () => this.links.forget(),
    );
    const answered = new AnsweredEvents(this.failures);
    this.coverage.observe(answered);
    this.scenarioCoverage.observe(answered, 'scenario coverage');
    this.clientFindings.observe(answered);
    this.journal.observe(answered);
    this.path = new RequestPath(this.world, this.registry, this.links, this.secrets.redactor, answered, this.doctor);
    this.reset();
    this.scenarioStarts = 0;
  }

  get clock(): VirtualClock {
    return this.world.clock;
  }

  /** The scenario in force for requests not bound or picked otherwise, and its identifier token. */
  get scenario(): CompiledScenario {
    return this.registry.active;
  }

  get token(): string {
    return this.registry.token;
  }

  /** The API users of the active scenario (the default one when it lists none). */
  apiUsers = (): ApiUser[] => this.world.apiUsersOf(this.scenario);
  /** Simulator time now, under the active scenario (epoch ms). */
  now = (): number => this.world.clock.now();

  /** Answers one request to the simulated API (request/path.ts); synchronous unless a rule delays it. */
  handle = (req: ApiRequest, startedAt?: number): ApiResult | Promise<ApiResult> => this.path.handle(req, startedAt);
  /**
   * Lets go of the requests a rule still delays (their timers run up to 10 minutes): the server calls it once closed
   * and its connections gone, so that a closed simulator holds no test runner's process.
   */
  dropDelayed = (): void => this.path.dropDelayed();
  /** The answer when handling a request failed outside the checks (a bug): -5000, built so that it cannot fail. */
  lastResort = (req: ApiRequest, err: unknown): ApiResult => this.path.lastResort(req, err);
  /**
   * Proxy mode: a request the upstream answered, told to the journal, coverage and the client doctor under the next
   * number. @internal
   */
  answeredElsewhere = (record: (seq: number) => AnsweredRequest, caller: (r: AnsweredRequest) => Caller): number => this.path.answeredElsewhere(record, caller);

  // ---- The in-process methods: the control API's operations, one per route.

  /**
   * Makes a scenario the active one and starts the scenario's scope afresh (see reset). The run goes on: coverage,
   * findings and the request count keep what earlier scenarios saw.
   */
  loadScenario(source: ScenarioSource): CompiledScenario {
    const sc = this.registry.load(scenarioOnce(source, 'scenario'));
    this.reset();
    return sc;
  }

  /**
   * Runs a scenario for one API user's requests only, beside the active one; other API users never see its rules.
   * That API user's scenario scope starts afresh: its challenges, replay memory and journal (asked for by API user).
   */
  bindScenario(apiUser: string, source: ScenarioSource): CompiledScenario {
    const sc = this.registry.bind(apiUser, scenarioOnce(source, 'scenario'));
    this.startAfreshFor(apiUser);
    this.secrets.update();
    return sc;
  }

  /** Ends a binding; says whether there was one. A claimed API user goes back to the active scenario's rules. */
  unbindScenario(apiUser: string): boolean {
    const removed = this.registry.unbind(apiUser);
    if (removed) this.secrets.update();
    return removed;
  }

  /**
   * An API user of its own for one parallel test worker: a new id and secret, running `scenario` (default: the
   * active one as it is now, with rule counts of its own) and isolated from every other API user's rules,
   * challenges, replay memory and journal. Its requests count towards the run. Load scenarios for it with
   * bindScenario; end it with releaseApiUser.
   */
  claimApiUser(scenario?: ScenarioSource): { apiUser: string; secret: string; scenario: string } {
    this.registry.checkRoom();
    const user = this.world.claim(this.scenario);
    try {
      const sc = this.registry.bind(user.id, scenario === undefined ? undefined : scenarioOnce(scenario, 'scenario'));
      this.startAfreshFor(user.id);
      return { apiUser: user.id, secret: user.secret, scenario: sc.name };
    } catch (e) {
      this.world.release(user.id);
      throw e;
    } finally {
      this.secrets.update();
    }
  }

  /**
   * Ends a claim: the API user is no longer known; its binding, challenges and replay memory go. Says whether it was
   * claimed.
   */
  releaseApiUser(apiUser: string): boolean {
    if (typeof apiUser !== 'string' || !this.world.isClaimed(apiUser)) return false;
    this.registry.unbind(apiUser);
    this.world.release(apiUser);
    this.doctor.firstUses.forgetApiUser(apiUser);
    this.journal.forgetStart(apiUser);
    this.secrets.update();
    return true;
  }

  /** When set, the control API (`/__sim/`) needs it; set when listening beyond loopback. A secret: hidden wherever shown. */
  get controlToken(): string | undefined {
    return this.control;
  }

  set controlToken(token: string | undefined) {
    this.control = token;
    this.secrets.update();
  }

  /** Listening beyond loopback: the control API needs a token from now on, a new unguessable one unless one was given. */
  listensBeyondLoopback(): void {
    this.controlToken ??= unguessable(32);
  }

  /** The active scenario, the bindings, and the shipped scenarios. */
  scenarios = (): ReturnType<ScenarioRegistry['list']> => this.registry.list();

  /**
   * Starts the scenario's scope afresh: challenges, replay memory, journal, rule counts, the scenario's view of
   * coverage and findings; forgets the scenarios given earlier that are neither active nor bound; puts the clock
   * back where the active scenario starts it. The run's coverage, findings and request count go on (newRun ends them).
   */
  reset(): void {
    this.registry.restart();
    this.world.forget();
    this.doctor.clear();
    this.journal.clear();
    this.scenarioCoverage.clear();
    this.scenarioFrom = this.path.answeredCount + 1;
    this.scenarioStarts++;
    this.clientFindings.startScenario(this.scenarioFrom);
    this.world.clock.reset(this.scenario.offset, this.scenario.frozenAt);
    this.clientFindings.clockMoved();
    this.secrets.update();
  }

  /**
   * Starts a new run on purpose, as if the simulator had just started with the active scenario: the run's coverage,
   * findings, hints, request count and observer failures are forgotten, and the scenario starts afresh.
   */
  newRun(): void {
    this.coverage.clear();
    this.clientFindings.clear();
    this.failures.clear();
    this.path.restart();
    this.reset();
    this.scenarioStarts = 0;
  }

  /** The challenges issued, newest first, settled at the current simulator time (world/challenges.ts). */
  listChallenges = (): Challenge[] => this.world.challenges.list(this.now());
  /** A challenge by id, settled now; undefined when unknown. */
  findChallenge = (id: string): Challenge | undefined => this.world.challenges.get(id, this.now());
  /** The user approves a waiting challenge, having been shown `authCode` (default: six random digits). */
  approve = (id: string, authCode?: string): Challenge => this.world.challenges.approve(argumentOnce(id, 'id'), this.now(), argumentOnce(authCode, 'authCode'));
  /** The user denies a waiting challenge. */
  deny = (id: string): Challenge => this.world.challenges.deny(id, this.now());
  /** A waiting challenge expires now, as if its challengeExpiry had passed. */
  expire = (id: string): Challenge => this.world.challenges.expire(id, this.now());

  /** Moves the clock by a duration (ms, or 90s, 10m, -1h), at most 50 years at once and never outside 1970 to 9999. */
  advance = (by: number | string): number => this.clockMoved(this.world.advance(argumentOnce(by, 'by')));
  /** Stops the clock, at an instant (ISO 8601 or epoch ms, simulator time, 1970 to 9999) or where it stands. */
  freeze = (at?: number | string): number => this.clockMoved(this.world.freeze(argumentOnce(at, 'at')));
  /** Lets the clock run again from where it stands. */
  unfreeze = (): number => this.clockMoved(this.world.unfreeze());

  /**
   * Journal entries, newest first, optionally only some codes and one API user: the current scenario's (for an API
   * user with its own scenario, since that was loaded).
   */
  journalEntries = (filter: JournalFilter = {}): JournalEntry[] => this.journal.query(argumentOnce(filter, 'journal filter'));
  /** Forgets the journal. */
  clearJournal = (): void => this.journal.clear();
  /**
   * How often each code of the service was answered, and which were never met: in the whole run (default) or the
   * current scenario.
   */
  coverageReport = (scope: Scope = 'run'): CoverageReport => (checkScope(scope) === 'run' ? this.coverage : this.scenarioCoverage).report();

  /**
   * What the clients did that the service would punish or only tolerate, worst first (doctor/findings.ts), in the
   * whole run (default) or the current scenario. `final`: the run is over, so a challenge still waiting was left open.
   */
  findings = (final = false, scope: Scope = 'run'): Finding[] =>
    this.clientFindings
      .findings(final, this.challengeState, checkScope(scope))
      .map((f) => (f.detail === undefined ? f : { ...f, detail: this.redact(f.detail) }));
  /**
   * The state of a challenge a client created, which tells the client doctor whether it is still waiting: this world's
   * own, or in proxy mode the copy mfa-sim keeps of the upstream's (src/proxy/shadow.ts). @internal
   */
  challengeState = (id: string): string | undefined => this.world.challenges.get(id, this.now())?.state;
  /**
   * The doctor's hints given (signature mistakes and the rest), most frequent first, in the whole run (default) or the
   * current scenario.
   */
  hints = (scope: Scope = 'run'): HintSeen[] => this.clientFindings.hintsSeen(checkScope(scope)).map((h) => ({ ...h, text: this.redact(h.text) }));
  /** The observers of traffic that failed in this run (each makes the verdict untrustworthy). */
  observerFailures = (): ObserverFailure[] => this.failures.list().map((f) => ({ ...f, message: this.redact(f.message) }));

  /**
   * The run (default) or the current scenario as the reports (`--report`, `--junit`, `GET /__sim/report`) summarise it.
   */
  runSummary = (options: { final?: boolean; required?: readonly number[]; failOn?: Severity; scope?: Scope } = {}): RunSummary => {
    const read = argumentOnce(options, 'report options');
    if (typeof read !== 'object' || read === null) throw new ControlError(400, 'report options must be an object: { required?, failOn?, final?, scope? }');
    const { final = false, required, failOn, scope = 'run' } = read;
    checkReportGates(required, failOn);
    checkScope(scope);
    return {
      version,
      scope,
      scenario: this.scenario.name,
      scenarioStarts: this.scenarioStarts,
      requests: scope === 'run' ? this.path.answeredCount : this.path.answeredCount - this.scenarioFrom + 1,
      coverage: this.coverageReport(scope),
      required,
      findings: this.findings(final, scope),
      hints: this.hints(scope),
      failOn,
      observerFailures: this.observerFailures(),
    };
  };

  /**
   * The run's verdict, as the command line's exit status gives it: 0, 3 (a required code never answered), 4 (findings
   * at or above `failOn`) or 5 (an observer of traffic failed, so coverage and findings may be wrong), with the
   * reasons.
   */
  verdict = ({ required, failOn }: { required?: readonly number[]; failOn?: Severity } = {}): Verdict => verdictOf(this.runSummary({ final: true, required, failOn }));

  // ---- Showing things outside.

  /** Text with every secret this simulator holds hidden, plain or escaped. */
  redact = (text: string): string => this.secrets.hide(text);
  /** A caller's value fit to be shown back: its secrets hidden, then cut to `max` characters. */
  echo = (value: string, max: number): string => this.secrets.echo(value, max);

  /**
   * The dashboard's explorer is about to send a request signed with this nonce: a demonstration of the simulator's,
   * which the client doctor leaves out of the findings and hints, and the journal marks `by: 'explorer'`.
   * @internal
   */
  sendsItself = (nonce: string): void => this.doctor.sendsItself(nonce);
  /**
   * Whether a request signed with this nonce is one the simulator sent itself (proxy mode marks it as the path does).
   * @internal
   */
  sentItself = (nonce: string | undefined): boolean => this.doctor.sendsAny && this.doctor.sentItself(nonce);

  /** A client's distance to the simulator's clock is measured again from the clock's new place. */
  private clockMoved(now: number): number {
    this.clientFindings.clockMoved();
    return now;
  }

  /** A scenario of its own was loaded for one API user: its share of the scenario scope starts afresh. */
  private startAfreshFor(apiUser: string): void {
    this.world.forgetApiUser(apiUser);
    this.doctor.firstUses.forgetApiUser(apiUser);
    this.journal.startAfresh(apiUser, this.path.answeredCount + 1);
  }

  /** For tests of bounds: how much the simulator holds of what grows with use (replay memory: world.replayStats()). */
  sizes(): { givenScenarios: number; bindings: number; picks: number; secrets: number; journal: number; challenges: number } {
    return { ...this.registry.sizes(), secrets: this.secrets.size, journal: this.journal.length, challenges: this.world.challenges.size };
  }
}
