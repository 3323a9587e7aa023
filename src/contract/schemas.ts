import type { TSchema } from '@sinclair/typebox';
import { userKeyOf } from '../auth/signature.js';
import { Type } from '@sinclair/typebox';
import type { Operation } from './codes.js';
import { API_USER_ID } from './api-user.js';
import { CHALLENGE_TYPES, EXPIRY_MS, OPERATION_TYPE } from './envelope.js';

// The request envelope and each operation's body as the interface document shows them.

const EMAIL_FORMAT = { format: 'email', maxLength: 125 } as const;
const CHALLENGE_ID = Type.String({ minLength: 1, description: 'the id a 2025 answer gave' });

/** The body of each operation; the user field is `<token>User`. Time has no envelope. */
export function bodySchemas(token: string): Record<Exclude<Operation, 'time'>, TSchema> {
  const user = { [userKeyOf(token)]: Type.String({ ...EMAIL_FORMAT, description: "the user's e-mail address" }) };
  // Status and verify take these too, unread.
  const lookUp = {
    verifyType: Type.Optional(Type.String()),
    expiry: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
  };
  return {
    challenge: Type.Object(
      {
        ...user,
        challengeType: Type.Union(CHALLENGE_TYPES.map((t) => Type.Literal(t))),
        challengeExpiry: Type.Optional(
          Type.Union(
            Object.keys(EXPIRY_MS).map((e) => Type.Literal(e)),
            { description: 'default FifteenMins' },
          ),
        ),
        enableQRcode: Type.Optional(Type.Boolean({ description: 'default true: the answer carries the QR image' })),
        enableAutoVerify: Type.Optional(
          Type.Boolean({ description: 'the challenge completes by itself (needs the autoVerify permission)' }),
        ),
        profile: Type.Optional(Type.String()),
        status: Type.Optional(Type.Literal('NEW')),
        ipAddress: Type.Optional(
          Type.String({ format: 'ipv4', description: 'required when the API user has IP rules' }),
        ),
      },
      { additionalProperties: false, description: 'a new challenge (type 150)' },
    ),
    cancel: Type.Object(
      { ...user, challengeId: CHALLENGE_ID, status: Type.Literal('CANCEL') },
      { additionalProperties: false, description: 'cancel a waiting challenge (type 151)' },
    ),
    status: Type.Object(
      { ...user, challengeId: CHALLENGE_ID, ...lookUp },
      { additionalProperties: false, description: 'the state of a challenge (type 171)' },
    ),
    verify: Type.Object(
      {
        ...user,
        challengeId: CHALLENGE_ID,
        authCode: Type.String({ maxLength: 64, description: 'the code the user was shown' }),
        ...lookUp,
      },
      { additionalProperties: false, description: 'verify the auth code of an approved challenge (type 170)' },
    ),
    blocked: Type.Object(
      { ...user, ipAddress: Type.String({ format: 'ipv4' }) },
      { additionalProperties: false, description: 'whether the user is blocked at an address (type 950)' },
    ),
  };
}

/** The request envelope of an operation: `{id?, utctime, apiUser, type, body}`. */
export function requestEnvelopeSchema(op: Exclude<Operation, 'time'>, body: TSchema): TSchema {
  return Type.Object(
    {
      id: Type.Optional(Type.String({ maxLength: 25, description: 'your reference, echoed in the answer' })),
      utctime: Type.String({ pattern: '^\\d{1,16}$', description: 'milliseconds since the epoch, as text' }),
      apiUser: Type.String({ pattern: API_USER_ID.source, description: 'the authenticated API user' }),
      type: Type.Literal(OPERATION_TYPE[op]),
      body,
    },
    { additionalProperties: false },
  );
}

/** The response envelope (docs/behaviour.md#responses). */
export function responseEnvelopeSchema(style: 'document' | 'sdk', codes: readonly number[]): TSchema {
  return Type.Object(
    {
      id: Type.String({ description: 'your id, or sim-<n>' }),
      [style === 'sdk' ? 'utcTime' : 'utctime']: Type.String({
        format: 'date-time',
        description: "the server's time, ISO 8601 with milliseconds",
      }),
      status: Type.Integer({ description: 'the HTTP status' }),
      code: Type.Integer({ enum: [...codes], description: 'the status codes this answer may carry' }),
      message: Type.String({ description: 'JSON text for a success, a sentence for an error' }),
      moreInfo: Type.String({ format: 'uri', description: "this simulator's page for the code" }),
    },
    { additionalProperties: false },
  );
}
