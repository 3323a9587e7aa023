import type { Request } from 'express';
import { isObject } from '../contract/response.js';
import { renderReport } from '../run/report.js';
import { ControlError } from '../contract/errors.js';
import { eventStream } from './event-stream.js';
import { jsonText } from '../output/json.js';
import { controlSource } from '../scenario/files.js';
import type { Simulator } from '../simulator/simulator.js';
import { Type, type TObject } from '@sinclair/typebox';
import type { Method } from './routes.js';
import * as S from './control-schemas.js';
import {
  challengeView,
  apiUserClockView,
  clockView,
  controlOpenApiDocument,
  queryOf,
  redacted,
  reportQuery,
  scenarioCardView,
  scopeOf,
} from './control.js';
import { challengesFragment, dashboardPage } from './dashboard.js';
import { ExploreAnswer, ExploreBody, exploreHandler } from './explore.js';

/**
 * The control API under `/__sim/` as one table, a row per route: its method and path, its OpenAPI operation (id,
 * summary, parameters, body and answers) and its handler. From it control.ts registers the routes, checks their
 * bodies against the schemas it documents and makes `/__sim/openapi.json`; app.ts tells OPTIONS and the 405 a path's
 * methods.
 */

const { json, text } = S;
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
/** A scenario as a body gives it (a name, a file in a scenario directory, text or an object). */
const scenarioOf = (sim: Simulator, req: Request) =>
  controlSource(req.body, sim.scenarioDirectories, (v, max) => sim.echo(v, max));
/** None, `{}` or empty text: no scenario sent. */
const sent = (body: unknown) =>
  body !== undefined && body !== '' && !(isObject(body) && Object.keys(body).length === 0);

const Clocked = (what: 'reset' | 'newRun') =>
  Type.Object({ [what]: Type.Literal(true), scenario: Type.String(), clock: S.Clock });

type Row = Omit<S.ControlRoute, 'method' | 'path'>;
type ClockAction = 'get' | 'freeze' | 'unfreeze' | 'advance';

/** A clock's routes: the simulator's, or (`own`) a claimed API user's own, which no one else's moves. */
function clockRows(own: boolean, summaries: Record<ClockAction, string>): Record<`${Method} /__sim/${string}`, Row> {
  const path = own ? '/__sim/api-users/:apiUser/clock' : '/__sim/clock';
  /** The row of `action`: moves the clock by the body (`move`), then answers the clock as it now stands. */
  const row = (
    action: ClockAction,
    move: (sim: Simulator, body: { at?: number | string; by?: number | string }, apiUser: string) => unknown,
    body?: TObject,
  ): Row => ({
    operationId: `${action}${own ? 'ApiUserClock' : 'Clock'}`,
    summary: summaries[action],
    ...(body && { body }),
    ...(own && { parameters: [S.apiUser] }),
    answers: { 200: json(S.Clock, 'the clock') },
    errors: [...(body ? [400] : []), ...(own ? [404] : [])],
    handler: (sim) => async (req, res) => {
      const apiUser = String(req.params.apiUser);
      await move(sim, req.body as object, apiUser);
      res.json(own ? apiUserClockView(sim, apiUser) : clockView(sim));
    },
  });
  return {
    [`GET ${path}`]: row('get', () => undefined),
    [`POST ${path}/freeze`]: row(
      'freeze',
      (sim, { at }, apiUser) => (own ? sim.change('freezeApiUserClock', apiUser, at) : sim.change('freeze', at)),
      S.FreezeBody,
    ),
    [`POST ${path}/unfreeze`]: row('unfreeze', (sim, _body, apiUser) =>
      own ? sim.change('unfreezeApiUserClock', apiUser) : sim.change('unfreeze'),
    ),
    [`POST ${path}/advance`]: row(
      'advance',
      (sim, { by }, apiUser) => (own ? sim.change('advanceApiUserClock', apiUser, by) : sim.change('advance', by!)),
      S.AdvanceBody,
    ),
  };
}

/** The rows keyed by their method and path (`'GET /__sim/clock'`), as routes. */
function table(rows: Record<`${Method} /__sim/${string}`, Row>): S.ControlRoute[] {
  return Object.entries(rows).map(([key, row]) => {
    const [method, path] = key.split(' ') as [Method, string];
    return { method, path, ...row };
  });
}

