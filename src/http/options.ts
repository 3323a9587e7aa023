import type { NextFunction, Request, Response } from 'express';
import { methodsAt, type RoutingLayer } from './control-missing.js';

/**
 * OPTIONS on a page or a control route: 204 with the path's methods in `Allow`, and no body. Express's routers would
 * answer 200 with the list as text/plain, the one answer of the app that was neither JSON, a page nor empty. A path
 * with no route goes on: a JSON 404 under /__sim, the simulated API's -404 envelope elsewhere. The simulated API
 * itself (`/v1/`) never comes here: its request path answers OPTIONS with -405, as the service does. The methods
 * are no secret: a 405 names them too, and the OpenAPI documents describe every route.
 */
export function answerOptions(routing: () => readonly RoutingLayer[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'OPTIONS') return next();
    let allowed: Set<string>;
    try {
      allowed = methodsAt(routing(), req.path);
    } catch {
      // A path parameter that does not decode (`%ZZ`): the routers refuse it as they do for every method.
      return next();
    }
    if (allowed.size === 0) return next();
    res.setHeader('allow', [...allowed, 'OPTIONS'].join(', '));
    res.status(204).end();
  };
}
