import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type * as PathToRegexp from 'path-to-regexp';
import { quoted } from '../contract/answer.js';
import { lazy } from '../world/lazy.js';
import { expressLib } from './express.js';

/**
 * Routes as data: a method, a path in Express's syntax, and the handlers. The same list registers the routes in an
 * Express router and answers what that router leaves to the app: OPTIONS (204, the path's methods in `Allow`), and
 * under `/__sim` a JSON 404, or 405 with `Allow`. A path is matched here by the library Express's router matches
 * with (path-to-regexp), with the router's defaults (any case, a trailing slash allowed, parameters decoded), so the
 * list and the router agree on every path.
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

const pathToRegexp = lazy<typeof PathToRegexp>('path-to-regexp');
const matchers = new Map<string, (path: string) => unknown>();

function matches(pattern: string, path: string): boolean {
  let match = matchers.get(pattern);
  if (!match) matchers.set(pattern, (match = pathToRegexp().match(pattern)));
  return match(path) !== false;
}

/** An Express router with the routes, registered in their order. */
export function routerOf(routes: readonly Route[]): Router {
  const router = expressLib().Router();
  for (const { method, path, handlers } of routes) router[method.toLowerCase() as Lowercase<Method>](path, ...handlers);
  return router;
}

/**
 * The methods the routes answer at `path`, in their order; HEAD wherever GET, as Express answers it. Throws where a
 * path parameter does not decode, as the router does when it tries the same routes.
 */
function methodsAt(routes: readonly Route[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) if (matches(route.path, path)) methods.add(route.method);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods];
}

/**
 * OPTIONS on a page or a control route: 204 with the path's methods in `Allow`, and no body. Express's routers would
 * answer 200 with the list as text/plain, the one answer of the app that was neither JSON, a page nor empty. A path
 * with no route goes on: a JSON 404 under /__sim, the simulated API's -404 envelope elsewhere. The simulated API
 * itself (`/v1/`) never comes here: its request path answers OPTIONS with -405, as the service does. The methods
 * are no secret: a 405 names them too, and the OpenAPI documents describe every route.
 */
export function answerOptions(routes: readonly Route[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'OPTIONS') return next();
    let allowed: string[];
    try {
      allowed = methodsAt(routes, req.path);
    } catch {
      // A path parameter that does not decode (`%ZZ`): the routers refuse it as they do for every method.
      return next();
    }
    if (allowed.length === 0) return next();
    res.setHeader('allow', allowHeader(allowed));
    res.status(204).end();
  };
}

/**
 * A page's path (the phone page, `/status`, ...) asked with a method it does not answer: 405 with `Allow`, a JSON
 * error; any other path goes on to the simulated API's -404. A wrong method on mfa-sim's own page is a mistake of the
 * person or test asking, not traffic of the client under test: never journaled, never in the coverage.
 */
export function pageMethodMissing(routes: readonly Route[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.url.startsWith('/v1/')) return next();
    let allowed: string[];
    try {
      allowed = methodsAt(routes, req.path);
    } catch {
      // A path parameter that does not decode (`%ZZ`) names no page: the API's -404.
      return next();
    }
    if (allowed.length > 0) notAllowed(req, res, allowed, 'this page');
    else next();
  };
}

/** 405: the path answers other methods (`allowed`). */
function notAllowed(req: Request, res: Response, allowed: readonly string[], what: string): void {
  res.setHeader('allow', allowHeader(allowed));
  res.status(405).json({ error: `${req.method} ${shownPath(req)}: ${what} answers ${allowed.join(', ')}` });
}

/** The path as the caller sent it (under any prefix the app is mounted at), quoted, without its query. */
const shownPath = (req: Request) => quoted(req.originalUrl.replace(/\?.*/s, ''), 100);

/** `Allow` for a path with routes: their methods, and OPTIONS, which every such path answers (RFC 9110 §10.2.1). */
const allowHeader = (methods: readonly string[]) => [...methods, 'OPTIONS'].join(', ');

/**
 * The end of the control plane, mounted at `/__sim`: a request there that no route answered. A path that has routes
 * for other methods gets 405 with `Allow`, any other path 404; a JSON error either way, as every control error. It
 * is not handed to the simulated API's request path, which would answer an envelope, journal it and count its -404
 * in the coverage: a wrong control URL is a mistake of the test's set-up, not of the client under test. (A path
 * parameter that does not decode never comes here: the router has refused it with 400.)
 */
export function controlRouteMissing(routes: readonly Route[]) {
  return (req: Request, res: Response) => {
    // Matched as this app sees it (it may be mounted under a prefix of another app).
    const allowed = methodsAt(routes, `/__sim${req.path}`);
    if (allowed.length > 0) return notAllowed(req, res, allowed, 'this control route');
    res.status(404).json({
      error: `no control route at ${shownPath(req)}: the control API's routes are described at /__sim/openapi.json, and the dashboard is /__sim/ui`,
    });
  };
}
