import type { Static, TSchema } from '@sinclair/typebox';
import { RAW_CONTROLS } from '../output/terminal.js';
import { Type } from '@sinclair/typebox';
import { OPERATIONS } from '../contract/codes.js';
import { ENDPOINTS, OPERATION_TYPE } from '../contract/envelope.js';
import { MAX_PRESSES } from './accounts.js';

/** The one schema of a scenario: files, control API bodies and options are checked by it; editors get its JSON. */

export const PERMISSIONS = [...OPERATIONS, 'autoVerify'] as const;
export const FAULTS = ['reset', 'hang', 'truncate', 'garbage', 'proxy-502', 'proxy-503', 'proxy-504'] as const;
/** The faults that break an answer the service gave; the others keep the request from the service. */
export const ANSWERING_FAULTS: ReadonlySet<Fault> = new Set(['truncate', 'garbage']);
export const AUTH_MODES = ['verify', 'log', 'off'] as const;
/** Each rule is judged against every earlier one at load: 2,000 take a fraction of a second, 18,000 took 40 s. */
const MAX_RULES = 2000;

const oneOf = <T extends string>(values: readonly T[], description?: string) => {
  const literals = values.map((v) => Type.Literal(v));
  return Type.Union(literals, { errorMessage: `must be one of: ${values.join(', ')}`, description });
};
const Duration = (description: string) =>
  Type.Union([Type.Number(), Type.String()], {
    errorMessage: 'must be a duration: a number of milliseconds, or a string such as 500ms, 90s, 10m, 2h, -1h',
    description,
  });
const strictObject = <T extends Record<string, TSchema>>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: false, description });
const text = (description?: string) => Type.Optional(Type.String({ description }));
const flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const choice = <T extends string>(values: readonly T[], description?: string) =>
  Type.Optional(oneOf(values, description));
const count = (minimum: number, description: string) => Type.Optional(Type.Integer({ minimum, description }));
/** A name shown in the journal, log and reports: no control characters, which would act on a terminal. */
const Name = (options: { minLength?: number; maxLength?: number; description: string }) =>
  Type.String({
    ...options,
    pattern: `^[^\\u0000-\\u001f${RAW_CONTROLS}]*$`,
    errorMessage: 'must not hold control characters (C0, DEL, C1, bidi controls, line separators)',
  });
const AccountState = Type.Union([Type.String(), Type.Integer()], {
  errorMessage: 'must be an account state name (active, invalid, blocked, locked, ...) or a -2xxx code',
});
const duration = (description: string) => Type.Optional(Duration(description));
const DelayRange = strictObject({ min: Duration('shortest delay'), max: Duration('longest delay') });
const addresses = () => Type.Optional(Type.Array(Type.String(), { description: 'IPv4 addresses or CIDR blocks' }));

const pressAfter = (action: string) =>
  strictObject({ [action]: Duration(`${action} this long after the challenge is made (0 to 1 day)`) });
/** What a person does with a challenge made for them (`people:`). */
const PersonSchema = Type.Union(
  [
    Type.Literal('approve', { description: 'approve 1 s after the challenge is made' }),
    Type.Literal('deny', { description: 'deny 1 s after the challenge is made' }),
    Type.Literal('ignore', { description: 'never answer: the challenge expires at its challengeExpiry' }),
    Type.Array(Type.Union([pressAfter('approve'), pressAfter('deny')]), {
      maxItems: MAX_PRESSES,
      description:
        'presses in time order, each some time after the challenge is made; one after the first, or after expiry, changes nothing',
    }),
  ],
  {
    errorMessage: `must be approve, deny, ignore, or a list of at most ${MAX_PRESSES} presses such as [{approve: 5s}, {deny: 6s}]`,
  },
);

const ApiUserSchema = strictObject(
  {
    id: Type.String({ description: '9-digit API user id' }),
    secret: Type.String({ minLength: 1, description: 'shared secret for HMAC-SHA512 signatures' }),
    state: text('active (default), or any other word: its requests get -1003'),
    permissions: Type.Optional(Type.Array(oneOf(PERMISSIONS), { description: 'operations it may call; default: all' })),
    ipRules: Type.Optional(strictObject({ block: addresses(), allow: addresses() })),
  },
  'an API user: a caller of the service',
);

