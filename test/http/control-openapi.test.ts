import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/index.js';
import { challengeEnvelope, send, simulator } from '../helpers.js';

/** The control API described like the API: `/__sim/openapi.json`, valid, complete, and true of real answers. */

type Op = {
  parameters?: unknown[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: object }> }>;
};
type Doc = {
  paths: Record<string, Record<string, Op>>;
  components: { responses: Record<string, { content: Record<string, { schema: object }> }> };
};

describe('the control API OpenAPI document at /__sim/openapi.json', async () => {
  const sim = await simulator({ secret: 'control-doc-secret' });
  const doc = (await (await fetch(`${sim.url}/__sim/openapi.json`)).json()) as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  it('is a valid OpenAPI 3.1 document (with the validator the API document is checked with)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every /__sim/ route the simulator serves', () => {
    type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
    const served: string[] = [];
    const walk = (stack: Layer[]) => {
      for (const l of stack) {
        if (l.route)
          for (const m of Object.keys(l.route.methods).filter((k) => k !== '_all'))
            served.push(`${m} ${l.route.path.replace(/:(\w+)/g, '{$1}')}`);
        else if (l.handle?.stack) walk(l.handle.stack);
      }
    };
    walk((createApp() as unknown as { router: { stack: Layer[] } }).router.stack);
    const ours = served.filter((r) => r.includes(' /__sim/'));
    expect(ours.length).toBeGreaterThanOrEqual(20);
    const described = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
    expect(ours.filter((r) => !described.includes(r))).toEqual([]);
    expect(described.filter((r) => !ours.includes(r))).toEqual([]);
  });

  /** Checks an answer against the document: the schema of its status for this route. */
  async function check(method: string, path: string, route: string, body?: unknown): Promise<unknown> {
    const r = await fetch(`${sim.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await r.json();
    const op = doc.paths[route][method.toLowerCase()];
    let response = op.responses[String(r.status)];
    expect(response, `${method} ${route} answered ${r.status}, which the document does not list`).toBeDefined();
    if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()!];
    const validate = ajv.compile(response.content!['application/json'].schema);
    expect(
      validate(answer),
      `${method} ${path} ${r.status}: ${JSON.stringify(validate.errors)} ${JSON.stringify(answer).slice(0, 300)}`,
    ).toBe(true);
    if (body !== undefined && r.status === 200 && op.requestBody) {
      const validateBody = ajv.compile(op.requestBody.content['application/json'].schema);
      expect(validateBody(body), `${method} ${route} body: ${JSON.stringify(validateBody.errors)}`).toBe(true);
    }
    return answer;
  }

  it('is true of real answers, successes and errors', async () => {
    await check('GET', '/__sim/health', '/__sim/health');
    await check('GET', '/__sim/scenarios', '/__sim/scenarios');
    await check('POST', '/__sim/scenario', '/__sim/scenario', { name: 'locked-account' });
    await check('POST', '/__sim/scenario', '/__sim/scenario', {
      name: 'inline',
      clock: { offset: '1m' },
      rules: [{ when: { endpoint: 'time' }, times: 1, respond: { code: -5000 } }],
    });
    await check('POST', '/__sim/scenario', '/__sim/scenario', { name: 'broken', clock: { ofset: 1 } });
    await check('POST', '/__sim/scenario', '/__sim/scenario', { file: '/etc/passwd' });
    await check('PUT', '/__sim/bindings/111222333', '/__sim/bindings/{apiUser}', { name: 'default' });
    await check('PUT', '/__sim/bindings/12', '/__sim/bindings/{apiUser}', { name: 'default' });
    await check('DELETE', '/__sim/bindings/111222333', '/__sim/bindings/{apiUser}');
    await check('POST', '/__sim/reset', '/__sim/reset');
    await send(sim, '/v1/svc/challenge', { body: challengeEnvelope(sim.apiUser.id) });
    const [c] = (await check('GET', '/__sim/challenges', '/__sim/challenges')) as { id: string }[];
    await check('POST', `/__sim/challenges/${c.id}/approve`, '/__sim/challenges/{id}/approve', { authCode: '4242' });
    await check('POST', `/__sim/challenges/${c.id}/deny`, '/__sim/challenges/{id}/deny');
    await check('POST', '/__sim/challenges/nope/expire', '/__sim/challenges/{id}/expire');
    await check('GET', '/__sim/clock', '/__sim/clock');
    await check('POST', '/__sim/clock/freeze', '/__sim/clock/freeze', { at: '2030-01-01T00:00:00Z' });
    await check('POST', '/__sim/clock/advance', '/__sim/clock/advance', { by: '5m' });
    await check('POST', '/__sim/clock/advance', '/__sim/clock/advance', { by: 'soon' });
    await check('POST', '/__sim/clock/unfreeze', '/__sim/clock/unfreeze');
    await check('GET', '/__sim/journal?limit=5', '/__sim/journal');
    await check('GET', '/__sim/journal?code=x', '/__sim/journal');
    await check('GET', '/__sim/coverage', '/__sim/coverage');
    // (The scenario loaded above forces -5000 on the time endpoint once: a challenge is refused for its signature.)
    const refused = await send(sim, '/v1/svc/challenge', {
      as: { apiUser: sim.apiUser.id, secret: 'not-it' },
      body: challengeEnvelope(sim.apiUser.id),
    });
    expect(refused.json.code, refused.text).toBe(-4037);
    const { hints } = (await check('GET', '/__sim/findings', '/__sim/findings')) as { hints: unknown[] };
    expect(hints).toHaveLength(1);
    await check('GET', '/__sim/report?format=nope', '/__sim/report');
    await check('GET', '/__sim/journal?limit=1', '/__sim/journal');
    await check('POST', '/__sim/explore', '/__sim/explore', { kind: 'time' });
    await check('POST', '/__sim/explore', '/__sim/explore', { kind: 'nonsense' });
    await check('DELETE', '/__sim/journal', '/__sim/journal');
  });

  it("its request bodies are the routes' checks: the simulator refuses (400, naming the key) exactly the bodies the document refuses", async () => {
    const cases: [path: string, route: string, bodies: unknown[]][] = [
      [
        '/__sim/challenges/no-such/approve',
        '/__sim/challenges/{id}/approve',
        [{}, { authCode: '4242' }, { authCode: '' }, { authCode: 5 }, { authCode: 'x'.repeat(65) }, { other: 1 }],
      ],
      [
        '/__sim/clock/freeze',
        '/__sim/clock/freeze',
        [{}, { at: 1e12 }, { at: true }, { at: null }, { at: {} }, { other: 1 }],
      ],
      ['/__sim/clock/advance', '/__sim/clock/advance', [{ by: '1m' }, { by: 0 }, {}, { by: true }, { by: [1] }]],
      [
        '/__sim/explore',
        '/__sim/explore',
        [
          { kind: 'time' },
          { kind: 'time', other: 1 },
          {},
          { kind: 'teleport' },
          { kind: 'time', user: 5 },
          { kind: 'time', enableQRcode: 'yes' },
          { kind: 'time', clock: 'wall' },
          { kind: 'time', ipAddress: 'x'.repeat(501) },
        ],
      ],
    ];
    for (const [path, route, bodies] of cases) {
      const validate = ajv.compile(doc.paths[route].post.requestBody!.content['application/json'].schema);
      for (const body of bodies) {
        const r = await fetch(`${sim.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = (await r.json()) as { error?: string };
        const what = `${path} ${JSON.stringify(body)}: ${r.status} ${answer.error}`;
        expect(r.status === 400, what).toBe(!validate(body));
        const e = validate.errors?.[0];
        if (e)
          expect(answer.error, what).toContain(
            e.instancePath.slice(1) || (e.params as { missingProperty: string }).missingProperty,
          );
      }
    }
    await fetch(`${sim.url}/__sim/reset`, { method: 'POST' });
  });

  it('its scenario body refuses what the simulator refuses', () => {
    const validate = ajv.compile(doc.paths['/__sim/scenario'].post.requestBody!.content['application/json'].schema);
    expect(validate({ name: 'locked-account' })).toBe(true);
    expect(validate({ name: 'x', strict: true })).toBe(true);
    expect(validate({ name: 'x', clock: { ofset: 1 } })).toBe(false);
    expect(validate({ file: 'a.yaml', name: 'x' })).toBe(false);
  });
});
