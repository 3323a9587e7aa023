import { jsonText } from '../output/json.js';
import type { RequestHandler } from 'express';
import { MAX_SCENARIO_BYTES } from '../scenario/files.js';
import type { Simulator } from '../simulator.js';
import { requireControl } from './control-access.js';
import { controlOpenApiDocument } from './control-openapi.js';
import { SCENARIO_ROUTES } from './control-routes-scenarios.js';
import { VIEW_ROUTES } from './control-routes-views.js';
import { WORLD_ROUTES } from './control-routes-world.js';
import { json, type ControlRoute } from './control-schemas.js';
import { controlErrors, declaredWithin, objectBodyOnly } from './control.js';
import { expressLib } from './express.js';
import { routerOf, type Route } from './routes.js';

/**
 * The control API under `/__sim/`, as one table: each route's method and path, its OpenAPI operation (id, summary,
 * parameters, body and answers) and its handler, a row each, in three parts by what the routes act on (scenarios
 * and API users, the world, what happened). The table registers the routes in Express (controlRouter), makes the
 * control OpenAPI document (control-openapi.ts), and tells OPTIONS, the 404 and the 405 which methods a path has
 * (routes.ts). A route is added as one row, once.
 */

/** Every route under `/__sim/`, in the order they are registered (a path's methods are listed in this order). */
export const CONTROL_ROUTES: readonly ControlRoute[] = [
  {
    method: 'GET',
    path: '/__sim/openapi.json',
    operationId: 'getControlOpenApi',
    summary: 'This document',
    // The description of these routes needs no token, as the simulated API's own at /openapi.json.
    open: true,
    answers: { 200: json({ type: 'object' }, 'the document') },
    handler: (sim) => (req, res) =>
      void res.type('json').send(jsonText(controlOpenApiDocument(CONTROL_ROUTES, sim.links.base(req.headers.host)))),
  },
  ...SCENARIO_ROUTES,
  ...WORLD_ROUTES,
  ...VIEW_ROUTES,
];

/** A scenario sent to the control API is at most as long as a scenario file (1 MiB); any other body, 16 KiB. */
const SCENARIO_BODY_LIMIT = MAX_SCENARIO_BYTES;
const JSON_BODY_LIMIT = 16 * 1024;

/** The table's routes for one simulator, as Express registers them: the token guard, the body's parser, the handler. */
export function controlRoutes(sim: Simulator): Route[] {
  const guard = requireControl(() => sim.secrets.controlToken);
  const express = expressLib();
  const bodies: Record<NonNullable<ControlRoute['body']>, RequestHandler[]> = {
    // A scenario comes as a JSON object or as text of a text type: JSON of another kind (an array, a string, a
    // number, null) is refused as a small JSON body's is, not read as no scenario or as scenario text.
    scenario: [
      declaredWithin(SCENARIO_BODY_LIMIT),
      express.json({ limit: SCENARIO_BODY_LIMIT }),
      objectBodyOnly,
      express.text({
        type: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'],
        limit: SCENARIO_BODY_LIMIT,
      }),
    ],
    json: [declaredWithin(JSON_BODY_LIMIT), express.json({ limit: JSON_BODY_LIMIT }), objectBodyOnly],
  };
  return CONTROL_ROUTES.map((route) => ({
    method: route.method,
    path: route.path,
    handlers: [...(route.open ? [] : [guard]), ...(route.body ? bodies[route.body] : []), route.handler(sim)],
  }));
}

/** The control API's router: the table's routes, then its errors as JSON. */
export function controlRouter(routes: readonly Route[]) {
  const router = routerOf(routes, 'this control route');
  router.use('/__sim', controlErrors);
  return router;
}
