import type { Request, Response } from 'express';
import { quoted } from '../contract/answer.js';

/**
 * The end of the control plane: a request under `/__sim` that no route answered. A path that has routes for other
 * methods gets 405 with `Allow`, any other path 404; a JSON error either way, as every control error. It is not
 * handed to the simulated API's request path, which would answer an envelope, journal it and count its -404 in
 * the coverage: a wrong control URL is a mistake of the test's set-up, not of the client under test.
 */

/** As much of Express's routing as this needs: each layer is a route (with its methods) or a router (with layers). */
export interface RoutingLayer {
  route?: { methods: Record<string, true> };
  handle: { stack?: RoutingLayer[] };
  match(path: string): boolean;
}

/**
 * The methods the routes in `stack` answer at `path`; Express answers HEAD wherever it answers GET. Throws where a
 * path parameter does not decode, as the router does when it tries the same layers (controlRouteMissing is reached
 * only after the router has refused such a path with 400; answerOptions, before the routers, lets them refuse it).
 */
export function methodsAt(stack: readonly RoutingLayer[], path: string): Set<string> {
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.match(path)) continue;
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) methods.add(method.toUpperCase());
    } else if (layer.handle.stack) {
      for (const method of methodsAt(layer.handle.stack, path)) methods.add(method);
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return methods;
}

/** The final handler of `/__sim` (mounted there), given the app's routing, read on each request. */
export function controlRouteMissing(routing: () => readonly RoutingLayer[]) {
  return (req: Request, res: Response) => {
    // Matched as this app sees it (it may be mounted under a prefix of another app); shown as the caller sent it.
    const path = req.originalUrl.replace(/\?.*/s, '');
    const allowed = [...methodsAt(routing(), `/__sim${req.path}`)];
    if (allowed.length > 0) {
      res.setHeader('allow', allowed.join(', '));
      return void res.status(405).json({ error: `${req.method} ${quoted(path, 100)}: this control route answers ${allowed.join(', ')}` });
    }
    res.status(404).json({ error: `no control route at ${quoted(path, 100)}: the control API's routes are described at /__sim/openapi.json, and the dashboard is /__sim/ui` });
  };
}
