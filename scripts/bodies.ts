/**
 * The page of every operation's request (docs/requests.md), generated: the envelope and each body's fields, their
 * types, whether they are required and the values allowed, from the schemas the OpenAPI document is made of
 * (src/contract/schemas.ts, the strict reading); the code each mistake gets, from the list below, named by the code
 * table; and a copyable example. test/contract/request-bodies.test.ts sends every example and every mistake listed
 * here to a running simulator and checks the code, so the page cannot say what the simulator does not do.
 */
import type { TSchema } from '@sinclair/typebox';
import { mustCode, type Operation } from '../src/contract/codes.js';
import { OPERATION_TYPE } from '../src/contract/envelope.js';
import { bodySchemas, requestEnvelopeSchema } from '../src/contract/schemas.js';

/** Where a mistake is made: a key of the body, or of the envelope around it. */
export type Place = 'body' | 'envelope';

/** One mistake, as sent: a field left out, or given a value, and the code the simulator answers. */
export interface Mistake {
  /** What is wrong, in words. */
  words: string;
  /** The value sent in the field's place; absent: the field is left out. */
  value?: unknown;
  code: number;
  /** A value lenient reading (the default) accepts, answered as the example is; strict refuses it with `code`. */
  lenient?: true;
}

/** An operation as the page shows it. */
export interface BodyOperation {
  op: Exclude<Operation, 'time'>;
  title: string;
  endpoint: string;
  /** The body of the copyable example (`<challengeId>`: the id a 2025 answer gave). */
  example: Record<string, unknown>;
  /** What the example is answered, when the challenge it names is in the state said. */
  answer: { code: number; when?: string };
  /** The mistakes of each body field. */
  mistakes: Record<string, Mistake[]>;
}

/** Stands for the id of a challenge the example's API user and user have (a 2025 answer gave it). */
export const CHALLENGE_ID = '<challengeId>';
const USER = 'user@example.com';
const LONG_EMAIL = `${'a'.repeat(114)}@example.com`;

const user: Mistake[] = [
  { words: 'left out', code: -5077 },
  { words: 'not an e-mail address', value: 'bob', code: -5079 },
  { words: 'over 125 characters', value: LONG_EMAIL, code: -5075 },
  { words: 'not a string', value: 42, code: -5075 },
  { words: 'Base64 of the address', value: Buffer.from(USER).toString('base64'), code: -5079, lenient: true },
];
const challengeId = (unknown: number): Mistake[] => [
  { words: 'left out', code: -5075 },
  { words: 'not a string', value: 7, code: -5075 },
  { words: 'no challenge of this API user and user', value: '00000000-0000-4000-8000-000000000000', code: unknown },
];
const optionalText: Mistake[] = [{ words: 'not a string', value: 5, code: -5075 }];

