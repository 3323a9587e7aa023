import { describe, expect, it } from 'vitest';
import {
  BODY_OPERATIONS,
  CHALLENGE_ID,
  ENVELOPE_MISTAKES,
  exampleEnvelope,
  type BodyOperation,
  type Mistake,
} from '../../scripts/bodies.js';
import { bodySchemas, requestEnvelopeSchema } from '../../src/contract/schemas.js';
import type { RunningSimulator } from '../../src/index.js';
import { challengeEnvelope, clientTime, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * docs/requests.md, generated from the schemas and scripts/bodies.ts, says what every operation's body holds and the
 * code each mistake gets. Here every example and every mistake it lists is sent to a running simulator, lenient and
 * strict, and answered as the page says; and the page lists mistakes for exactly the fields the schemas have.
 */

const SECRET = 'bodies-secret';
const AUTH_CODE = '123456';

describe('docs/requests.md says what the simulator answers', async () => {
  const lenient = await simulator({ secret: SECRET });
  const strict = await simulator({ secret: SECRET, strict: true });
  const modes = [
    ['lenient', lenient],
    ['strict', strict],
  ] as const;

  /** The example's envelope, its challenge made (and approved, for verify) so that the example gets its answer. */
  const prepared = async (sim: RunningSimulator, o: BodyOperation) => {
    const envelope = exampleEnvelope(o, String(clientTime(sim)), sim.apiUser.id) as {
      body: Record<string, unknown>;
    } & Record<string, unknown>;
    const body = { ...envelope.body };
    if (body.challengeId === CHALLENGE_ID) {
      const made = expectEnvelope(
        await send(sim, '/v1/svc/challenge', {
          as: { apiUser: sim.apiUser.id, secret: SECRET },
          body: challengeEnvelope(sim.apiUser.id),
        }),
        202,
        2025,
      );
      body.challengeId = (JSON.parse(made.message) as { challengeId: string }).challengeId;
      if (o.op === 'verify') sim.approve(body.challengeId as string, AUTH_CODE);
    }
    return { ...envelope, body };
  };
  const sent = async (
    sim: RunningSimulator,
    o: BodyOperation,
    change: (envelope: Record<string, unknown> & { body: Record<string, unknown> }) => void = () => {},
  ) => {
    const envelope = await prepared(sim, o);
    change(envelope);
    const r = await send(sim, o.endpoint, { as: { apiUser: sim.apiUser.id, secret: SECRET }, body: envelope });
    return { status: r.status, code: r.json.code, message: r.json.message };
  };
  const expectedCode = (o: BodyOperation, m: Mistake, mode: 'lenient' | 'strict') =>
    m.lenient && mode === 'lenient' ? o.answer.code : m.code;
  const put = (target: Record<string, unknown>, field: string, m: Mistake) => {
    if (m.value === undefined) delete target[field];
    else target[field] = m.value;
  };

  for (const o of BODY_OPERATIONS) {
    it(`${o.title}: the example gets ${o.answer.code}, and each mistake its code, lenient and strict`, async () => {
      for (const [mode, sim] of modes) {
        expect((await sent(sim, o)).code, `${mode} example`).toBe(o.answer.code);
        for (const [field, mistakes] of Object.entries(o.mistakes)) {
          for (const m of mistakes) {
            const got = await sent(sim, o, (e) => put(e.body, field, m));
            expect(got.code, `${mode} ${o.op} ${field}: ${m.words} (${got.message})`).toBe(expectedCode(o, m, mode));
          }
        }
      }
    });
  }

  it("the envelope's mistakes, on a new challenge's envelope", async () => {
    const o = BODY_OPERATIONS.find((b) => b.op === 'challenge')!;
    for (const [mode, sim] of modes) {
      for (const [field, mistakes] of Object.entries(ENVELOPE_MISTAKES)) {
        for (const m of mistakes) {
          const got = await sent(sim, o, (e) => put(e, field, m));
          expect(got.code, `${mode} envelope ${field}: ${m.words} (${got.message})`).toBe(expectedCode(o, m, mode));
        }
      }
    }
  });

  it('lists mistakes for every field of every schema, and for no field the schemas lack', () => {
    const schemas = bodySchemas('svc') as unknown as Record<string, { properties: Record<string, unknown> }>;
    for (const o of BODY_OPERATIONS)
      expect(Object.keys(o.mistakes).sort(), o.op).toEqual(Object.keys(schemas[o.op].properties).sort());
    expect(BODY_OPERATIONS.map((o) => o.op).sort()).toEqual(Object.keys(schemas).sort());
    const envelope = requestEnvelopeSchema('challenge', schemas.challenge as never) as unknown as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(ENVELOPE_MISTAKES).sort()).toEqual(Object.keys(envelope.properties).sort());
  });

  it('each example is valid under the OpenAPI schema it is documented by', async () => {
    const { default: Ajv2020 } = await import('ajv/dist/2020.js');
    const { default: addFormats } = await import('ajv-formats');
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const schemas = bodySchemas('svc');
    for (const o of BODY_OPERATIONS) {
      const envelope = exampleEnvelope(o) as { body: Record<string, unknown> };
      const body = {
        ...envelope.body,
        challengeId:
          envelope.body.challengeId === CHALLENGE_ID
            ? 'c0ffee00-0000-4000-8000-000000000000'
            : envelope.body.challengeId,
      };
      if (body.challengeId === undefined) delete body.challengeId;
      expect(
        ajv.validate(requestEnvelopeSchema(o.op, schemas[o.op]), { ...envelope, body }),
        `${o.op}: ${ajv.errorsText()}`,
      ).toBe(true);
    }
  });
});
