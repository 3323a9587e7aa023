import type { IncomingMessage, ServerResponse } from 'node:http';
import type express from 'express';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { quoted } from '../contract/answer.js';
import { OptionsError } from '../errors.js';
import { jsonText } from '../output/json.js';
import type { StartOptions } from '../run-options.js';
import { Simulator, type SimulatorOptions } from '../simulator.js';
import { lazy } from '../world/lazy.js';
import { requireAllowedHost } from './allowed-hosts.js';
import { CONTROL_ROUTES } from './control-routes.js';
import { controlRouter } from './control.js';
import { pageRoutes } from './pages.js';
import { answerInternalError, serveApi, serveApiSafely } from './serve-api.js';

/**
 * The one Express app of a simulator: the simulated API (`/v1/...`) is handed to the request path by its first
 * middleware; the pages, the control API and the final answers follow. Routes are data (method, path, handlers); a
 * path's routes share one Express route, which answers the methods it lacks itself (OPTIONS, 405).
 */

/** Express, loaded when the first app is made: an in-process test that never serves HTTP does not load it. */
export const expressLib = lazy<typeof express>('express');

/**
 * A simulator as a Node request listener (the Express app that serves it): give it to supertest, to
 * `http.createServer`, or mount it in your own Express app. The simulator is `app.simulator`.
 */
export type SimulatorApp = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  simulator: Simulator;
};

/** How the simulated API (`/v1/...`) is served: by the request path, or forwarded (proxy mode). */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse) => void;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One route: what Express registers. `path` in Express's syntax: `/phone/:id`. */
export interface Route {
  method: Method;
  path: string;
  handlers: RequestHandler[];
}

/** The Express app of a simulator. Every answer of the API, a 404 and an internal failure included, is an envelope. */
export function createApp(options: SimulatorOptions | string | Simulator = {}): SimulatorApp {
  // Proxy mode forwards over HTTP and must be closed: startSimulator and the command line run it.
  if (!(options instanceof Simulator) && (options as StartOptions | null)?.upstream !== undefined) {
    const message = 'proxy mode runs with startSimulator or the command line: createApp answers the API itself';
    throw new OptionsError([{ path: ['upstream'], message }]);
  }
  const sim = options instanceof Simulator ? options : new Simulator(options);
  return appOf(sim, (req, res) => serveApiSafely(sim, req, res));
}

/** The app of a simulator whose API `api` serves (startSimulator's, in proxy mode too). */
export function appOf(sim: Simulator, api: ApiHandler): SimulatorApp {
  const app = expressLib()();
  Object.assign(app, { simulator: sim });
  app.disable('x-powered-by');
  app.set('etag', false);
  // Every JSON answer of the pages and the control API is written by the one JSON function, with no secret in it.
  const redact = (_key: string, value: unknown) => (typeof value === 'string' ? sim.redact(value) : value);
  app.response.json = function (this: Response, body: unknown) {
    return this.type(this.get('Content-Type') ?? 'json').send(jsonText(body, redact));
  };

  app.use((req: Request, res: Response, next: NextFunction) => (req.url.startsWith('/v1/') ? api(req, res) : next()));
  app.use('/__sim', requireAllowedHost(sim.allowedHosts));
  app.use(controlRouter(sim, CONTROL_ROUTES));
  app.use(routerOf(pageRoutes(sim), 'this page'));
  // A control URL no route has: a JSON 404. Not the request path's: a wrong control URL is a mistake of the test's
  // set-up, not of the client under test, and is neither journaled nor counted in the coverage.
  app.use('/__sim', (req: Request, res: Response) => {
    const error = `no control route at ${pathOf(req)}: the control API's routes are described at /__sim/openapi.json, and the dashboard is /__sim/ui`;
    res.status(404).json({ error });
  });
  // Anything else: the request path's route check answers -404 or -405, as an envelope, journaled.
  app.use((req: Request, res: Response) => serveApi(sim, req, res));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status === 413 || (err as { type?: string }).type === 'entity.too.large') return serveApi(sim, req, res, true);
    // A path whose percent-encoding does not decode names no page: -404, not an internal failure.
    if (err instanceof URIError) return serveApi(sim, req, res);
    // A control route that failed (a bug of the simulator's): a JSON error, never an envelope of the API it controls.
    if (!req.path.startsWith('/__sim/')) return answerInternalError(sim, req, res, err);
    if (res.headersSent) return void res.destroy();
    res.status(500).json({ error: 'internal error of the simulator' });
  });
  return app as unknown as SimulatorApp;
}

/**
 * A router with the routes, each path's methods on one Express route, in the order the paths first appear. A method
 * the path lacks: OPTIONS gets 204 with the path's methods in `Allow` (RFC 9110 §10.2.1), any other 405 with them
 * and a JSON error; `what` names the path in it ("this page"). The methods are no secret: the documents list them.
 */
export function routerOf(routes: readonly Route[], what: string): Router {
  const router = expressLib().Router();
  for (const path of new Set(routes.map((r) => r.path))) {
    const route = router.route(path);
    const here = routes.filter((r) => r.path === path);
    for (const { method, handlers } of here) route[method.toLowerCase() as Lowercase<Method>](...handlers);
    // HEAD wherever GET, as Express answers it.
    const methods: string[] = here.map((r) => r.method);
    const allow = [...new Set(methods.includes('GET') ? [...methods, 'HEAD'] : methods)].join(', ');
    route.all((req: Request, res: Response) => {
      res.setHeader('allow', `${allow}, OPTIONS`);
      if (req.method === 'OPTIONS') return void res.status(204).end();
      res.status(405).json({ error: `${req.method} ${pathOf(req)}: ${what} answers ${allow}` });
    });
  }
  return router;
}

/** The path as the caller sent it (under any prefix the app is mounted at), quoted, without its query. */
const pathOf = (req: Request) => quoted(req.originalUrl.replace(/\?.*/s, ''), 100);
