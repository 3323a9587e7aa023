import { version } from '../../package.json';
import { existsSync, readFileSync, watchFile } from 'node:fs';
import module from 'node:module';
import { format } from 'node:util';
import { CODES } from '../contract/codes.js';
import { junitReport, markdownReport, VERDICT_STATUS, verdictOf } from '../run/report.js';
import { FlagError, OptionsError, ScenarioError } from '../contract/errors.js';
import { isLoopback, startSimulator } from '../http/server.js';
import { jsonText } from '../output/json.js';
import { writeProblem } from '../files/write-file.js';
import { findShippedScenario, shippedScenarioNames } from '../scenario/catalog.js';
import { scenarioJsonSchema } from '../scenario/schema.js';
import type { JournalEntry } from '../run/journal.js';
import type { Simulator } from '../simulator/simulator.js';
import { helpText, parseFlags, startOptions, type CommandLine } from './flags.js';
import { formatLine, jsonLog, logRequest } from './log.js';
import { EXIT_OUTPUT_WAIT_MS, fileIdentity, LOG_BACKLOG_CHARS, openOutput, StandardOutput } from './output.js';
import { Unwritable, type Output } from './output.js';
import { probeCommand } from './probe.js';

// The command line (`npx mfa-sim`): flags into options, the banner and log, the signals, the files and gates at exit.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** Everything the command line prints goes through these: a reader that went away ends no run (output.ts). */
const stdout = new StandardOutput(process.stdout);
const stderr = new StandardOutput(process.stderr);

// What a library prints (the YAML parser's warnings, a console.warn) can quote what a client sent: never raw.
process.removeAllListeners('warning');
process.on('warning', (w) => stderr.write(`mfa-sim: ${w.name}: ${w.message}\n`));
console.warn = console.error = (...args: unknown[]) => stderr.write(`${format(...args)}\n`);

/** Exit statuses (docs/command-line.md). */
const EXIT = { failure: 1, usage: 2, ...VERDICT_STATUS } as const;

const DESCRIPTION =
  'A simulator of the multi-factor challenge and time service: real HMAC authentication, every status code on demand.';
const AFTER =
  'Environment variables (MFA_SIM_PORT, MFA_SIM_SECRET, ...) set the same options; a flag wins over its variable,\nand both win over the scenario file.\n\nExit status: 0 stopped cleanly, 1 could not run (e.g. port in use) or could not write a report file,\n2 bad flag or scenario, 3 stopped but --require-coverage found codes never answered, 4 stopped but\n--fail-on-findings found client findings that severe (3 wins when both apply), 5 an observer of\ntraffic failed so coverage and findings may be wrong (a bug in mfa-sim; wins over 3 and 4).\nCoverage, findings and reports cover the whole run, across every scenario load and reset.\n\nmfa-sim probe --help: compare the real service (or another simulator) with mfa-sim, step by step.\nDocs: the README, and the /status page of a running simulator.';

/** The files written at exit, each opened (checked) at start: flag, option, what it holds, whether it is added to. */
const REPORTS = [
  ['--coverage-out', 'coverageOut', 'the coverage', false],
  // Appended: a GitHub Actions job summary collects what every command of the step adds.
  ['--report', 'report', 'the report', true],
  ['--junit', 'junit', 'the JUnit report', false],
] as const;
type Report = { flag: string; key: (typeof REPORTS)[number][1]; what: string; file: string; output: Output };