export const BODY_OPERATIONS: readonly BodyOperation[] = [
  {
    op: 'challenge',
    title: 'New challenge',
    endpoint: '/v1/svc/challenge',
    example: { svcUser: USER, challengeType: 'UserKeyAndPattern', challengeExpiry: 'FiveMins', enableQRcode: false },
    answer: { code: 2025 },
    mistakes: {
      svcUser: user,
      challengeType: [
        { words: 'left out', code: -5078 },
        { words: 'not one of the five', value: 'UserKeyAndFingerprint', code: -5076 },
        { words: 'not a string', value: 1, code: -5075 },
      ],
      challengeExpiry: [
        { words: 'not one of the four', value: 'TwoMins', code: -5075 },
        { words: 'TenMins or SixtyMins (sent by real clients)', value: 'TenMins', code: -5075, lenient: true },
      ],
      enableQRcode: [
        { words: 'not a boolean', value: 'yes', code: -5075 },
        { words: 'the text "true" or "false"', value: 'true', code: -5075, lenient: true },
      ],
      enableAutoVerify: [{ words: 'not a boolean', value: 1, code: -5075 }],
      profile: optionalText,
      status: [{ words: 'anything but NEW', value: 'CANCEL', code: -5075 }],
      ipAddress: [{ words: 'not an IPv4 address', value: '203.0.113', code: -5075 }],
    },
  },
  {
    op: 'cancel',
    title: 'Cancel a challenge',
    endpoint: '/v1/svc/challenge',
    example: { svcUser: USER, challengeId: CHALLENGE_ID, status: 'CANCEL' },
    answer: { code: 2028, when: 'waiting' },
    mistakes: {
      svcUser: user,
      challengeId: challengeId(-2035),
      status: [
        { words: 'left out', code: -5075 },
        { words: 'anything but CANCEL', value: 'NEW', code: -5075 },
        { words: 'in lower case', value: 'cancel', code: -5075, lenient: true },
      ],
    },
  },
  {
    op: 'status',
    title: 'Challenge status',
    endpoint: '/v1/svc/status',
    example: { svcUser: USER, challengeId: CHALLENGE_ID },
    answer: { code: -3091, when: 'waiting (3080 once approved, -3092 once denied, expired or cancelled)' },
    mistakes: {
      svcUser: user,
      challengeId: challengeId(-3087),
      verifyType: optionalText,
      expiry: optionalText,
      status: optionalText,
    },
  },
  {
    op: 'verify',
    title: 'Verify the auth code',
    endpoint: '/v1/svc/verify',
    example: { svcUser: USER, challengeId: CHALLENGE_ID, authCode: '123456' },
    answer: { code: 3080, when: 'approved with auth code 123456' },
    mistakes: {
      svcUser: user,
      challengeId: challengeId(-3087),
      authCode: [
        { words: 'left out', code: -3087 },
        { words: 'not the code the user was shown', value: '654321', code: -3087 },
        { words: 'over 64 characters', value: '1'.repeat(65), code: -5075 },
      ],
      verifyType: optionalText,
      expiry: optionalText,
      status: optionalText,
    },
  },
  {
    op: 'blocked',
    title: 'Blocked check',
    endpoint: '/v1/svc/blocked',
    example: { svcUser: USER, ipAddress: '198.51.100.7' },
    answer: { code: 6020 },
    mistakes: {
      svcUser: user,
      ipAddress: [
        { words: 'left out', code: -5075 },
        { words: 'not an IPv4 address', value: '2001:db8::1', code: -5075 },
      ],
    },
  },
];

/** The envelope's mistakes, the same for every operation (shown, and tested, on a new challenge's). */
export const ENVELOPE_MISTAKES: Record<string, Mistake[]> = {
  id: [{ words: 'over 25 characters', value: 'r'.repeat(26), code: -5075 }],
  utctime: [{ words: 'a number', value: 1795446138020, code: -5075, lenient: true }],
  apiUser: [
    { words: 'left out', code: -1003 },
    { words: 'not the API user the headers authenticate', value: '999999999', code: -1003 },
  ],
  type: [{ words: 'not an operation of the endpoint', value: 990, code: -5072 }],
  body: [
    { words: 'left out, or null', code: -5070 },
    { words: 'not an object', value: [1], code: -5071 },
    {
      words: 'a string holding the JSON',
      value: JSON.stringify(BODY_OPERATIONS[0].example),
      code: -5071,
      lenient: true,
    },
  ],
};

/** The example's envelope: what a client sends, `utctime` being its time (the headers' is the one checked). */
export function exampleEnvelope(
  o: BodyOperation,
  utctime = '1795446138020',
  apiUser = '123456789',
): Record<string, unknown> {
  return { id: 'ref-1', utctime, apiUser, type: OPERATION_TYPE[o.op], body: o.example };
}

type Schema = TSchema & {
  type?: string;
  anyOf?: Schema[];
  const?: unknown;
  format?: string;
  maxLength?: number;
  pattern?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
};

const FORMAT_WORDS: Record<string, string> = { email: 'an e-mail address', ipv4: 'an IPv4 address (dotted quad)' };
const PATTERN_WORDS: Record<string, string> = { '^\\d{9}$': '9 digits', '^\\d{1,16}$': '1 to 16 digits' };

