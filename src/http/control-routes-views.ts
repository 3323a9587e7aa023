import { renderReport } from '../doctor/report.js';
import { ControlError } from '../errors.js';
import { eventStream } from '../observers/event-stream.js';
import type { Simulator } from '../simulator.js';
import { Type } from '../typebox.js';
import {
  Coverage,
  Exchange,
  Finding,
  gates,
  HintSeen,
  JournalEntry,
  json,
  jsonBody,
  ObserverFailure,
  scope,
  text,
  Verdict,
  type ControlRoute,
} from './control-schemas.js';
import { challengeView, clockView, queryOf, redacted, reportQuery, scenarioCardView, scopeOf } from './control.js';
import { dashboardHandlers } from './dashboard.js';
import { EXPLORE_KINDS } from './explore.js';

/**
 * The control API's routes that show what happened: the journal, coverage, findings, the report and verdict, the
 * live feed, and the dashboard with its explorer. Rows of its table.
 */

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

/** The dashboard's handlers of a simulator, made once (its explorer keeps state). */
const dashboards = new WeakMap<Simulator, ReturnType<typeof dashboardHandlers>>();
function dashboard(sim: Simulator): ReturnType<typeof dashboardHandlers> {
  let handlers = dashboards.get(sim);
  if (!handlers) dashboards.set(sim, (handlers = dashboardHandlers(sim)));
  return handlers;
}

