import type { TSchema } from '@sinclair/typebox';
import { Type } from '../typebox.js';
import { version } from '../../package.json';
import { EXPLORE_KINDS } from './explore.js';
import { CONTROL_HEADER } from './control-access.js';
import { scenarioJsonSchema } from '../scenario/schema.js';
import { SEVERITIES } from '../doctor/findings.js';
import { CHALLENGE_STATES, ENDED_BY } from '../world/challenges.js';

/**
 * The OpenAPI 3.1 document of the control API (`/__sim/openapi.json`): every route under `/__sim/`, its body and its
 * answers, so that a client of the control API can be generated in any language. The simulated API has its own
 * document at `/openapi.json`.
 */

const ErrorAnswer = Type.Object(
  {
    error: Type.String({ description: 'why, in a sentence' }),
    issues: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.Array(Type.Union([Type.String(), Type.Integer()]), { description: 'the key, as a path' }),
          message: Type.String(),
          line: Type.Optional(Type.Integer({ description: 'the line in the scenario text' })),
        }),
        { description: 'a refused scenario: one entry per problem' },
      ),
    ),
  },
  { additionalProperties: false },
);
const Iso = Type.String({ format: 'date-time' });
const Challenge = Type.Object(
  {
    id: Type.String(),
    apiUser: Type.String(),
    user: Type.String(),
    state: Type.Union(CHALLENGE_STATES.map((s) => Type.Literal(s))),
    challengeType: Type.String(),
    expiry: Type.String(),
    createdAt: Iso,
    expiresAt: Iso,
    autoVerifyAt: Type.Optional(Iso),
    endedAt: Type.Optional(Iso),
    endedBy: Type.Optional(Type.Union(ENDED_BY.map((s) => Type.Literal(s)))),
    authCode: Type.Optional(Type.String({ description: 'the code the user was shown' })),
    ipAddress: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const Clock = Type.Object(
  { now: Type.Number({ description: 'simulator time, epoch ms' }), iso: Iso, frozen: Type.Boolean(), offsetMs: Type.Number({ description: "the active scenario's clock.offset" }) },
  { additionalProperties: false },
);
const Scenarios = Type.Object(
  {
    active: Type.String(),
    bindings: Type.Record(Type.String(), Type.String(), { description: 'API user -> scenario name' }),
    shipped: Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()) })),
  },
  { additionalProperties: false },
);
const Hint = Type.Object({ id: Type.String({ description: 'stable: the mistake' }), text: Type.String({ description: 'the mistake and its fix, in words' }) }, { description: "the client doctor's diagnosis", additionalProperties: false });
const Seq = Type.Integer({ description: 'a journal seq' });
const Finding = Type.Object(
  {
    id: Type.String(),
    severity: Type.Union(SEVERITIES.map((s) => Type.Literal(s))),
    apiUser: Type.String(),
    explanation: Type.String({ description: 'what the client did, why it matters, and the fix' }),
    detail: Type.Optional(Type.String()),
    firstSeq: Seq,
    lastSeq: Seq,
    count: Type.Integer(),
  },
  { additionalProperties: false },
);
const HintSeen = Type.Object(
  { code: Type.Integer(), id: Type.String(), text: Type.String(), apiUser: Type.Optional(Type.String()), firstSeq: Seq, lastSeq: Seq, count: Type.Integer() },
  { additionalProperties: false },
);
const JournalEntry = Type.Object(
  {
    seq: Type.Integer(),
    at: Iso,
    method: Type.String(),
    path: Type.String(),
    endpoint: Type.Optional(Type.String()),
    operation: Type.Optional(Type.String()),
    type: Type.Optional(Type.Integer()),
    apiUser: Type.Optional(Type.String()),
    user: Type.Optional(Type.String()),
    http: Type.Optional(Type.Integer()),
    code: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String()),
    latencyMs: Type.Number(),
    scenario: Type.String(),
    rule: Type.Optional(Type.String()),
    fault: Type.Optional(Type.String()),
    challengeId: Type.Optional(Type.String()),
    expectedStringToSign: Type.Optional(Type.String({ description: '-4037: the string the simulator expected to be signed' })),
    hint: Type.Optional(Hint),
    wouldFail: Type.Optional(Type.Array(Type.Object({ code: Type.Integer(), reason: Type.String(), hint: Type.Optional(Hint) }))),
    internalError: Type.Optional(Type.String()),
    by: Type.Optional(Type.Literal('explorer', { description: "sent by the dashboard's explorer, not a client: left out of the client doctor's findings and hints" })),
    request: Type.Object({
      headers: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), { description: 'the first 100 headers as sent' }),
      body: Type.String(),
      headersLeftOut: Type.Optional(Type.Integer({ description: 'how many headers past the first 100 the journal did not keep' })),
    }),
    response: Type.Optional(Type.Object({ body: Type.String() })),
  },
  { description: 'one request as the simulator saw and answered it; secrets are shown as [secret]' },
);
const Coverage = Type.Object(
  { counts: Type.Record(Type.String(), Type.Integer()), met: Type.Array(Type.Integer()), missing: Type.Array(Type.Integer()) },
  { additionalProperties: false },
);
const Exchange = Type.Object({
  request: Type.Object({ method: Type.String(), url: Type.String(), headers: Type.Record(Type.String(), Type.String()), body: Type.Optional(Type.String()) }),
  response: Type.Object({ status: Type.Integer(), body: Type.String() }),
});

