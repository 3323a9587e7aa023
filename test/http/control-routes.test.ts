import { describe, expect, it } from 'vitest';
import { CONTROL_ROUTES } from '../../src/http/control-routes.js';
import { simulator } from '../helpers.js';

/**
 * The control API is one table (src/http/control-routes.ts): the routes Express serves, the operations of
 * `/__sim/openapi.json`, and the methods OPTIONS, 405 and `Allow` name are all read from it, row by row.
 */

describe('the table of control routes', async () => {
  const sim = await simulator();
  const doc = (await (await fetch(`${sim.url}/__sim/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const api = (await (await fetch(`${sim.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const paths = [...new Set(CONTROL_ROUTES.map((r) => r.path))];
  /** The path with a value in each parameter. */
  const concrete = (path: string) => path.replace(':apiUser', '123456789').replace(':id', 'any-id');

  it('every route is an operation of the document, by its id, and every operation of both documents has a name of its own', () => {
    expect(CONTROL_ROUTES.length).toBeGreaterThanOrEqual(25);
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(documented.sort()).toEqual(
      CONTROL_ROUTES.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')} ${r.operationId}`).sort(),
    );
    for (const d of [doc, api]) {
      const ids = Object.values(d.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
      expect(
        ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
        ids.join(),
      ).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it("OPTIONS on each route's path names the table's methods for it; any other method gets 405 with the same Allow", async () => {
    expect(paths.length).toBeGreaterThanOrEqual(20);
    for (const path of paths) {
      const methods = CONTROL_ROUTES.filter((r) => r.path === path).map((r) => r.method as string);
      if (methods.includes('GET')) methods.push('HEAD');
      const options = await fetch(`${sim.url}${concrete(path)}`, { method: 'OPTIONS' });
      expect([options.status, options.headers.get('allow')], path).toEqual([204, [...methods, 'OPTIONS'].join(', ')]);
      const other = ['PATCH', 'PUT', 'DELETE', 'POST', 'GET'].find((m) => !methods.includes(m))!;
      const wrong = await fetch(`${sim.url}${concrete(path)}`, { method: other });
      expect([wrong.status, wrong.headers.get('allow')], `${other} ${path}`).toEqual([
        405,
        [...methods, 'OPTIONS'].join(', '),
      ]);
    }
  });

  it('matches paths as Express does: any case and a trailing slash are the same route, a longer path is none', async () => {
    expect((await fetch(`${sim.url}/__SIM/Reset/`, { method: 'OPTIONS' })).headers.get('allow')).toBe('POST, OPTIONS');
    expect((await fetch(`${sim.url}/__sim/reset/`, { method: 'GET' })).status).toBe(405);
    expect((await fetch(`${sim.url}/__sim/reset/more`, { method: 'GET' })).status).toBe(404);
    expect((await fetch(`${sim.url}/__sim/challenges/a%2Fb/deny`, { method: 'OPTIONS' })).headers.get('allow')).toBe(
      'POST, OPTIONS',
    );
  });
});