export const VIEW_ROUTES: readonly ControlRoute[] = [
  {
    method: 'GET',
    path: '/__sim/journal',
    operationId: 'getJournal',
    summary: 'Journal entries, newest first',
    parameters: [
      { name: 'code', in: 'query', schema: { type: 'string' }, description: 'a code, or codes separated by commas' },
      { name: 'apiUser', in: 'query', schema: { type: 'string' }, description: "one API user's entries" },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'at most this many' },
    ],
    answers: { 200: json(Type.Array(JournalEntry), 'the entries') },
    errors: [400],
    handler: (sim) => (req, res) => {
      const q = queryOf(req);
      const code = q('code');
      const codes = code !== undefined && code !== '' ? code.split(',').map(Number) : undefined;
      if (codes?.some((c) => !Number.isInteger(c)))
        throw new ControlError(400, 'code must be a code or a comma-separated list of codes');
      // Read as the command line reads its numbers: digits only (Number() would take ' 5', '0x10' and '1e3'); empty
      // is not given, as for code.
      const limitText = q('limit') || undefined;
      if (limitText !== undefined && !/^\d+$/.test(limitText))
        throw new ControlError(400, 'limit must be a whole number');
      const limit = limitText === undefined ? undefined : Number(limitText);
      // Entries come sealed (every secret hidden), and every string of a JSON answer passes the app's replacer too.
      res.json(sim.journal({ code: codes, apiUser: q('apiUser'), limit }));
    },
  },
  {
    method: 'DELETE',
    path: '/__sim/journal',
    operationId: 'clearJournal',
    summary: 'Forget the journal',
    answers: { 200: json(Type.Object({ cleared: Type.Literal(true) }), 'cleared') },
    handler: (sim) => (_req, res) => {
      sim.clearJournal();
      res.json({ cleared: true });
    },
  },
  {
    method: 'GET',
    path: '/__sim/coverage',
    operationId: 'getCoverage',
    summary: 'Which codes of the service were answered, and how often',
    parameters: [scope],
    answers: { 200: json(Coverage, 'the coverage') },
    errors: [400],
    handler: (sim) => (req, res) => void res.json(sim.coverage(scopeOf(queryOf(req)))),
  },
  {
    method: 'GET',
    path: '/__sim/findings',
    operationId: 'getFindings',
    summary: "The client doctor's findings, worst first, the hints it gave, and the observers that failed",
    parameters: [scope],
    answers: {
      200: json(
        Type.Object(
          { findings: Type.Array(Finding), hints: Type.Array(HintSeen), observerFailures: Type.Array(ObserverFailure) },
          { additionalProperties: false },
        ),
        'the findings and hints',
      ),
    },
    errors: [400],
    handler: (sim) => (req, res) => {
      const scope = scopeOf(queryOf(req));
      res.json({
        findings: sim.findings(false, scope),
        hints: sim.hints(scope),
        observerFailures: sim.observerFailures(),
      });
    },
  },
  {
    method: 'GET',
    path: '/__sim/report',
    operationId: 'getReport',
    summary: 'The report a CI job shows: Markdown, or JUnit XML',
    parameters: [
      {
        name: 'format',
        in: 'query',
        schema: { enum: ['markdown', 'junit'] },
        description: 'markdown (default) or junit',
      },
      ...gates,
      scope,
    ],
    answers: { 200: text('the report', 'text/markdown', 'application/xml') },
    errors: [400],
    handler: (sim) => (req, res) => {
      const q = queryOf(req);
      const { format, options } = reportQuery(q);
      // Read whole before the type is set: a bad scope or failOn is a JSON 400, not JSON labelled as the report.
      const summary = sim.runSummary({ ...options, scope: scopeOf(q) });
      res.type(format === 'junit' ? 'application/xml' : 'text/markdown').send(renderReport(summary, format));
    },
  },
  {
    method: 'GET',
    path: '/__sim/verdict',
    operationId: 'getVerdict',
    summary: "The run's verdict, as the command line's exit status would give it now",
    parameters: gates,
    answers: { 200: json(Verdict, 'the verdict') },
    errors: [400],
    handler: (sim) => (req, res) => void res.json(sim.verdict(reportQuery(queryOf(req)).options)),
  },
  {
    method: 'GET',
    path: '/__sim/events',
    operationId: 'streamEvents',
    summary:
      'Each new journal entry as a server-sent event `request`, each step of a challenge as `challenge`, each move of the clock as `clock`, and each scenario made active as `scenario`',
    answers: { 200: text('an event stream', 'text/event-stream') },
    errors: [503],
    handler: (sim) =>
      eventStream([
        // Each answered request, its journal entry sealed whole.
        { event: 'request', watch: (send) => sim.requestJournal.subscribe(send) },
        {
          event: 'challenge',
          watch: (send) => sim.world.challenges.watch((c) => send(redacted(sim, challengeView(c)))),
        },
        // Frozen, let run, moved, or put back by a scenario load: a dashboard shows the clock as it is now.
        { event: 'clock', watch: (send) => sim.clock.onMove(() => send(clockView(sim))) },
        // Loaded by a test, by the dashboard or by --watch: a dashboard shows the scenario in force.
        {
          event: 'scenario',
          watch: (send) => sim.onScenarioLoad((sc) => send(redacted(sim, scenarioCardView(sim, sc)))),
        },
      ]),
  },
  {
    method: 'GET',
    path: '/__sim/ui',
    operationId: 'getDashboard',
    summary: 'The dashboard (HTML)',
    answers: { 200: html('the page') },
    handler: (sim) => dashboard(sim).page,
  },
  {
    method: 'GET',
    path: '/__sim/ui/challenges',
    operationId: 'getDashboardChallenges',
    summary: "The dashboard's challenges table (HTML)",
    answers: { 200: html('the table') },
    handler: (sim) => dashboard(sim).challenges,
  },
  {
    method: 'POST',
    path: '/__sim/explore',
    operationId: 'explore',
    summary: 'Send one correctly signed (or deliberately broken) request, as the dashboard does',
    body: 'json',
    requestBody: jsonBody({
      type: 'object',
      properties: {
        kind: { enum: Object.keys(EXPLORE_KINDS) },
        ...Object.fromEntries(
          ['apiUser', 'user', 'challengeId', 'authCode', 'ipAddress', 'challengeType', 'challengeExpiry'].map((k) => [
            k,
            { type: 'string' },
          ]),
        ),
        enableQRcode: { type: 'boolean' },
        enableAutoVerify: { type: 'boolean' },
        clock: { enum: ['simulator', 'machine'] },
      },
      required: ['kind'],
    }),
    answers: {
      200: json(
        Type.Object({
          kind: Type.String(),
          label: Type.String(),
          expect: Type.String(),
          exchanges: Type.Array(Exchange),
        }),
        'what was sent and what came back',
      ),
    },
    errors: [400],
    handler: (sim) => dashboard(sim).explore,
  },
];
