import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { OptionsError } from '../contract/errors.js';
import { jsonText } from '../output/json.js';
import type { StartOptions } from '../simulator/options.js';
import { Simulator, type SimulatorOptions } from '../simulator/simulator.js';
import { requireAllowedHost } from '../simulator/allowed-hosts.js';
import { CONTROL_ROUTES } from './control-routes.js';
import { controlRouter } from './control.js';
import { pageRoutes } from './pages.js';
import { expressLib, pathOf, routerOf } from './routes.js';
import { answerInternalError, serveApi, serveApiSafely } from './serve-api.js';

/**
 * The one Express app of a simulator: the simulated API (`/v1/...`) is handed to the request path by its first
 * middleware; the control API, the pages and the final answers follow.
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
