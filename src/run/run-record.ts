import type { Finding, HintSeen, Scope } from './finding-types.js';
import { ClientFindings, type FindingsState } from './findings.js';
import { version } from '../../package.json';
import { argumentOnce } from '../contract/arguments.js';
import {
  checkReportGates,
  checkScope,
  renderReport,
  reportFormat,
  type ReportFormat,
  type ReportOptions,
  type RunSummary,
  type Verdict,
  verdictOf,
} from './report.js';
import { ControlError } from '../contract/errors.js';
import type { AnsweredEvents } from './answered-events.js';
import { Coverage, type CoverageReport, type CoverageState } from './coverage.js';
import { ObserverFailures, type ObserverFailure } from './failures.js';

/** The run's record as plain data (`RunRecord.state`). */
export interface RunState {
  coverage: CoverageState;
  scenarioCoverage: CoverageState;
  scenarioFrom: number;
  scenarioStarts: number;
  findings: FindingsState;
  observerFailures: ObserverFailure[];
}

/** What a run's summary names of the simulator, and how it hides secrets in what is shown. */
interface RunSubject {
  redact(text: string): string;
  readonly scenario: { readonly name: string };
  readonly path: { readonly answeredCount: number };
  challengeState(challengeId: string): string | undefined;
}

/** What a run is judged on (docs/coverage-and-ci.md#the-run-and-the-scenario), recorded from the "answered" event. */
export class RunRecord {
  private readonly findings: ClientFindings;
  private readonly coverage = new Coverage();
  private readonly scenarioCoverage = new Coverage();
  /** The first request (seq) of the current scenario: seq numbers the whole run, so its requests start here. */
  private scenarioFrom = 1;
  /** Scenario loads and resets in this run (the first start of a run is not one). */
  private scenarioStarts = -1;
  /** Secrets hidden in what is shown (details, hint texts, failure messages). */
  private readonly hide = (text: string) => this.sim.redact(text);

  /** `failures`: of the observers of traffic, which make the run's verdict untrustworthy (exit 5). */
  constructor(
    private readonly sim: RunSubject,
    readonly failures: ObserverFailures,
  ) {
    this.findings = new ClientFindings(this.hide);
  }

  observe(answered: AnsweredEvents): void {
    this.coverage.observe(answered);
    this.scenarioCoverage.observe(answered, 'scenario coverage');
    this.findings.observe(answered);
  }

  /** A scenario starts (loaded or reset) at request `seq`: its view starts afresh; the run goes on. */
  startScenario(seq: number): void {
    this.scenarioCoverage.clear();
    this.scenarioFrom = seq;
    this.scenarioStarts++;
    this.findings.startScenario(seq);
  }

  /** A new run: everything is forgotten (the caller then starts the scenario afresh, not counted as a load). */
  newRun(): void {
    this.coverage.clear();
    this.findings.clear();
    this.failures.clear();
    this.scenarioStarts = -1;
  }

  /** The simulator's clock was frozen, moved or let run: a client's distance to it is measured again from there. */
  clockMoved(): void {
    this.findings.clockMoved();
  }

  /** The record as plain data, for a snapshot (`restore` takes it); the caller copies it. */
  state(): RunState {
    return {
      coverage: this.coverage.state(),
      scenarioCoverage: this.scenarioCoverage.state(),
      scenarioFrom: this.scenarioFrom,
      scenarioStarts: this.scenarioStarts,
      findings: this.findings.state(),
      observerFailures: this.failures.state(),
    };
  }

  restore(state: RunState): void {
    this.coverage.restore(state.coverage);
    this.scenarioCoverage.restore(state.scenarioCoverage);
    this.scenarioFrom = state.scenarioFrom;
    this.scenarioStarts = state.scenarioStarts;
    this.findings.restore(state.findings);
    this.failures.restore(state.observerFailures);
  }

  coverageReport(scope: Scope): CoverageReport {
    return (checkScope(scope) === 'run' ? this.coverage : this.scenarioCoverage).report();
  }

  /** The findings, worst first (final: the run is over, so a challenge still waiting was left open). */
  findingsOf(final: boolean, scope: Scope): Finding[] {
    return this.findings
      .findings(final, (id) => this.sim.challengeState(id), checkScope(scope))
      .map((f) => (f.detail === undefined ? f : { ...f, detail: this.hide(f.detail) }));
  }

  hintsOf(scope: Scope): HintSeen[] {
    return this.findings.hintsSeen(checkScope(scope)).map((h) => ({ ...h, text: this.hide(h.text) }));
  }

  observerFailures(): ObserverFailure[] {
    return this.failures.list().map((f) => ({ ...f, message: this.hide(f.message) }));
  }

  /** The run (default) or the current scenario as the reports (`--report`, `--junit`) summarise it. */
  summary(options: ReportOptions): RunSummary {
    const read = argumentOnce(options, 'report options');
    if (typeof read !== 'object' || read === null)
      throw new ControlError(400, 'report options must be an object: { required?, failOn?, final?, scope? }');
    const { final = false, required, failOn, scope = 'run' } = read;
    checkReportGates(required, failOn);
    const answered = this.sim.path.answeredCount;
    return {
      version,
      scope,
      scenario: this.sim.scenario.name,
      scenarioStarts: this.scenarioStarts,
      requests: checkScope(scope) === 'run' ? answered : answered - this.scenarioFrom + 1,
      coverage: this.coverageReport(scope),
      required,
      findings: this.findingsOf(final, scope),
      hints: this.hintsOf(scope),
      failOn,
      observerFailures: this.observerFailures(),
    };
  }

  /** A report in either format; the format is checked before the summary is made (as the control API checks it). */
  report(format: ReportFormat, options?: ReportOptions): string {
    const checked = reportFormat(format);
    return renderReport(this.summary(options ?? {}), checked);
  }

  /** The run's verdict (the exit status and why), from its final summary. */
  verdict({ required, failOn }: ReportOptions): Verdict {
    return verdictOf(this.summary({ final: true, required, failOn }));
  }
}