async function main(args: string[]): Promise<void> {
  if (args[0] === 'probe') {
    const io = { out: (text: string) => stdout.write(text), err: (text: string) => stderr.write(text) };
    process.exitCode = await probeCommand(args.slice(1), process.env, io);
    return;
  }
  const o = parseFlags(args, process.env);
  const printed = [
    o.help && helpText(DESCRIPTION, AFTER),
    o.version && `${version}\n`,
    o.listScenarios && shippedScenarioNames().map((n) => `${n}\n`),
    o.codes && CODES.map((c) => `${String(c.code).padStart(6)}  HTTP ${c.http}  ${c.title}\n`),
    o.schema && `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`,
  ].find((text) => text !== undefined && text !== false);
  if (printed !== undefined) return stdout.write([printed].flat().join(''));

  const options = startOptions(o);
  // A CI job learns of a report file it cannot write at once, not after its whole test run.
  const reports = REPORTS.flatMap(([flag, key, what, append]): Report[] => {
    const file = o[key];
    try {
      return file === undefined ? [] : [{ flag, key, what, file, output: openOutput(file, append) }];
    } catch (e) {
      if (!(e instanceof Unwritable)) throw e;
      usage(`${flag} ${file}: ${e.message}.`);
    }
  });
  // One file for two reports: the second written at exit would replace (or interleave with) the first.
  for (const [i, r] of reports.entries()) {
    const other = reports.slice(i + 1).find((x) => fileIdentity(x.file) === fileIdentity(r.file));
    if (other)
      usage(`${r.flag} ${r.file} and ${other.flag} ${other.file} are the same file: give each report its own.`);
  }

  let running;
  try {
    running = await startSimulator(options);
  } catch (e) {
    if (e instanceof ScenarioError || e instanceof OptionsError)
      fail(`the ${e instanceof OptionsError ? 'options' : 'scenario'} cannot be used:\n${e.message}`, EXIT.usage);
    const why: Record<string, string> = {
      EADDRINUSE: `port ${options.port} on ${options.host} is in use; choose another with --port (0 picks a free one).`,
      EADDRNOTAVAIL: `cannot listen on ${options.host}: no such local address.`,
      ENOTFOUND: `cannot listen on ${options.host}: no such local address.`,
      EACCES: `not allowed to listen on port ${options.port}; use one above 1023.`,
    };
    fail(why[(e as NodeJS.ErrnoException).code ?? ''] ?? (e as Error).message);
  }
  const sim = running.simulator;
  // Said on standard error, where the JSON lines of `--log json` are not.
  const dropped = (n: number, after: string) =>
    stderr.write(
      `mfa-sim: ${n} request log line${n === 1 ? '' : 's'} dropped: the reader of standard output fell more than ${LOG_BACKLOG_CHARS / 2 ** 20} MiB behind${after} (the journal, coverage and reports have every request)\n`,
    );
  stdout.onCaughtUp = (n) => dropped(n, ', and has caught up');
  // A reader of the log that goes away stops the log, not the simulator.
  stdout.onClose = (e) =>
    stderr.write(
      `mfa-sim: standard output was closed (${(e as NodeJS.ErrnoException).code ?? e.message}): no more request log; still serving on ${running.url}\n`,
    );
  let verdict: { status: number; lines: string[] } | undefined;
  let said = false;
  /** The verdict, after the log's last lines have left: also where one reader takes both outputs (`2>&1`). */
  const sayVerdict = () => {
    if (said) return;
    said = true;
    if (stdout.droppedLines > 0) dropped(stdout.droppedLines, '');
    for (const line of verdict?.lines ?? []) stderr.write(line.startsWith(' ') ? `${line}\n` : `mfa-sim: ${line}\n`);
  };
  let stopping = false;
  const stop = () => {
    // A second signal: at once, without waiting for the readers, with the verdict's status once it is known.
    if (stopping) {
      sayVerdict();
      process.exit(verdict?.status ?? EXIT.ok);
    }
    stopping = true;
    void running.close().then(async () => {
      verdict = finish(sim, o, reports);
      await stdout.written(EXIT_OUTPUT_WAIT_MS);
      sayVerdict();
      await stderr.written(EXIT_OUTPUT_WAIT_MS);
      process.exit(verdict.status);
    });
  };
  // Before the ready line: a CI script may stop it once it reads it. SIGHUP: its terminal closed, the reports kept.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop);

  const json = o.log === 'json' ? await jsonLog((line) => stdout.writeLog(line)) : undefined;
  const banner: string[] = [];
  const say = (line: string) => void (json ? banner.push(line) : stdout.write(`${line}\n`));
  say(`mfa-sim listening on ${running.url}`);
  // Under npx the simulator is a grandchild of the PID a shell job gets: this is the one to signal.
  say(`  pid ${process.pid}: SIGTERM or Ctrl-C stops it`);
  for (const u of sim.apiUsers()) {
    // In proxy mode a generated secret is no one's: the upstream's API users have their own.
    const generated = u === sim.world.defaultApiUser && !sim.world.secretGiven && options.upstream === undefined;
    say(`  API user ${u.id}${generated ? `, secret ${u.secret}` : ''}${u.state !== 'active' ? ` (${u.state})` : ''}`);
  }
  say(
    `  scenario ${sim.scenario.name}, token ${sim.token}; dashboard: ${running.url}/__sim/ui; status codes: ${running.url}/status`,
  );
  if (options.upstream !== undefined) {
    const compared = sim.world.secretGiven
      ? " and compared with mfa-sim's"
      : " (give --secret to compare it with mfa-sim's too)";
    say(`  proxy mode: API requests go to ${options.upstream}; each answer is judged against the contract${compared}`);
    if (options.record !== undefined) say(`  recording the answers to ${options.record}`);
  }
  if (running.controlToken !== undefined) {
    const token = o.controlToken === undefined ? running.controlToken : '(the one you gave)';
    say(`  control API token ${token}: send it as x-sim-control-token, or open ${running.url}/__sim/ui?token=... once`);
  }
  if (!isLoopback(running.host))
    stderr.write(
      `mfa-sim: warning: listening on ${running.host}, reachable from other machines. It is a test double: never give it real secrets. The control API needs its token.\n`,
    );
  if (!o.quiet) say("  request log below: one line per request, its time on the simulator's clock (UTC)");
  json?.info({ url: running.url, banner }, 'mfa-sim listening');
  // Each line is written as its request is answered; the journal's entries have their secrets redacted.
  const logLine = (e: JournalEntry) => (json ? logRequest(json, e) : stdout.writeLog(`${formatLine(e)}\n`));
  if (!o.quiet) sim.requestJournal.subscribe(logLine, { name: 'log' });
  // An observer that fails is said at once (its 1st, 10th, 100th, ... failure), not only in the verdict at exit.
  sim.run.failures.onFailure((f) => {
    if (/^10*$/.test(String(f.count)))
      stderr.write(
        `mfa-sim: the ${f.observer} observer failed (${f.count}×, request ${f.lastSeq}): ${sim.redact(f.message)}; coverage and findings may be wrong, exit status 5\n`,
      );
  });
  if (o.watch) watchScenario(sim, options.scenario);
}

