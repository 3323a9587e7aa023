import { version } from '../../package.json';
import { codeApplies, CODES, isTransportCode, type CodeInfo, type Operation } from './codes.js';
import { authorizationValue, headerNames, stringToSign } from '../auth/signature.js';
import { API_USER_ID } from './api-user.js';
import {
  endpointMethods,
  ENDPOINTS,
  OPERATION_TYPE,
  TYPE_OPERATION,
  endpointTypes,
  type Endpoint,
} from './envelope.js';
import { bodySchemas, requestEnvelopeSchema, responseEnvelopeSchema } from './schemas.js';

interface OpenApiOptions {
  /** The identifier token: header names, the user field. */
  token: string;
  responseStyle: 'document' | 'sdk';
  serverUrl: string;
}

/** The OpenAPI 3.1 document of the simulated API, generated from the code table. */
export function openApiDocument(o: OpenApiOptions): Record<string, unknown> {
  const h = headerNames(o.token);
  const bodies = bodySchemas(o.token);
  const header = (name: string, description: string, pattern: string) => {
    return { name, in: 'header', required: true, description, schema: { type: 'string', pattern } };
  };
  // The Authorization header is the security scheme below: OpenAPI ignores a header parameter of that name.
  const headerParams = [
    header(
      h.utctime,
      'milliseconds since the epoch; at most the drift (default ±5 minutes) from the server clock',
      '^\\d{1,16}$',
    ),
    header(h.nonce, 'fresh for every request, retries included (a UUID)', '^[A-Za-z0-9_-]{8,128}$'),
    header(h.apiUser, 'the API user id', API_USER_ID.source),
  ];

  const paths: Record<string, unknown> = {};
  for (const endpoint of ENDPOINTS) {
    const ops = operationsOf(endpoint);
    const item: Record<string, unknown> = {};
    for (const method of endpointMethods(endpoint)) {
      const withBody = endpoint !== 'time';
      const transport = CODES.filter((c) => c.check === 'transport' && (withBody || c.code !== -413));
      const codes = [...CODES.filter((c) => !isTransportCode(c) && ops.some((op) => codeApplies(c, op))), ...transport];
      const operation: Record<string, unknown> = {
        operationId: `${endpoint}${method === 'GET' ? 'Get' : ''}`,
        summary: ops.map((op) => `${op} (${op === 'time' ? 'no envelope' : `type ${OPERATION_TYPE[op]}`})`).join(', '),
        parameters: headerParams,
        responses: responsesFor(codes, o.responseStyle),
      };
      if (withBody) {
        const envelopes = ops.map((op) =>
          requestEnvelopeSchema(op as Exclude<Operation, 'time'>, bodies[op as Exclude<Operation, 'time'>]),
        );
        operation.requestBody = {
          required: true,
          content: { 'application/json': { schema: envelopes.length === 1 ? envelopes[0] : { oneOf: envelopes } } },
        };
      }
      item[method.toLowerCase()] = operation;
    }
    paths[`/v1/svc/${endpoint}`] = item;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'mfa-sim: the simulated multi-factor challenge and time service',
      version,
      description:
        'Every operation of the service as mfa-sim simulates it, with every status code it can answer. The request schemas are the strict reading of the interface document (the lenient default accepts more: see the README). Each answer is the envelope {id, utctime, status, code, message, moreInfo}; `/status?code=N` explains a code.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: o.serverUrl }],
    security: [{ signature: [] }],
    paths,
    components: {
      securitySchemes: {
        signature: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: `\`${authorizationValue('<id>', '<hex>', o.token)}\`, sent with the ${h.utctime}, ${h.nonce} and ${h.apiUser} headers: the signature is HMAC-SHA512, keyed with the API user's secret, of \`${stringToSign('<utctime>', '<nonce>', o.token).replace('\n', '\\n')}\`, as 128 hexadecimal characters (either case).`,
        },
      },
    },
  };
}

function operationsOf(endpoint: Endpoint): Operation[] {
  return [...new Set(endpointTypes(endpoint, true).map((t) => TYPE_OPERATION.get(t)!))];
}

/** One response per HTTP status, listing the codes it carries. */
function responsesFor(codes: readonly CodeInfo[], style: 'document' | 'sdk'): Record<string, unknown> {
  const byStatus = new Map<number, CodeInfo[]>();
  for (const c of codes) byStatus.set(c.http, [...(byStatus.get(c.http) ?? []), c]);
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((c) => `${c.code} ${c.title}`).join('; '),
      content: {
        'application/json': {
          schema: responseEnvelopeSchema(
            style,
            list.map((c) => c.code),
          ),
        },
      },
    };
  }
  return out;
}
