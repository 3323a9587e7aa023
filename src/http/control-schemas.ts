import type { ObjectOptions, TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { RequestHandler } from 'express';
import { API_USER_ID } from '../contract/api-user.js';
import { SEVERITIES } from '../run/finding-types.js';
import { scenarioJsonSchema } from '../scenario/schema.js';
import { Type } from '@sinclair/typebox';
import type { Simulator } from '../simulator/simulator.js';
import { ENDED_BY } from '../world/challenges.js';
import { ACTOR_NAMES, CHALLENGE_STATES } from '../world/steps.js';
import type { Method } from './routes.js';

/**
 * The shapes the rows of the control API's table (control-routes.ts) name: bodies, answers and parameters, as JSON
 * Schema (TypeBox), which the OpenAPI document carries and which check the bodies. A body's `errorMessage` is the
 * whole 400 its route answers when the key is wrong (on the object: when a required key is missing).
 */

/** A route of the control API: its OpenAPI operation, its body, and its handler (made once per simulator). */
export interface ControlRoute {
  method: Method;
  /** Express's syntax (`/__sim/bindings/:apiUser`); the document writes `{apiUser}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Answered without the control token (a Host naming this machine is still required). */
  open?: true;
  parameters?: Record<string, unknown>[];
  /** A scenario (JSON, or YAML as text, up to 1 MiB), or a small JSON object (up to 16 KiB) of this schema. */
  body?: 'scenario' | 'optional scenario' | TObject;
  /** The answers of success, by status. */
  answers: Record<string, Record<string, unknown>>;
  /** The error statuses it answers beyond 401 (the token) and 403 (the Host, a cross-site change). */
  errors?: number[];
  handler: (sim: Simulator) => RequestHandler;
}

/** A parameter of a route: in its path (required) or its query. */
const param = (name: string, at: 'path' | 'query', schema: object, description: string) => ({
  name,
  in: at,
  ...(at === 'path' ? { required: true } : {}),
  schema,
  description,
});
export const id = param('id', 'path', { type: 'string' }, 'a challenge id');
export const apiUser = param('apiUser', 'path', { type: 'string', pattern: API_USER_ID.source }, 'an API user id');
export const scope = param(
  'scope',
  'query',
  { enum: ['run', 'scenario'] },
  'the whole run (default: every request since start, across scenario loads) or the current scenario',
);
export const gates = [
  param('require', 'query', { type: 'string' }, 'codes that must have been answered (comma-separated, or all)'),
  param('failOn', 'query', { enum: [...SEVERITIES] }, 'findings this severe or worse fail'),
];
export const journalQuery = [
  param('code', 'query', { type: 'string' }, 'a code, or codes separated by commas'),
  param('apiUser', 'query', { type: 'string' }, "one API user's entries"),
  param('limit', 'query', { type: 'integer', minimum: 0 }, 'at most this many'),
];
export const reportQuery = [
  param('format', 'query', { enum: ['markdown', 'junit'] }, 'markdown (default) or junit'),
  ...gates,
  scope,
];

/** An object with these keys and no others. */
const Closed = <T extends TProperties>(keys: T, options: ObjectOptions = {}) =>
  Type.Object(keys, { additionalProperties: false, ...options });
export const ErrorAnswer = Closed({
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
});
const Iso = Type.String({ format: 'date-time' });
const State = Type.Union(CHALLENGE_STATES.map((s) => Type.Literal(s)));
export const Challenge = Closed({
  id: Type.String(),
  apiUser: Type.String(),
  user: Type.String(),
  state: State,
  challengeType: Type.String(),
  expiry: Type.String(),
  createdAt: Iso,
  expiresAt: Iso,
  autoVerifyAt: Type.Optional(Iso),
  endedAt: Type.Optional(Iso),
  endedBy: Type.Optional(Type.Union(ENDED_BY.map((s) => Type.Literal(s)))),
  trail: Type.Array(
    Closed({
      state: State,
      at: Iso,
      by: Type.Union(ACTOR_NAMES.map((a) => Type.Literal(a))),
      pressed: Type.Optional(
        Type.Union([Type.Literal('approve'), Type.Literal('deny')], {
          description: 'a scripted press on a challenge that had already ended: it changed nothing',
        }),
      ),
    }),
    {
      description:
        'each step of its life and who took it: client, explorer, phone (the user on the phone page), control (a control call), clock, auto-verify, scenario (the person it scripts: people:, a magic address)',
    },
  ),
  authCode: Type.Optional(Type.String({ description: 'the code the user was shown' })),
  ipAddress: Type.Optional(Type.String()),
});
export const Clock = Closed({
  now: Type.Number({ description: 'simulator time, epoch ms' }),
  iso: Iso,
  frozen: Type.Boolean(),
  offsetMs: Type.Number({
    description: "the clock.offset of the scenario it runs under (the simulator's clock: the active scenario's)",
  }),
});
export const Scenarios = Closed({
  active: Type.String(),
  bindings: Type.Record(Type.String(), Type.String(), { description: 'API user -> scenario name' }),
  shipped: Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()) })),
});
const Hint = Closed(
  {
    id: Type.String({ description: 'stable: the mistake' }),
    text: Type.String({ description: 'the mistake and its fix, in words' }),
  },
  { description: "the client doctor's diagnosis" },
);
const Seq = Type.Integer({ description: 'a journal seq' });
const Finding = Closed({
  id: Type.String(),
  severity: Type.Union(SEVERITIES.map((s) => Type.Literal(s))),
  apiUser: Type.String(),
  explanation: Type.String({ description: 'what the client did, why it matters, and the fix' }),
  detail: Type.Optional(Type.String()),
  firstSeq: Seq,
  lastSeq: Seq,
  count: Type.Integer(),
  unsigned: Type.Optional(
    Type.Literal(true, {
      description: 'made only from requests no API user signed (an unknown API user): listed, never failing a run',
    }),
  ),
});
const HintSeen = Closed({
  code: Type.Integer(),
  id: Type.String(),
  text: Type.String(),
  apiUser: Type.Optional(Type.String()),
  firstSeq: Seq,
  lastSeq: Seq,
  count: Type.Integer(),
});
export const JournalEntry = Type.Object(
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
    expectedStringToSign: Type.Optional(
      Type.String({ description: '-4037: the string the simulator expected to be signed' }),
    ),
    hint: Type.Optional(Hint),
    wouldFail: Type.Optional(
      Type.Array(Type.Object({ code: Type.Integer(), reason: Type.String(), hint: Type.Optional(Hint) })),
    ),
    internalError: Type.Optional(Type.String()),
    by: Type.Optional(
      Type.Literal('explorer', {
        description:
          "sent by the dashboard's explorer, not a client: left out of the client doctor's findings and hints",
      }),
    ),
    request: Type.Object({
      headers: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: 'the first 100 headers as sent',
      }),
      body: Type.String(),
      headersLeftOut: Type.Optional(
        Type.Integer({ description: 'how many headers past the first 100 the journal did not keep' }),
      ),
    }),
    response: Type.Optional(Type.Object({ body: Type.String() })),
  },
  { description: 'one request as the simulator saw and answered it; secrets are shown as [secret]' },
);
export const Coverage = Closed({
  counts: Type.Record(Type.String(), Type.Integer()),
  met: Type.Array(Type.Integer()),
  missing: Type.Array(Type.Integer()),
});
const ObserverFailure = Closed(
  { observer: Type.String(), count: Type.Integer(), message: Type.String(), firstSeq: Seq, lastSeq: Seq },
  { description: 'an observer of traffic that failed: coverage and findings may be wrong' },
);
export const Findings = Closed({
  findings: Type.Array(Finding),
  hints: Type.Array(HintSeen),
  observerFailures: Type.Array(ObserverFailure),
});
export const Verdict = Closed({
  status: Type.Union(
    [0, 3, 4, 5].map((n) => Type.Literal(n)),
    {
      description:
        "the command line's exit status: 0 passed, 3 a required code never answered, 4 findings that fail, 5 an observer failed",
    },
  ),
  lines: Type.Array(Type.String(), { description: 'why it failed, one line per reason' }),
  unmet: Type.Array(Type.Integer(), { description: 'the required codes never answered' }),
});
export const Claimed = Closed({
  apiUser: Type.String({ description: 'a new API user id, 9 digits' }),
  secret: Type.String({ description: 'its secret' }),
  scenario: Type.String({ description: 'the scenario it runs' }),
  url: Type.String({ description: 'the base URL to send its requests to' }),
  token: Type.String({ description: 'the identifier token in force' }),
});
/** How a scenario may be sent: by name, by file (in a scenario directory), or whole (JSON here, YAML as text). */
export function scenarioBody(required: boolean): Record<string, unknown> {
  const scenario = scenarioJsonSchema();
  delete scenario.$schema;
  return {
    required,
    content: {
      'application/json': {
        schema: {
          // anyOf, not oneOf: `{ "name": "x" }` is both a name and the smallest whole scenario, and it means the name.
          anyOf: [
            {
              type: 'object',
              properties: {
                name: { type: 'string', description: 'a shipped scenario, or <name>.yaml in a scenario directory' },
              },
              required: ['name'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: { file: { type: 'string', description: 'a file in a scenario directory (--scenario-dir)' } },
              required: ['file'],
              additionalProperties: false,
            },
            { type: 'object', properties: { scenario: scenario }, required: ['scenario'], additionalProperties: false },
            scenario,
          ],
        },
      },
      'application/yaml': { schema: { type: 'string', description: 'scenario text (YAML or JSON)' } },
    },
  };
}

/** A JSON answer of this schema. */
export const json = (schema: TSchema | Record<string, unknown>, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
/** An answer of another type, as text. */
export const text = (description: string, ...types: string[]) => ({
  description,
  content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string' } }])),
});

/** Where the clock stops: an instant (the simulator checks its range, in its own words). */
const Instant = Type.Union([Type.String(), Type.Number()], {
  description: 'ISO 8601 or epoch ms, 1970 to 9999',
  errorMessage: 'at: must be an instant: ISO 8601 such as 2026-01-01T00:00:00Z, or epoch milliseconds',
});
/** How far the clock moves (the simulator checks the duration and its range). */
const Step = Type.Union([Type.String(), Type.Number()], {
  description: 'ms, or 90s, 10m, -1h; at most 50 years',
  errorMessage: 'by: must be a duration: a number of milliseconds, or 500ms, 90s, 10m, 2h, -1h, 3d',
});
export const ApproveBody = Type.Object({
  authCode: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, errorMessage: 'authCode must be a string of 1 to 64 characters' }),
  ),
});
export const FreezeBody = Type.Object({ at: Type.Optional(Instant) });
export const AdvanceBody = Type.Object(
  { by: Step },
  { errorMessage: 'send { "by": "5m" } (a duration, or milliseconds)' },
);
