import type { Request } from 'express';
import { controlSource } from '../scenario/control-source.js';
import type { Simulator } from '../simulator.js';
import { Type } from '../typebox.js';
import { Claimed, Clock, apiUser, json, scenarioBody, Scenarios, type ControlRoute } from './control-schemas.js';
import { clockView } from './control.js';

/** The control API's routes for scenarios, bindings, API users, the scope and the run: rows of its table. */

/** A scenario as the control API's body gives it (a name, a file in a scenario directory, text or an object). */
const scenarioOf = (sim: Simulator, req: Request) =>
  controlSource(req.body, sim.scenarioDirectories, (v, max) => sim.echo(v, max));
/** Whether a body was sent at all: none, `{}` or empty text means "none". */
const sent = (body: unknown) =>
  body !== undefined && body !== '' && !(typeof body === 'object' && body !== null && Object.keys(body).length === 0);

export const SCENARIO_ROUTES: readonly ControlRoute[] = [
  {
    method: 'GET',
    path: '/__sim/health',
    operationId: 'getHealth',
    summary: 'Is it up?',
    open: true,
    answers: {
      200: json(Type.Object({ ok: Type.Literal(true), scenario: Type.String() }), 'up, with the active scenario'),
    },
    handler: (sim) => (_req, res) => void res.json({ ok: true, scenario: sim.scenario.name }),
  },
  {
    method: 'GET',
    path: '/__sim/scenarios',
    operationId: 'listScenarios',
    summary: 'The active scenario, the bindings, the shipped scenarios',
    answers: { 200: json(Scenarios, 'the scenarios') },
    handler: (sim) => (_req, res) => void res.json(sim.scenarios()),
  },
  {
    method: 'POST',
    path: '/__sim/scenario',
    operationId: 'loadScenario',
    summary: "Load a scenario: it becomes the active one, and the scenario's scope starts afresh (the run goes on)",
    body: 'scenario',
    // Made when the control API's OpenAPI document is, not as the package loads: a scenario's JSON Schema takes
    // a millisecond or two to make.
    get requestBody() {
      return scenarioBody();
    },
    answers: { 200: json(Type.Object({ active: Type.String(), description: Type.Optional(Type.String()) }), 'loaded') },
    errors: [400, 413],
    handler: (sim) => async (req, res) => {
      const sc = sim.loadScenario(await scenarioOf(sim, req));
      res.json({ active: sc.name, description: sc.description });
    },
  },
  {
    method: 'PUT',
    path: '/__sim/bindings/:apiUser',
    operationId: 'bindScenario',
    summary: "Run a scenario for this API user's requests only; its challenges, replay memory and journal start afresh",
    body: 'scenario',
    parameters: [apiUser],
    get requestBody() {
      return scenarioBody();
    },
    answers: { 200: json(Type.Object({ apiUser: Type.String(), scenario: Type.String() }), 'bound') },
    errors: [400, 413],
    handler: (sim) => async (req, res) => {
      const sc = sim.bindScenario(String(req.params.apiUser), await scenarioOf(sim, req));
      res.json({ apiUser: req.params.apiUser, scenario: sc.name });
    },
  },
  {
    method: 'DELETE',
    path: '/__sim/bindings/:apiUser',
    operationId: 'unbindScenario',
    summary: 'End a binding',
    parameters: [apiUser],
    answers: { 200: json(Type.Object({ apiUser: Type.String(), removed: Type.Boolean() }), 'whether there was one') },
    handler: (sim) => (req, res) =>
      void res.json({ apiUser: req.params.apiUser, removed: sim.unbindScenario(String(req.params.apiUser)) }),
  },
  {
    method: 'POST',
    path: '/__sim/reset',
    operationId: 'reset',
    summary:
      "Start the scenario's scope afresh: challenges, replay memory, journal, rule counts, clock (the run goes on)",
    answers: { 200: json(Type.Object({ reset: Type.Literal(true), scenario: Type.String(), clock: Clock }), 'reset') },
    handler: (sim) => (_req, res) => {
      sim.reset();
      res.json({ reset: true, scenario: sim.scenario.name, clock: clockView(sim) });
    },
  },
  {
    method: 'POST',
    path: '/__sim/run',
    operationId: 'newRun',
    summary: "Start a new run: the run's coverage, findings, request count and observer failures too",
    answers: {
      200: json(Type.Object({ newRun: Type.Literal(true), scenario: Type.String(), clock: Clock }), 'a new run'),
    },
    handler: (sim) => (_req, res) => {
      sim.newRun();
      res.json({ newRun: true, scenario: sim.scenario.name, clock: clockView(sim) });
    },
  },
  {
    method: 'POST',
    path: '/__sim/api-users',
    operationId: 'claimApiUser',
    summary:
      'Claim an API user of its own for one parallel test worker, running its own scenario (default: the active one)',
    body: 'scenario',
    get requestBody() {
      return { ...scenarioBody(), required: false };
    },
    answers: { 201: json(Claimed, 'claimed') },
    errors: [400, 413],
    handler: (sim) => async (req, res) => {
      // A body is optional: none (or {}) runs the active scenario as it is now.
      const { apiUser, secret, scenario } = sim.claimApiUser(sent(req.body) ? await scenarioOf(sim, req) : undefined);
      // The one answer that shows a secret, on purpose: the caller asked for it, as the banner shows a generated one.
      // The app's JSON replacer would hide it, so the rest is hidden here.
      const answer = {
        apiUser,
        secret,
        scenario: sim.redact(scenario),
        url: sim.redact(sim.links.base(req.headers.host)),
        token: sim.token,
      };
      res.status(201).type('json').send(JSON.stringify(answer));
    },
  },
  {
    method: 'DELETE',
    path: '/__sim/api-users/:apiUser',
    operationId: 'releaseApiUser',
    summary: 'Release a claimed API user',
    parameters: [apiUser],
    answers: { 200: json(Type.Object({ apiUser: Type.String(), released: Type.Boolean() }), 'whether it was claimed') },
    handler: (sim) => (req, res) =>
      void res.json({ apiUser: req.params.apiUser, released: sim.releaseApiUser(String(req.params.apiUser)) }),
  },
];
