import { version } from '../package.json';
import { CODES } from './codes.js';
import { isLoopback, startSimulator } from './http/server.js';
import { existsSync, watchFile } from 'node:fs';
import { jsonText } from './output/json.js';
import { fileIdentity, openOutput, Unwritable, type Output } from './report-files.js';
import { junitReport, markdownReport } from './doctor/report.js';
import { VERDICT_STATUS, verdictOf } from './doctor/verdict.js';
import { FlagError, OptionsError, ScenarioError } from './errors.js';
import { startOptions, type CommandLine } from './command-line.js';
import { helpText, parseFlags } from './flags.js';
import { probeCommand } from './proxy/probe.js';
import { jsonLog, LogSink } from './observers/log.js';
import { findShippedScenario, shippedScenarioNames } from './scenario/catalog.js';
import { scenarioJsonSchema } from './scenario/schema.js';
import type { Simulator } from './simulator.js';
import { EXIT_OUTPUT_WAIT_MS, LOG_BACKLOG_CHARS, StandardOutput } from './standard-output.js';
import { format } from 'node:util';
import module from 'node:module';

/**
 * The command line (`npx mfa-sim`): flags and environment variables into options, the banner and request log, the
 * signals that stop it, and the coverage file and gate at exit. Exit statuses are documented in the README.
 */

// Node 22 and later keep what V8 compiled between runs (a no-op where Node has no such cache, as on Node 20).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** Everything the command line prints goes through these: a reader that went away ends no run (standard-output.ts). */
const stdout = new StandardOutput(() => process.stdout);
const stderr = new StandardOutput(() => process.stderr);

// What a library prints (a process warning from the YAML parser, a console.warn) can quote text a client or a scenario
// sent: it goes through the terminal writer like every other line, never raw to the terminal.
process.removeAllListeners('warning');
process.on('warning', (w) => stderr.write(`mfa-sim: ${w.name}: ${w.message}\n`));
console.warn = console.error = (...args: unknown[]) => stderr.write(`${format(...args)}\n`);

/** Exit statuses (documented in the README). */
export const EXIT = { failure: 1, usage: 2, ...VERDICT_STATUS } as const;

const DESCRIPTION =
  'A simulator of the multi-factor challenge and time service: real HMAC authentication, every status code on demand.';
const AFTER =
  'Environment variables (MFA_SIM_PORT, MFA_SIM_SECRET, ...) set the same options; a flag wins over its variable,\nand both win over the scenario file.\n\nExit status: 0 stopped cleanly, 1 could not run (e.g. port in use) or could not write a report file,\n2 bad flag or scenario, 3 stopped but --require-coverage found codes never answered, 4 stopped but\n--fail-on-findings found client findings that severe (3 wins when both apply), 5 an observer of\ntraffic failed so coverage and findings may be wrong (a bug in mfa-sim; wins over 3 and 4).\nCoverage, findings and reports cover the whole run, across every scenario load and reset.\n\nmfa-sim probe --help: compare the real service (or another simulator) with mfa-sim, step by step.\nDocs: the README, and the /status page of a running simulator.';