/** Every route under `/__sim/`, in the order they are registered (a path's methods are listed in this order). */
export const CONTROL_ROUTES: readonly S.ControlRoute[] = table({
  'GET /__sim/openapi.json': {
    operationId: 'getControlOpenApi',
    summary: 'This document',
    // The description of these routes needs no token, as the simulated API's own at /openapi.json.
    open: true,
    answers: { 200: json({ type: 'object' }, 'the document') },
    // Sent as made: no caller input is in it, and a secret that happened to be a word of it must not be redacted.
    handler: (sim) => (req, res) =>
      void res.type('json').send(jsonText(controlOpenApiDocument(CONTROL_ROUTES, sim.links.base(req.headers.host)))),
  },
  'GET /__sim/health': {
    operationId: 'getHealth',
    summary: 'Is it up?',
    open: true,
    answers: {
      200: json(Type.Object({ ok: Type.Literal(true), scenario: Type.String() }), 'up, with the active scenario'),
    },
    handler: (sim) => (_req, res) => void res.json({ ok: true, scenario: sim.scenario.name }),
  },
  'GET /__sim/scenarios': {
    operationId: 'listScenarios',
    summary: 'The active scenario, the bindings, the shipped scenarios',
    answers: { 200: json(S.Scenarios, 'the scenarios') },
    handler: (sim) => (_req, res) => void res.json(sim.scenarios()),
  },
  'POST /__sim/scenario': {
    operationId: 'loadScenario',
    summary: "Load a scenario: it becomes the active one, and the scenario's scope starts afresh (the run goes on)",
    body: 'scenario',
    answers: { 200: json(Type.Object({ active: Type.String(), description: Type.Optional(Type.String()) }), 'loaded') },
    errors: [400, 413],
    handler: (sim) => async (req, res) => {
      const sc = await sim.change('loadScenario', await scenarioOf(sim, req));
      res.json({ active: sc.name, description: sc.description });
    },
  },
  'PUT /__sim/bindings/:apiUser': {
    operationId: 'bindScenario',
    summary: "Run a scenario for this API user's requests only; its challenges, replay memory and journal start afresh",
    body: 'scenario',
    parameters: [S.apiUser],
    answers: { 200: json(Type.Object({ apiUser: Type.String(), scenario: Type.String() }), 'bound') },
    errors: [400, 413],
    handler: (sim) => async (req, res) => {
      const sc = await sim.change('bindScenario', String(req.params.apiUser), await scenarioOf(sim, req));
      res.json({ apiUser: req.params.apiUser, scenario: sc.name });
    },
  },
  'DELETE /__sim/bindings/:apiUser': {
    operationId: 'unbindScenario',
    summary: 'End a binding',
    parameters: [S.apiUser],
    answers: { 200: json(Type.Object({ apiUser: Type.String(), removed: Type.Boolean() }), 'whether there was one') },
    handler: (sim) => async (req, res) =>
      void res.json({
        apiUser: req.params.apiUser,
        removed: await sim.change('unbindScenario', String(req.params.apiUser)),
      }),
  },
  'POST /__sim/reset': {
    operationId: 'reset',
    summary:
      "Start the scenario's scope afresh: challenges, replay memory, journal, rule counts, clock (the run goes on)",
    answers: { 200: json(Clocked('reset'), 'reset') },
    handler: (sim) => async (_req, res) => {
      await sim.change('reset');
      res.json({ reset: true, scenario: sim.scenario.name, clock: clockView(sim) });
    },
  },
  'POST /__sim/run': {
    operationId: 'newRun',
    summary: "Start a new run: the run's coverage, findings, request count and observer failures too",
    answers: { 200: json(Clocked('newRun'), 'a new run') },
    handler: (sim) => async (_req, res) => {
      await sim.change('newRun');
      res.json({ newRun: true, scenario: sim.scenario.name, clock: clockView(sim) });
    },
  },
  'POST /__sim/api-users': {
    operationId: 'claimApiUser',
    summary:
      'Claim an API user of its own for one parallel test worker, running its own scenario (default: the active one)',
    body: 'optional scenario',
    answers: { 201: json(S.Claimed, 'claimed') },
    errors: [400, 413],
    handler: (sim) => async (req, res) => {
      const source = sent(req.body) ? await scenarioOf(sim, req) : undefined;
      const { apiUser, secret, scenario } = await sim.change('claimApiUser', source);
      // The one answer that shows a secret, on purpose: the caller asked for it, as the banner shows a generated one.
      // The app's JSON would redact it, so the rest is redacted here.
      const url = sim.links.base(req.headers.host);
      const answer = { apiUser, secret, scenario: sim.redact(scenario), url: sim.redact(url), token: sim.token };
      res.status(201).type('json').send(jsonText(answer));
    },
  },
  'DELETE /__sim/api-users/:apiUser': {
    operationId: 'releaseApiUser',
    summary: 'Release a claimed API user',
    parameters: [S.apiUser],
    answers: { 200: json(Type.Object({ apiUser: Type.String(), released: Type.Boolean() }), 'whether it was claimed') },
    handler: (sim) => async (req, res) =>
      void res.json({
        apiUser: req.params.apiUser,
        released: await sim.change('releaseApiUser', String(req.params.apiUser)),
      }),
  },
  ...clockRows(true, {
    get: "A claimed API user's clock: its own once it moved it (or its scenario stops it), else the simulator's, which it follows",
    freeze: "Stop this API user's own clock, at an instant or where it stands (no one else's moves)",
    unfreeze: "Let this API user's own clock run again",
    advance:
      "Move this API user's own clock; answers once every expiry, scripted press and auto-verify that fell due is done",
  }),
  'GET /__sim/challenges': {
    operationId: 'listChallenges',
    summary: 'The challenges, newest first',
    answers: { 200: json(Type.Array(S.Challenge), 'the challenges') },
    handler: (sim) => (_req, res) => void res.json(sim.challenges().map(challengeView)),
  },
  'POST /__sim/challenges/:id/approve': {
    operationId: 'approveChallenge',
    summary: 'The user approves a waiting challenge',
    body: S.ApproveBody,
    parameters: [S.id],
    answers: { 200: json(S.Challenge, 'approved') },
    errors: [400, 404, 409],
    handler: (sim) => async (req, res) => {
      const authCode = (req.body as { authCode?: string }).authCode;
      res.json(challengeView(await sim.change('approve', String(req.params.id), authCode)));
    },
  },
  'POST /__sim/challenges/:id/deny': {
    operationId: 'denyChallenge',
    summary: 'The user denies a waiting challenge',
    parameters: [S.id],
    answers: { 200: json(S.Challenge, 'denied') },
    errors: [404, 409],
    handler: (sim) => async (req, res) => void res.json(challengeView(await sim.change('deny', String(req.params.id)))),
  },
  'POST /__sim/challenges/:id/expire': {
    operationId: 'expireChallenge',
    summary: 'A waiting challenge expires now',
    parameters: [S.id],
    answers: { 200: json(S.Challenge, 'expired') },
    errors: [404, 409],
    handler: (sim) => async (req, res) =>
      void res.json(challengeView(await sim.change('expire', String(req.params.id)))),
  },
  ...clockRows(false, {
    get: "The simulator's clock",
    freeze: 'Stop the clock, at an instant or where it stands',
    unfreeze: 'Let the clock run again',
    advance: 'Move the clock; answers once every expiry, scripted press and auto-verify that fell due is done',
  }),
  'GET /__sim/journal': {
    operationId: 'getJournal',
    summary: 'Journal entries, newest first',
    parameters: S.journalQuery,
    answers: { 200: json(Type.Array(S.JournalEntry), 'the entries') },
    errors: [400],
    handler: (sim) => (req, res) => {
      const q = queryOf(req);
      const code = q('code');
      const codes = code ? code.split(',').map(Number) : undefined;
      if (codes?.some((c) => !Number.isInteger(c)))
        throw new ControlError(400, 'code must be a code or a comma-separated list of codes');
      // Digits only, as the command line reads its numbers (Number() would take ' 5', '0x10' and '1e3'); empty is
      // not given, as for code.
      const limit = q('limit') || undefined;
      if (limit !== undefined && !/^\d+$/.test(limit)) throw new ControlError(400, 'limit must be a whole number');
      res.json(
        sim.journal({ code: codes, apiUser: q('apiUser'), limit: limit === undefined ? undefined : Number(limit) }),
      );
    },
  },
  'DELETE /__sim/journal': {
    operationId: 'clearJournal',
    summary: 'Forget the journal',
    answers: { 200: json(Type.Object({ cleared: Type.Literal(true) }), 'cleared') },
    handler: (sim) => async (_req, res) => {
      await sim.change('clearJournal');
      res.json({ cleared: true });
    },
  },
  'GET /__sim/coverage': {
    operationId: 'getCoverage',
    summary: 'Which codes of the service were answered, and how often',
    parameters: [S.scope],
    answers: { 200: json(S.Coverage, 'the coverage') },
    errors: [400],
    handler: (sim) => (req, res) => void res.json(sim.coverage(scopeOf(queryOf(req)))),
  },
  'GET /__sim/findings': {
    operationId: 'getFindings',
    summary: "The client doctor's findings, worst first, the hints it gave, and the observers that failed",
    parameters: [S.scope],
    answers: { 200: json(S.Findings, 'the findings and hints') },
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
  'GET /__sim/report': {
    operationId: 'getReport',
    summary: 'The report a CI job shows: Markdown, or JUnit XML',
    parameters: S.reportQuery,
    answers: { 200: text('the report', 'text/markdown', 'application/xml') },
    errors: [400],
    handler: (sim) => (req, res) => {
      const q = queryOf(req);
      const { format, options } = reportQuery(q);
      // Made whole before the type is set: a bad scope or failOn is a JSON 400, not JSON labelled as the report.
      const summary = sim.runSummary({ ...options, scope: scopeOf(q) });
      res.type(format === 'junit' ? 'application/xml' : 'text/markdown').send(renderReport(summary, format));
    },
  },
  'GET /__sim/verdict': {
    operationId: 'getVerdict',
    summary: "The run's verdict, as the command line's exit status would give it now",
    parameters: S.gates,
    answers: { 200: json(S.Verdict, 'the verdict') },
    errors: [400],
    handler: (sim) => (req, res) => void res.json(sim.verdict(reportQuery(queryOf(req)).options)),
  },
  'GET /__sim/events': {
    operationId: 'streamEvents',
    summary:
      'Each new journal entry as a server-sent event `request`, each step of a challenge as `challenge`, each move of the clock as `clock`, and each scenario made active as `scenario`',
    answers: { 200: text('an event stream', 'text/event-stream') },
    errors: [503],
    handler: (sim) =>
      eventStream([
        { event: 'request', watch: (send) => sim.requestJournal.subscribe(send) },
        {
          event: 'challenge',
          watch: (send) => sim.world.challenges.watch((c) => send(redacted(sim, challengeView(c)))),
        },
        // Moved by a test, this page or a scenario load: a dashboard shows the clock as it is now.
        { event: 'clock', watch: (send) => sim.clock.onMove(() => send(clockView(sim))) },
        {
          event: 'scenario',
          watch: (send) => sim.onScenarioLoad((sc) => send(redacted(sim, scenarioCardView(sim, sc)))),
        },
      ]),
  },
  'GET /__sim/ui': {
    operationId: 'getDashboard',
    summary: 'The dashboard (HTML)',
    answers: { 200: html('the page') },
    handler: (sim) => (req, res) =>
      void res.set('cache-control', 'no-store').type('html').send(dashboardPage(sim, req.headers.host)),
  },
  'GET /__sim/ui/challenges': {
    operationId: 'getDashboardChallenges',
    summary: "The dashboard's challenges table (HTML)",
    answers: { 200: html('the table') },
    handler: (sim) => (_req, res) =>
      void res.set('cache-control', 'no-store').type('html').send(challengesFragment(sim)),
  },
  'POST /__sim/explore': {
    operationId: 'explore',
    summary: 'Send one correctly signed (or deliberately broken) request, as the dashboard does',
    body: ExploreBody,
    answers: { 200: json(ExploreAnswer, 'what was sent and what came back') },
    errors: [400],
    handler: exploreHandler,
  },
});