const RuleSchema = strictObject(
  {
    name: Type.Optional(Name({ description: 'shown in the journal and the log' })),
    when: Type.Optional(
      strictObject(
        {
          endpoint: choice(ENDPOINTS),
          type: Type.Optional(
            Type.Integer({ description: `envelope type: ${Object.values(OPERATION_TYPE).join(', ')}` }),
          ),
          apiUser: text('the 9-digit API user of the request'),
          svcUser: text("the body's user e-mail, exact or glob (*@example.com)"),
          challengeType: text(),
          headers: Type.Optional(
            Type.Record(Type.String(), Type.String(), { description: 'header name -> exact value or glob' }),
          ),
        },
        'every key optional; all given must match',
      ),
    ),
    after: count(0, 'let the first N matching requests through'),
    times: count(1, 'then apply to the next N only'),
    every: count(1, 'apply to every Nth matching request only'),
    respond: Type.Optional(
      strictObject({
        code: Type.Integer({ description: 'any code of the code table' }),
        message: text('replaces the message text'),
      }),
    ),
    delay: Type.Optional(
      Type.Union([Type.Number(), Type.String(), DelayRange], {
        errorMessage: 'must be a duration (800ms, 2s) or a range { min: 100ms, max: 900ms }',
      }),
    ),
    fault: choice(FAULTS, 'break the wire instead of answering normally'),
    hangFor: duration('fault hang: how long the connection is held before it is closed (default 60s, at most 10m)'),
  },
  'a forced outcome: the first rule that matches a request and forces a code or a fault decides; rules that only delay or garble the answer add to it',
);

/** The one schema of a scenario file (and of the scenario keys of the options): JSON Schema and TypeScript types. */
export const ScenarioSchema = strictObject(
  {
    name: Name({ minLength: 1, maxLength: 100, description: 'a scenario is referred to by this name' }),
    description: text(),
    token: text('identifier token in header names, scheme, algorithm and user field (default svc)'),
    strict: flag('reject everything the interface document does not show (default false)'),
    responseStyle: choice(
      ['document', 'sdk'] as const,
      'document: utctime; sdk: utcTime, as the published clients parse it',
    ),
    hints: flag(
      "whether a refusal's message ends with the client doctor's hint (the likely mistake and its fix) or is the code's bare meaning only (default: with the hint)",
    ),
    auth: choice(AUTH_MODES, 'verify (default): every -40xx check; log: accept, but journal what would fail; off'),
    clock: Type.Optional(
      strictObject({
        offset: duration('simulator clock = real time + offset'),
        maxDrift: duration('allowed |client time - simulator time| (default 5m)'),
        frozenAt: Type.Optional(
          Type.Union([Type.String(), Type.Number()], {
            errorMessage: 'must be an ISO 8601 instant or epoch milliseconds',
            description: 'start with the clock stopped here',
          }),
        ),
      }),
    ),
    replay: Type.Optional(
      strictObject({ nonces: flag('-4034 on (default true)'), timestamps: flag('-4035 on (default true)') }),
    ),
    apiUsers: Type.Optional(Type.Array(ApiUserSchema, { description: 'replaces the default API user when given' })),
    accounts: Type.Optional(
      Type.Record(Type.String(), AccountState, { description: 'e-mail or glob -> account state name or -2xxx code' }),
    ),
    defaultAccountState: Type.Optional(AccountState),
    people: Type.Optional(
      Type.Record(Type.String(), PersonSchema, {
        description:
          'e-mail or glob -> what that person does with a challenge made for them: approve, deny, ignore, or presses such as [{approve: 5s}, {deny: 6s}]; wins over the magic addresses',
      }),
    ),
    magicAddresses: flag(
      'whether approve@, deny@, ignore@ and approve-after-<N>s@ (any domain) answer by themselves (default true)',
    ),
    autoVerify: Type.Optional(
      strictObject({
        delay: duration('how long an auto-verify challenge waits before it completes by itself (default 2s)'),
      }),
    ),
    rules: Type.Optional(
      Type.Array(RuleSchema, { maxItems: MAX_RULES, description: `the rules, in order (at most ${MAX_RULES})` }),
    ),
  },
  'an mfa-sim scenario',
);

/** A scenario as written in a file or passed in-process. */
export type ScenarioInput = Static<typeof ScenarioSchema>;
/** An API user as a scenario writes it (`apiUsers[]`). */
export type ApiUserInput = Static<typeof ApiUserSchema>;
/** A rule as a scenario writes it (`rules[]`). */
export type RuleInput = Static<typeof RuleSchema>;
export type Permission = (typeof PERMISSIONS)[number];
export type Fault = (typeof FAULTS)[number];
export type AuthMode = (typeof AUTH_MODES)[number];

/** The scenario schema as JSON Schema (draft 2020-12) for editors, without the simulator's own `errorMessage`s. */
export function scenarioJsonSchema(): Record<string, unknown> {
  const json = JSON.stringify(ScenarioSchema, (key, value: unknown) => (key === 'errorMessage' ? undefined : value));
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'mfa-sim scenario',
    ...(JSON.parse(json) as Record<string, unknown>),
  };
}