async function main(args: string[]): Promise<void> {
  // `mfa-sim probe ...`: compares the real service with mfa-sim and exits (docs/proxy.md).
  if (args[0] === 'probe') {
    const io = { out: (text: string) => stdout.write(text), err: (text: string) => stderr.write(text) };
    process.exitCode = await probeCommand(args.slice(1), process.env, io);
    return;
  }
  let o: CommandLine;
  try {
    o = parseFlags(args, process.env);
  } catch (e) {
    if (e instanceof FlagError) usage(e.message);
    throw e;
  }
  if (o.help) {
    stdout.write(helpText(DESCRIPTION, AFTER));
    return;
  }
  if (o.version) {
    stdout.write(`${version}\n`);
    return;
  }
  if (o.listScenarios) {
    for (const n of shippedScenarioNames()) stdout.write(`${n}\n`);
    return;
  }
  if (o.codes) {
    for (const c of CODES) stdout.write(`${String(c.code).padStart(6)}  HTTP ${c.http}  ${c.title}\n`);
    return;
  }
  if (o.schema) {
    stdout.write(`${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
    return;
  }

  const options = startOptions(o);
  // Files written at exit are checked now (a pipe opened): a CI job learns of a wrong path at once, not after its
  // whole test run.
  const outputs: [flag: string, file: string, append: boolean][] = [];
  for (const [flag, file, append] of [
    ['--coverage-out', o.coverageOut, false],
    // Appended: a GitHub Actions job summary collects what every command of the step adds.
    ['--report', o.report, true],
    ['--junit', o.junit, false],
  ] as const)
    if (file !== undefined) outputs.push([flag, file, append]);
  const opened = new Map<string, Output>();
  for (const [flag, file, append] of outputs) {
    try {
      opened.set(flag, openOutput(file, append));
    } catch (e) {
      if (!(e instanceof Unwritable)) throw e;
      usage(`${flag} ${file}: ${e.message}.`);
    }
  }
  // One file for two reports: the second written at exit would replace (or interleave with) the first.
  for (const [i, [flag, file]] of outputs.entries()) {
    const other = outputs.slice(i + 1).find(([, f]) => fileIdentity(f) === fileIdentity(file));
    if (other) usage(`${flag} ${file} and ${other[0]} ${other[1]} are the same file: give each report its own.`);
  }

  let running;
  try {
    running = await startSimulator(options);
  } catch (e) {
    if (e instanceof ScenarioError || e instanceof OptionsError) {
      stderr.write(
        `mfa-sim: the ${e instanceof OptionsError ? 'options' : 'scenario'} cannot be used:\n${e.message}\n`,
      );
      process.exit(EXIT.usage);
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      fail(`port ${options.port} on ${options.host} is in use; choose another with --port (0 picks a free one).`);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
      fail(`cannot listen on ${options.host}: no such local address.`);
    if (err.code === 'EACCES') fail(`not allowed to listen on port ${options.port}; use one above 1023.`);
    throw e;
  }
  const sim = running.simulator;
  // Everything the simulator prints after its banner goes through one sink, in batches, flushed before it exits.
  const sink = new LogSink(
    (text, lines) => stdout.writeLog(text, lines),
    (e, seq) => sim.run.failures.record('log', e, seq),
  );
  // A reader that falls behind loses lines of the log, never the simulator's memory; told on standard error, where
  // the JSON lines of `--log json` are not.
  const dropped = (n: number, after: string) =>
    stderr.write(
      `mfa-sim: ${n} request log line${n === 1 ? '' : 's'} dropped: the reader of standard output fell more than ${LOG_BACKLOG_CHARS / 2 ** 20} MiB behind${after} (the journal, coverage and reports have every request)\n`,
    );
  stdout.onCaughtUp((n) => dropped(n, ', and has caught up'));
  // A reader of the log that goes away stops the log, not the simulator: the tests it serves go on, and the
  // coverage and reports are still written at exit.
  stdout.onClose((e) =>
    stderr.write(
      `mfa-sim: standard output was closed (${(e as NodeJS.ErrnoException).code ?? e.message}): no more request log; still serving on ${running.url}\n`,
    ),
  );
  /** The log's last batch written, and what was dropped said. */
  const lastOutput = (): void => {
    sink.flush();
    if (stdout.droppedLines() > 0) dropped(stdout.droppedLines(), '');
  };
  /** The exit status once the run is finished (the reports written): the verdict. */
  let verdict: number | undefined;
  const exit = (status: number): void => {
    verdict = status;
    lastOutput();
    const written = [stdout, stderr].map((s) => s.written(EXIT_OUTPUT_WAIT_MS));
    void Promise.all(written).then(() => process.exit(status));
  };
  // Signals are handled before the ready line: a CI script may stop the simulator as soon as it reads it.
  let stopping = false;
  const stop = () => {
    if (stopping) {
      // A second signal while stopping: at once, without waiting for the readers of the output, and with the verdict
      // once it is known (a run that failed --require-coverage still fails).
      if (verdict === undefined) lastOutput();
      process.exit(verdict ?? EXIT.ok);
    }
    stopping = true;
    void running.close().then(() => exit(finish(sim, o, opened)));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // The terminal it runs in was closed: stopped as cleanly, so the coverage and reports are not lost with it.
  process.on('SIGHUP', stop);
  const json = o.log === 'json' ? jsonLog(sink) : undefined;
  const banner: string[] = [];
  const out = { write: (line: string) => void (json ? banner.push(line.trimEnd()) : stdout.write(line)) };
  out.write(`mfa-sim listening on ${running.url}\n`);
  // Under npx the simulator is a grandchild of the PID a shell job gets: this is the one to signal.
  out.write(`  pid ${process.pid}: SIGTERM or Ctrl-C stops it\n`);
  const users = sim.apiUsers();
  for (const u of users) {
    // In proxy mode a generated secret is no one's: the upstream's API users have their own.
    const shown =
      u === sim.world.defaultApiUser && !sim.world.secretGiven && options.upstream === undefined
        ? `, secret ${u.secret}`
        : '';
    out.write(`  API user ${u.id}${shown}${u.state !== 'active' ? ` (${u.state})` : ''}\n`);
  }
  out.write(
    `  scenario ${sim.scenario.name}, token ${sim.token}; dashboard: ${running.url}/__sim/ui; status codes: ${running.url}/status\n`,
  );
  if (options.upstream !== undefined) {
    const compared = sim.world.secretGiven
      ? " and compared with mfa-sim's"
      : " (give --secret to compare it with mfa-sim's too)";
    out.write(
      `  proxy mode: API requests go to ${options.upstream}; each answer is judged against the contract${compared}\n`,
    );
    if (options.record !== undefined) out.write(`  recording the answers to ${options.record}\n`);
  }
  if (running.controlToken !== undefined) {
    const shown = o.controlToken === undefined ? running.controlToken : '(the one you gave)';
    out.write(
      `  control API token ${shown}: send it as x-sim-control-token, or open ${running.url}/__sim/ui?token=... once\n`,
    );
  }
  if (!isLoopback(running.host)) {
    stderr.write(
      `mfa-sim: warning: listening on ${running.host}, reachable from other machines. It is a test double: never give it real secrets. The control API needs its token.\n`,
    );
  }
  if (!o.quiet) out.write("  request log below: one line per request, its time on the simulator's clock (UTC)\n");
  if (json) json.info('mfa-sim listening', { url: running.url, banner });
  if (!o.quiet) {
    // The journal's feed gives entries with their secrets hidden: no secret is written out.
    sim.requestJournal.subscribe(json ? (e) => json.request(e) : (e) => sink.request(e), { name: 'log' });
  }
  // An observer that fails is said at once (its 1st, 10th, 100th, ... failure), not only in the verdict at exit.
  sim.run.failures.onFailure((f) => {
    if (/^10*$/.test(String(f.count)))
      stderr.write(
        `mfa-sim: the ${f.observer} observer failed (${f.count}×, request ${f.lastSeq}): ${sim.redact(f.message)}; coverage and findings may be wrong, exit status 5\n`,
      );
  });
  if (o.watch) watchScenario(sim, options.scenario, sink);
}

/**
 * Reloads the scenario file when it changes. It polls (every 300 ms) rather than using fs.watch, which loses a
 * file that an editor replaces on save. A broken edit keeps the last good scenario and says why.
 */
function watchScenario(sim: Simulator, scenario: string | undefined, sink: LogSink): void {
  const file = scenario === undefined ? undefined : existsSync(scenario) ? scenario : findShippedScenario(scenario);
  if (!file) usage('--watch needs --scenario with a scenario file (or a shipped scenario name).');
  stdout.write(`  watching ${file} for changes\n`);
  watchFile(file, { interval: 300 }, (now, before) => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size) return;
    try {
      const sc = sim.loadScenario(file);
      sink.push(`mfa-sim: reloaded scenario ${sc.name} from ${file} (the world was reset)\n`);
    } catch (e) {
      stderr.write(
        `mfa-sim: ${file} was not reloaded; still running scenario ${sim.scenario.name}:\n${(e as Error).message}\n`,
      );
    }
  });
}

/**
 * At exit: writes the coverage file and the reports of the whole run, then gives the run's verdict (simulator.verdict,
 * the same as in-process): the exit status and why.
 */
function finish(sim: Simulator, o: CommandLine, outputs: Map<string, Output>): number {
  const required = o.requireCoverage;
  const summary = sim.runSummary({ final: true, required, failOn: o.failOnFindings });
  const verdict = verdictOf(summary);
  const files: [flag: string, file: string | undefined, what: string, text: () => string][] = [
    [
      '--coverage-out',
      o.coverageOut,
      'the coverage',
      () =>
        `${jsonText({ ...summary.coverage, required, unmet: required ? verdict.unmet : undefined }, undefined, 2)}\n`,
    ],
    ['--report', o.report, 'the report', () => markdownReport(summary)],
    ['--junit', o.junit, 'the JUnit report', () => junitReport(summary, new Date().toISOString())],
  ];
  // Each is written, whichever could not be.
  let written = true;
  for (const [flag, file, what, text] of files) {
    const output = outputs.get(flag);
    if (output === undefined) continue;
    try {
      output.write(text());
    } catch (e) {
      stderr.write(`mfa-sim: cannot write ${what} to ${file}: ${(e as Error).message}\n`);
      written = false;
    }
  }
  if (!written) return EXIT.failure;
  // Each reason's heading names the command; its indented lines list what failed.
  for (const line of verdict.lines) stderr.write(line.startsWith(' ') ? `${line}\n` : `mfa-sim: ${line}\n`);
  return verdict.status;
}

function usage(message: string): never {
  stderr.write(`mfa-sim: ${message}\nRun 'mfa-sim --help' for the options.\n`);
  process.exit(EXIT.usage);
}

function fail(message: string): never {
  stderr.write(`mfa-sim: ${message}\n`);
  process.exit(EXIT.failure);
}

main(process.argv.slice(2)).catch((e) => {
  stderr.write(`mfa-sim: ${(e as Error).message}\n`);
  process.exit(EXIT.failure);
});