/** How a scenario may be sent: by name, by file (in a scenario directory), or whole (JSON here, YAML as text). */
function scenarioBody(): Record<string, unknown> {
  const scenario = scenarioJsonSchema();
  delete scenario.$schema;
  return {
    required: true,
    content: {
      'application/json': {
        schema: {
          // anyOf, not oneOf: `{ "name": "x" }` is both a name and the smallest whole scenario, and it means the name.
          anyOf: [
            { type: 'object', properties: { name: { type: 'string', description: 'a shipped scenario, or <name>.yaml in a scenario directory' } }, required: ['name'], additionalProperties: false },
            { type: 'object', properties: { file: { type: 'string', description: 'a file in a scenario directory (--scenario-dir)' } }, required: ['file'], additionalProperties: false },
            { type: 'object', properties: { scenario: scenario }, required: ['scenario'], additionalProperties: false },
            scenario,
          ],
        },
      },
      'application/yaml': { schema: { type: 'string', description: 'scenario text (YAML or JSON)' } },
    },
  };
}

const json = (schema: TSchema | Record<string, unknown>, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }]));
const jsonBody = (schema: Record<string, unknown>, required = true) => ({ required, content: { 'application/json': { schema } } });

/** The document. `serverUrl`: the base URL it names. */
export function controlOpenApiDocument(serverUrl: string): Record<string, unknown> {
  const op = (summary: string, ok: Record<string, unknown>, more: Record<string, unknown> = {}, errs: number[] = []) => ({ summary, ...more, responses: { '200': ok, ...errors(401, 403, ...errs) } });
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'a challenge id' };
  const apiUser = { name: 'apiUser', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{9}$' }, description: 'an API user id' };
  return {
    openapi: '3.1.0',
    info: {
      title: 'mfa-sim control API',
      version,
      description:
        'Drives a running mfa-sim from a test: scenarios, bindings, the world, challenges, the clock, the journal and coverage. Answers only a Host naming the machine it runs on (or one given with --allowed-hosts); beyond loopback it needs its token. Errors are `{error, issues?}` with the status given.',
    },
    servers: [{ url: serverUrl }],
    security: [{}, { controlToken: [] }],
    paths: {
      '/__sim/health': { get: { summary: 'Is it up?', security: [{}], responses: { '200': json(Type.Object({ ok: Type.Literal(true), scenario: Type.String() }), 'up, with the active scenario'), ...errors(403) } } },
      '/__sim/scenarios': { get: op('The active scenario, the bindings, the shipped scenarios', json(Scenarios, 'the scenarios')) },
      '/__sim/scenario': { post: op('Load a scenario: it becomes the active one, and the world is reset', json(Type.Object({ active: Type.String(), description: Type.Optional(Type.String()) }), 'loaded'), { requestBody: scenarioBody() }, [400, 413]) },
      '/__sim/bindings/{apiUser}': {
        put: op("Run a scenario for this API user's requests only", json(Type.Object({ apiUser: Type.String(), scenario: Type.String() }), 'bound'), { parameters: [apiUser], requestBody: scenarioBody() }, [400, 413]),
        delete: op('End a binding', json(Type.Object({ apiUser: Type.String(), removed: Type.Boolean() }), 'whether there was one'), { parameters: [apiUser] }),
      },
      '/__sim/reset': { post: op('Forget challenges, replay memory, journal and coverage; put the clock back', json(Type.Object({ reset: Type.Literal(true), scenario: Type.String(), clock: Clock }), 'reset')) },
      '/__sim/challenges': { get: op('The challenges, newest first', json(Type.Array(Challenge), 'the challenges')) },
      '/__sim/challenges/{id}/approve': {
        post: op('The user approves a waiting challenge', json(Challenge, 'approved'), { parameters: [id], requestBody: jsonBody({ type: 'object', properties: { authCode: { type: 'string', minLength: 1, maxLength: 64 } }, additionalProperties: false }, false) }, [400, 404, 409]),
      },
      '/__sim/challenges/{id}/deny': { post: op('The user denies a waiting challenge', json(Challenge, 'denied'), { parameters: [id] }, [404, 409]) },
      '/__sim/challenges/{id}/expire': { post: op('A waiting challenge expires now', json(Challenge, 'expired'), { parameters: [id] }, [404, 409]) },
      '/__sim/clock': { get: op("The simulator's clock", json(Clock, 'the clock')) },
      '/__sim/clock/freeze': { post: op('Stop the clock, at an instant or where it stands', json(Clock, 'the clock'), { requestBody: jsonBody({ type: 'object', properties: { at: { type: ['string', 'number'], description: 'ISO 8601 or epoch ms, 1970 to 9999' } } }, false) }, [400]) },
      '/__sim/clock/unfreeze': { post: op('Let the clock run again', json(Clock, 'the clock')) },
      '/__sim/clock/advance': { post: op('Move the clock', json(Clock, 'the clock'), { requestBody: jsonBody({ type: 'object', properties: { by: { type: ['string', 'number'], description: 'ms, or 90s, 10m, -1h; at most 50 years' } }, required: ['by'] }) }, [400]) },
      '/__sim/journal': {
        get: op('Journal entries, newest first', json(Type.Array(JournalEntry), 'the entries'), {
          parameters: [
            { name: 'code', in: 'query', schema: { type: 'string' }, description: 'a code, or codes separated by commas' },
            { name: 'apiUser', in: 'query', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0 } },
          ],
        }, [400]),
        delete: op('Forget the journal', json(Type.Object({ cleared: Type.Literal(true) }), 'cleared')),
      },
      '/__sim/coverage': { get: op('Which codes of the service were answered, and how often', json(Coverage, 'the coverage')) },
      '/__sim/findings': {
        get: op("The client doctor's findings, worst first, and the hints it gave", json(Type.Object({ findings: Type.Array(Finding), hints: Type.Array(HintSeen) }, { additionalProperties: false }), 'the findings and hints')),
      },
      '/__sim/report': {
        get: {
          summary: 'The report a CI job shows: Markdown, or JUnit XML',
          parameters: [
            { name: 'format', in: 'query', schema: { enum: ['markdown', 'junit'] } },
            { name: 'require', in: 'query', schema: { type: 'string' }, description: 'codes that must have been answered (comma-separated, or all): a JUnit failure each when not' },
            { name: 'failOn', in: 'query', schema: { enum: [...SEVERITIES] }, description: 'findings this severe or worse are JUnit failures' },
          ],
          responses: {
            '200': { description: 'the report', content: { 'text/markdown': { schema: { type: 'string' } }, 'application/xml': { schema: { type: 'string' } } } },
            ...errors(400, 401, 403),
          },
        },
      },
      '/__sim/events': { get: { summary: 'Each new journal entry as a server-sent event `request`', responses: { '200': { description: 'an event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors(401, 403, 503) } } },
      '/__sim/explore': {
        post: op('Send one correctly signed (or deliberately broken) request, as the dashboard does', json(Type.Object({ kind: Type.String(), label: Type.String(), expect: Type.String(), exchanges: Type.Array(Exchange) }), 'what was sent and what came back'), {
          requestBody: jsonBody({ type: 'object', properties: { kind: { enum: Object.keys(EXPLORE_KINDS) }, apiUser: { type: 'string' }, user: { type: 'string' }, challengeId: { type: 'string' }, authCode: { type: 'string' }, ipAddress: { type: 'string' }, challengeType: { type: 'string' }, challengeExpiry: { type: 'string' }, enableQRcode: { type: 'boolean' }, enableAutoVerify: { type: 'boolean' }, clock: { enum: ['simulator', 'machine'] } }, required: ['kind'] }),
        }, [400]),
      },
      '/__sim/ui': { get: { summary: 'The dashboard (HTML)', responses: { '200': { description: 'the page', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(401, 403) } } },
      '/__sim/ui/challenges': { get: { summary: "The dashboard's challenges table (HTML)", responses: { '200': { description: 'the table', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(401, 403) } } },
      '/__sim/openapi.json': { get: { summary: 'This document', security: [{}], responses: { '200': { description: 'the document', content: { 'application/json': { schema: { type: 'object' } } } }, ...errors(403) } } },
    },
    components: {
      securitySchemes: { controlToken: { type: 'apiKey', in: 'header', name: CONTROL_HEADER, description: 'needed when the simulator listens beyond loopback' } },
      responses: Object.fromEntries(
        [
          [400, 'a value, a scenario or a file that cannot be used'],
          [401, 'the control token is needed'],
          [403, 'a Host that does not name this machine, or a change sent by a page of another site'],
          [404, 'no such challenge'],
          [409, 'the challenge is no longer waiting'],
          [413, 'the body is larger than 1 MiB'],
          [503, 'too many event streams'],
        ].map(([s, d]) => [`Error${s}`, json(ErrorAnswer, String(d))]),
      ),
    },
  };
}