function typeOf(s: Schema): string {
  if (s.anyOf) return [...new Set(s.anyOf.map(typeOf))].join(' or ');
  if (s.const !== undefined) return typeof s.const === 'number' ? 'integer' : typeof s.const;
  return s.type === 'object' ? 'object' : (s.type ?? 'any');
}

function allowed(s: Schema): string {
  const words: string[] = [];
  if (s.anyOf?.every((a) => a.const !== undefined))
    words.push(`one of ${s.anyOf.map((a) => `\`${String(a.const)}\``).join(', ')}`);
  if (s.const !== undefined) words.push(`\`${JSON.stringify(s.const)}\``);
  if (s.format) words.push(FORMAT_WORDS[s.format] ?? s.format);
  if (s.pattern) words.push(PATTERN_WORDS[s.pattern] ?? `\`${s.pattern}\``);
  if (s.maxLength !== undefined) words.push(`at most ${s.maxLength} characters`);
  if (s.description) words.push(s.description);
  return words.join('; ');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function shownValue(v: unknown): string {
  const text = JSON.stringify(v);
  return text.length <= 32 ? ` \`${text}\`` : '';
}

function mistakeWords(list: readonly Mistake[] | undefined): string {
  return (list ?? [])
    .map(
      (m) =>
        `${m.words}${m.value === undefined ? '' : shownValue(m.value)}: ${m.lenient ? `accepted; strict ${m.code}` : m.code}`,
    )
    .join('<br>');
}

function fieldTable(schema: Schema, mistakes: Record<string, readonly Mistake[]>): string {
  const rows = Object.entries(schema.properties ?? {}).map(
    ([name, s]) =>
      `| \`${name}\` | ${typeOf(s)} | ${schema.required?.includes(name) ? 'yes' : ''} | ${cell(allowed(s))} | ${cell(mistakeWords(mistakes[name]))} |`,
  );
  return ['| Field | Type | Required | Allowed | A mistake and its code |', '|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}

function codeWords(code: number): string {
  return `${code} ${mustCode(code).title}`;
}

/** The generated part of docs/requests.md. */
export function bodiesPage(): string {
  const bodies = bodySchemas('svc') as Record<string, Schema>;
  const envelope = requestEnvelopeSchema('challenge', bodies.challenge) as Schema;
  const { body: _body, ...envelopeFields } = envelope.properties!;
  const out = [
    '## The envelope',
    '',
    "Every operation but the time is a POST whose JSON body is this envelope, with the operation's fields in `body`.",
    '',
    fieldTable(
      {
        ...envelope,
        properties: {
          ...envelopeFields,
          type: {
            type: 'integer',
            description: 'the operation: 150 or 151 on /challenge, 171 on /status, 170 on /verify, 950 on /blocked',
          } as Schema,
          body: { type: 'object', description: "the operation's fields (below)" } as Schema,
        },
      },
      ENVELOPE_MISTAKES,
    ),
    '',
  ];
  for (const o of BODY_OPERATIONS) {
    out.push(
      `## ${o.title} (type ${OPERATION_TYPE[o.op]})`,
      '',
      `\`POST ${o.endpoint}\`, answered ${codeWords(o.answer.code)}${o.answer.when ? ` when the challenge is ${o.answer.when}` : ''}.`,
      '',
      fieldTable(bodies[o.op], o.mistakes),
      '',
      '```json',
      JSON.stringify(exampleEnvelope(o)),
      '```',
      '',
    );
  }
  out.push(
    '## Time (type 990)',
    '',
    `\`GET /v1/svc/time\` with no body (or \`POST\`, whose body is not read), answered ${codeWords(15000)}: \`{"utc-time":"<whole epoch seconds>"}\` in \`message\`.`,
    '',
    'The codes a mistake gets, in words:',
    '',
    ...[-1003, -5070, -5071, -5072, -5075, -5076, -5077, -5078, -5079, -2035, -3087].map(
      (c) => `- ${codeWords(c)}: ${cell(mustCode(c).explain)}`,
    ),
  );
  return out.join('\n');
}
