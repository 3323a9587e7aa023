import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client.js';
import { SERVICE_CODES } from '../../src/contract/codes.js';
import { simulator } from '../helpers.js';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content: Record<string, { schema: object }> };
        parameters: { name: string }[];
        responses: Record<string, { content: Record<string, { schema: object }> }>;
      }
    >
  >;
};

async function fetchDoc(url: string): Promise<Doc> {
  const res = await fetch(`${url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as Doc;
}

function ajv() {
  const a = new Ajv2020({ strict: false, allErrors: true });
  addFormats(a);
  return a;
}

describe('the OpenAPI document at /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (and the validator does refuse a broken one)', async () => {
    const sim = await simulator();
    const doc = await fetchDoc(sim.url);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    const broken = structuredClone(doc) as unknown as Record<string, unknown>;
    (broken.paths as Record<string, Record<string, Record<string, unknown>>>)['/v1/svc/time'].get.responses = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('lists every code of the service among the answers, each under its HTTP status', async () => {
    const sim = await simulator();
    const doc = await fetchDoc(sim.url);
    const listed = new Set<number>();
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const schema = response.content['application/json'].schema as { properties: { code: { enum: number[] } } };
          for (const code of schema.properties.code.enum) {
            listed.add(code);
            const http = (await fetch(`${sim.url}/status?code=${code}`, {
              headers: { accept: 'application/json' },
            }).then((r) => r.json())) as { http: number };
            expect(http.http, `code ${code}`).toBe(Number(status));
          }
        }
      }
    }
    expect(SERVICE_CODES.filter((c) => !listed.has(c))).toEqual([]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/svc/blocked',
      '/v1/svc/challenge',
      '/v1/svc/status',
      '/v1/svc/time',
      '/v1/svc/verify',
    ]);
    expect(Object.keys(doc.paths['/v1/svc/time']).sort()).toEqual(['get', 'post']);
  });

  it('describes what the typed client sends and what the simulator answers: real traffic validates against it', async () => {
    const sim = await simulator();
    const doc = await fetchDoc(sim.url);
    const client = createClient({ baseUrl: sim.url, apiUser: sim.apiUser.id, secret: sim.apiUser.secret });
    const user = 'user@example.com';
    const c = await client.newChallenge({
      user,
      challengeType: 'UserKeyAndPattern',
      challengeExpiry: 'ThreeMins',
      enableQRcode: false,
      ipAddress: '198.51.100.1',
      id: 'r1',
    });
    const challengeId = c.ok ? c.message.challengeId : '';
    sim.approve(challengeId, '4242');
    await client.status({ user, challengeId });
    await client.verify({ user, challengeId, authCode: '4242' });
    await client.verify({ user, challengeId, authCode: '0000' });
    await client.cancel({ user, challengeId });
    await client.blocked({ user, ipAddress: '198.51.100.1' });
    await client.time();
    await client.newChallenge({ user: 'not-an-email', challengeType: 'UserKeyAndPattern' });

    const a = ajv();
    const entries = sim.journal();
    expect(entries).toHaveLength(8);
    for (const e of entries) {
      const op = doc.paths[e.path][e.method.toLowerCase()];
      const response = op.responses[String(e.http)];
      expect(response, `${e.path} HTTP ${e.http}`).toBeDefined();
      const checkResponse = a.compile(response.content['application/json'].schema);
      expect(checkResponse(JSON.parse(e.response!.body)), JSON.stringify(checkResponse.errors)).toBe(true);
      if (op.requestBody && e.code !== -5079) {
        const checkRequest = a.compile(op.requestBody.content['application/json'].schema);
        expect(checkRequest(JSON.parse(e.request.body)), `${e.path}: ${JSON.stringify(checkRequest.errors)}`).toBe(
          true,
        );
      }
    }
    // And the request schemas refuse what the simulator refuses in strict mode.
    const challenge = a.compile(doc.paths['/v1/svc/challenge'].post.requestBody!.content['application/json'].schema);
    const good = {
      utctime: '1700000000000',
      apiUser: '123456789',
      type: 150,
      body: { svcUser: user, challengeType: 'UserKeyAndPattern' },
    };
    expect(challenge(good)).toBe(true);
    expect(challenge({ ...good, body: { ...good.body, extra: 1 } })).toBe(false);
    expect(challenge({ ...good, body: { ...good.body, svcUser: 'not-an-email' } })).toBe(false);
    expect(challenge({ ...good, type: 171 })).toBe(false);
  });

  it('follows the token and the response style', async () => {
    const sim = await simulator({ token: 'acme', responseStyle: 'sdk' });
    const doc = await fetchDoc(sim.url);
    const post = doc.paths['/v1/svc/challenge'].post;
    // The signed headers: Authorization is the document's security scheme (OpenAPI ignores a parameter of that name).
    expect(post.parameters.map((p) => p.name)).toEqual(['x-acme-utctime', 'x-acme-cnonce', 'x-acme-apiuser']);
    const scheme = (
      doc as unknown as {
        components: { securitySchemes: Record<string, { in: string; name: string; description: string }> };
      }
    ).components.securitySchemes.signature;
    expect(scheme).toMatchObject({ in: 'header', name: 'Authorization' });
    expect(scheme.description).toContain(
      'acme-hmac: apiuser=<id>,signedheaders=x-acme-utctime;x-acme-cnonce,algorithm=acme-hmac512,signature=<hex>',
    );
    expect(scheme.description).toContain('`x-acme-utctime: <utctime>\\nx-acme-cnonce: <nonce>`');
    const schema = post.requestBody!.content['application/json'].schema as {
      oneOf: { properties: { body: { properties: object } } }[];
    };
    expect(Object.keys(schema.oneOf[0].properties.body.properties)).toContain('acmeUser');
    const ok = post.responses['202'].content['application/json'].schema as { properties: object };
    expect(Object.keys(ok.properties)).toEqual(['id', 'utcTime', 'status', 'code', 'message', 'moreInfo']);
  });
});
