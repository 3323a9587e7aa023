import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { OptionsError } from '../errors.js';
import type { StartOptions } from '../run-options.js';
import { Simulator, type SimulatorOptions } from '../simulator.js';
import { openApiDocument } from '../contract/openapi.js';
import { jsonText } from '../output/json.js';
import { requireAllowedHost } from './allowed-hosts.js';
import { controlRouter, controlRoutes } from './control-routes.js';
import { expressLib } from './express.js';
import { pageRoutes } from './pages.js';
import { controlRouteMissing, routerOf, type Route } from './routes.js';
import { answerInternalError, serveApi, serveApiSafely } from './serve-api.js';

/**
 * The Express app of a simulator: the shell for pages, the dashboard and the control API (the API itself is served
 * straight from node:http by server.ts, and through this app's first middleware for supertest and for an app that
 * mounts it). Express is loaded when the first app is made, never when the package is imported.
 */

/**
 * A simulator as a Node request listener (the Express app that serves it): give it to supertest, to
 * `http.createServer`, or mount it in your own Express app. The simulator is `app.simulator`.
 */
export type SimulatorApp = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  simulator: Simulator;
};

/** How the simulated API (`/v1/...`) is served: by the request path, or forwarded (proxy mode). */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The Express app of a simulator. The simulated API (`/v1/...`) is handed to the simulator's request path by the
 * first middleware; pages, the control API and the final 404 follow. Every answer of the API, a 404 and an internal
 * failure included, is a JSON envelope.
 */
export function createApp(options: SimulatorOptions | string | Simulator = {}): SimulatorApp {
  // Proxy mode forwards over HTTP and must be closed: startSimulator and the command line run it.
  if (
    typeof options === 'object' &&
    !(options instanceof Simulator) &&
    (options as StartOptions | null)?.upstream !== undefined
  ) {
    throw new OptionsError([
      {
        path: ['upstream'],
        message: 'proxy mode runs with startSimulator or the command line: createApp answers the API itself',
      },
    ]);
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
  // Every JSON answer of the pages and the control API is written here, by the one JSON function (output/json.ts),
  // and no string in it shows a secret the simulator holds.
  const hidden = (_key: string, value: unknown) => (typeof value === 'string' ? sim.redact(value) : value);
  app.response.json = function (this: Response, body: unknown) {
    if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
    return this.send(jsonText(body, hidden));
  };

  app.use((req: Request, res: Response, next: NextFunction) => (req.url.startsWith('/v1/') ? api(req, res) : next()));
  const control = controlRoutes(sim);
  const pages: Route[] = [
    // Built from the code table alone (no caller input), so it skips the replacer's work.
    {
      method: 'GET',
      path: '/openapi.json',
      handlers: [(req, res) => void res.type('json').send(jsonText(apiDocument(sim, req)))],
    },
    ...pageRoutes(sim),
  ];
  app.use('/__sim', requireAllowedHost(sim.allowedHosts));
  app.use(controlRouter(control));
  app.use(routerOf(pages, 'this page'));
  // A control URL no route has: a JSON 404, not an envelope of the API it controls.
  app.use('/__sim', controlRouteMissing);
  // Anything else: the request path's route check answers -404 or -405, as an envelope, journaled.
  app.use((req: Request, res: Response) => serveApi(sim, req, res));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status === 413 || (err as { type?: string }).type === 'entity.too.large') return serveApi(sim, req, res, true);
    // A path whose percent-encoding does not decode names no page: -404, not an internal failure.
    if (err instanceof URIError) return serveApi(sim, req, res);
    // The control API answers JSON errors, never an envelope of the API it controls.
    if (req.path.startsWith('/__sim/')) return answerControlFailure(res);
    answerInternalError(sim, req, res, err);
  });
  return app as unknown as SimulatorApp;
}

/** The simulated API's OpenAPI document, for the token and response style in force and the address asked. */
function apiDocument(sim: Simulator, req: Request): Record<string, unknown> {
  return openApiDocument({
    token: sim.token,
    responseStyle: sim.scenario.responseStyle,
    serverUrl: sim.links.base(req.headers.host),
  });
}

/**
 * A control API route failed (a bug of the simulator's): HTTP 500 with a JSON error, as every control error is. Never
 * throws.
 */
function answerControlFailure(res: ServerResponse): void {
  try {
    if (res.headersSent) return void res.destroy();
    const body = '{"error":"internal error of the simulator"}';
    res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  } catch {
    res.destroy();
  }
}
