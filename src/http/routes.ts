import type express from 'express';
import type { Request, RequestHandler, Response, Router } from 'express';
import { quoted } from '../contract/response.js';
import { lazy } from '../files/lazy.js';
import type { Simulator } from '../simulator/simulator.js';

/** Express, loaded when the first app is made: an in-process test that never serves HTTP does not load it. */
export const expressLib = lazy<typeof express>('express');

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Before a route of the control API or a phone page: sharing a store, it reads and changes the state once this
 * replica has applied every change the store held when asked (simulator/replicas.ts); alone, it goes on at once.
 */
export function caughtUp(sim: Simulator): RequestHandler {
  return async (_req, _res, next) => {
    await sim.replicas?.caughtUp();
    next();
  };
}

/** One route: what Express registers. `path` in Express's syntax: `/phone/:id`. */
export interface Route {
  method: Method;
  path: string;
  handlers: RequestHandler[];
}

/** A router with the routes, each path's methods on one Express route, in the order the paths first appear. */
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
export const pathOf = (req: Request) => quoted(req.originalUrl.replace(/\?.*/s, ''), 100);
