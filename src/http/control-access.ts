import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

// Who may use the control API besides a Host naming this machine (allowed-hosts.ts).

/** Where the control token may come from: a header for scripts, a cookie the dashboard sets, `?token=` to open it. */
export const CONTROL_HEADER = 'x-sim-control-token';
const COOKIE = 'mfa_sim_control';

/** Whether a token given is the one wanted, compared in constant time. */
export function tokenMatches(given: string | undefined, want: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(want);
  return given !== undefined && a.length === b.length && timingSafeEqual(a, b);
}

/** A cookie's value; undefined when absent or when it does not decode (it is then no token). */
function cookie(req: Request, name: string): string | undefined {
  for (const part of req.headers.cookie?.split(';') ?? []) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Requires the control token when one is set; `guarded`: what the route is called in its refusals, and why it needs
 * the token when it does.
 */
export function requireControl(
  token: () => string | undefined,
  guarded = {
    what: 'the control API',
    why: 'a token was given (--control-token), or this simulator listens beyond loopback',
  },
) {
  return (req: Request, res: Response, next: NextFunction) => {
    // Without a token (loopback) any web page the developer visits could post to the control API.
    if (req.method !== 'GET' && req.method !== 'HEAD' && crossSite(req))
      return void res.status(403).json({ error: `${guarded.what} refuses changes sent by a page of another site` });
    const want = token();
    if (!want) return next();
    const query = typeof req.query.token === 'string' ? req.query.token : undefined;
    const header = req.headers[CONTROL_HEADER];
    if (!tokenMatches((typeof header === 'string' ? header : undefined) ?? cookie(req, COOKIE) ?? query, want)) {
      return void res.status(401).json({
        error: `${guarded.what} needs the control token (header ${CONTROL_HEADER}, or ?token= once in a browser): ${guarded.why}`,
      });
    }
    if (query)
      res.setHeader('set-cookie', `${COOKIE}=${encodeURIComponent(query)}; Path=/__sim; HttpOnly; SameSite=Strict`);
    next();
  };
}

/** Whether a browser sent this request from a page of another site (Fetch metadata, else the Origin header). */
function crossSite(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'cross-site' || site === 'same-site';
  const origin = req.headers.origin;
  return origin !== undefined && (!URL.canParse(origin) || new URL(origin).host !== req.headers.host);
}
