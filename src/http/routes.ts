import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { quoted } from '../contract/answer.js';
import { expressLib } from './express.js';

/**
 * Routes as data: a method, a path in Express's syntax, and the handlers. A path's routes are registered on one Express
 * route, which then answers the methods it lacks itself: OPTIONS (204, the path's methods in `Allow`) and any other
 * method (405 with `Allow`, a JSON error). Express matches each path once, for every method.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One route: what Express registers. */
export interface Route {
  method: Method;
  /** Express's syntax: `/phone/:id`. */
  path: string;
  handlers: RequestHandler[];
}

/** What an OpenAPI document says of a route: its operation. */
export interface Operation {
  method: Method;
  /** Express's syntax (`/__sim/bindings/:apiUser`); a document writes `{apiUser}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Answered without the control token (a Host naming this machine is still required). */
  open?: true;
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  /** The answers of success, by status. */
  answers: Record<string, Record<string, unknown>>;
  /** The error statuses it answers beyond 401 (the token) and 403 (the Host, a cross-site change). */
  errors?: number[];
}

/**
 * An Express router with the routes, each path's methods on one route, in the order the paths first appear; `what`
 * names them in a 405 ("this page", "this control route").
 */
export function routerOf(routes: readonly Route[], what: string): Router {
  const router = expressLib().Router();
  for (const path of new Set(routes.map((r) => r.path))) {
    const route = router.route(path);
    const here = routes.filter((r) => r.path === path);
    for (const { method, handlers } of here) route[method.toLowerCase() as Lowercase<Method>](...handlers);
    // HEAD wherever GET, as Express answers it; OPTIONS everywhere (RFC 9110 §10.2.1).
    const methods = here.map((r) => r.method as string);
    if (methods.includes('GET')) methods.push('HEAD');
    route.all(otherMethod(`${[...new Set(methods)].join(', ')}, OPTIONS`, what));
  }
  return router;
}

/**
 * A method the path has no route for: OPTIONS gets 204 with the path's methods, and no body (Express would answer 200
 * with the list as text/plain); any other, 405 with them. The methods are no secret: the OpenAPI documents describe
 * every route.
 */
function otherMethod(allow: string, what: string) {
  return (req: Request, res: Response) => {
    res.setHeader('allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    res
      .status(405)
      .json({ error: `${req.method} ${shownPath(req)}: ${what} answers ${allow.replace(/, OPTIONS$/, '')}` });
  };
}

/** The path as the caller sent it (under any prefix the app is mounted at), quoted, without its query. */
const shownPath = (req: Request) => quoted(req.originalUrl.replace(/\?.*/s, ''), 100);

/**
 * The end of the control plane, mounted at `/__sim`: a path no route has, a JSON 404. It is not handed to the simulated
 * API's request path, which would answer an envelope, journal it and count its -404 in the coverage: a wrong control
 * URL is a mistake of the test's set-up, not of the client under test.
 */
export function controlRouteMissing(req: Request, res: Response, _next: NextFunction): void {
  res.status(404).json({
    error: `no control route at ${shownPath(req)}: the control API's routes are described at /__sim/openapi.json, and the dashboard is /__sim/ui`,
  });
}