/** Reloads the scenario file when it changes, polling: fs.watch loses a file an editor replaces on save. */
function watchScenario(sim: Simulator, scenario: string | undefined): void {
  const file = scenario === undefined ? undefined : existsSync(scenario) ? scenario : findShippedScenario(scenario);
  if (!file) usage('--watch needs --scenario with a scenario file (or a shipped scenario name).');
  stdout.write(`  watching ${file} for changes\n`);
  const reload = async () => {
    try {
      // Its text, read here: replicas sharing a store load what this one read.
      const sc = await sim.change('loadScenario', { text: readFileSync(file, 'utf8'), source: file });
      stdout.writeLog(`mfa-sim: reloaded scenario ${sc.name} from ${file} (the world was reset)\n`);
    } catch (e) {
      const why = (e as Error).message;
      stderr.write(`mfa-sim: ${file} was not reloaded; still running scenario ${sim.scenario.name}:\n${why}\n`);
    }
  };
  watchFile(file, { interval: 300 }, (now, before) => {
    if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) void reload();
  });
}

/** At exit: writes each report of the whole run, and gives the run's verdict (as simulator.verdict does). */
function finish(sim: Simulator, o: CommandLine, reports: Report[]): { status: number; lines: string[] } {
  const required = o.requireCoverage;
  const summary = sim.runSummary({ final: true, required, failOn: o.failOnFindings });
  const verdict = verdictOf(summary);
  const text = {
    coverageOut: () =>
      jsonText({ ...summary.coverage, required, unmet: required && verdict.unmet }, undefined, 2) + '\n',
    report: () => markdownReport(summary),
    junit: () => junitReport(summary, new Date().toISOString()),
  };
  let written = true;
  for (const r of reports) {
    try {
      r.output(text[r.key]());
    } catch (e) {
      stderr.write(`mfa-sim: cannot write ${r.what} to ${r.file}: ${writeProblem(e)}\n`);
      written = false;
    }
  }
  return written ? { status: verdict.status, lines: verdict.lines } : { status: EXIT.failure, lines: [] };
}

function fail(message: string, status: number = EXIT.failure): never {
  stderr.write(`mfa-sim: ${message}\n`);
  process.exit(status);
}

function usage(message: string): never {
  fail(`${message}\nRun 'mfa-sim --help' for the options.`, EXIT.usage);
}

main(process.argv.slice(2)).catch((e) => (e instanceof FlagError ? usage(e.message) : fail((e as Error).message)));
