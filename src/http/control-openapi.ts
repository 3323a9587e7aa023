import { version } from '../../package.json';
import { CONTROL_HEADER } from './control-access.js';
import { ErrorAnswer, json } from './control-schemas.js';
import type { Operation } from './routes.js';

/**
 * The OpenAPI 3.1 document of the control API (`/__sim/openapi.json`), made from the table of its routes
 * (control-routes.ts): every route under `/__sim/`, named, with its body and its answers, so that a client of the
 * control API can be generated in any language. The simulated API has its own document at `/openapi.json`.
 */

/** The errors every route may answer, by status: one description each, the same JSON shape. */
const ERRORS: Record<number, string> = {
  400: 'a value, a scenario or a file that cannot be used',
  401: 'the control token is needed',
  403: 'a Host that does not name this machine, or a change sent by a page of another site',
  404: 'no such challenge',
  409: 'the challenge is no longer waiting',
  413: 'the body is larger than 1 MiB',
  503: 'too many event streams',
};

/** The document of these routes. `serverUrl`: the base URL it names. */
export function controlOpenApiDocument(routes: readonly Operation[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const statuses = [...(route.open ? [403] : [401, 403]), ...(route.errors ?? [])].sort((a, b) => a - b);
    const item = (paths[route.path.replace(/:(\w+)/g, '{$1}')] ??= {});
    item[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.open ? { security: [{}] } : {}),
      ...(route.parameters ? { parameters: route.parameters } : {}),
      ...(route.requestBody ? { requestBody: route.requestBody } : {}),
      responses: {
        ...route.answers,
        ...Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }])),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mfa-sim control API',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Drives a running mfa-sim from a test: scenarios, bindings, the world, challenges, the clock, the journal and coverage. Answers only a Host naming the machine it runs on (or one given with --allowed-hosts); beyond loopback it needs its token. Errors are `{error, issues?}` with the status given.',
    },
    servers: [{ url: serverUrl }],
    // The token is needed only beyond loopback: a route may be called with it or without.
    security: [{}, { controlToken: [] }],
    paths,
    components: {
      securitySchemes: {
        controlToken: {
          type: 'apiKey',
          in: 'header',
          name: CONTROL_HEADER,
          description: 'needed when the simulator listens beyond loopback',
        },
      },
      responses: Object.fromEntries(Object.entries(ERRORS).map(([s, d]) => [`Error${s}`, json(ErrorAnswer, d)])),
    },
  };
}
