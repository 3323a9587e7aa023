import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client.js';
import { API_USER_ID } from '../../src/contract/api-user.js';
import { openApiDocument } from '../../src/contract/openapi.js';
import { FlagError, isMfaSimError, OptionsError } from '../../src/contract/errors.js';
import { parseFlags } from '../../src/cli/flags.js';
import { controlOpenApiDocument } from '../../src/http/control.js';
import { CONTROL_ROUTES } from '../../src/http/control-routes.js';
import { compileScenario } from '../../src/scenario/compile.js';
import { expectEnvelope, send, simulator } from '../helpers.js';

/**
 * The API user id is one rule (exactly nine ASCII digits, src/contract/api-user.ts), and every door that takes one
 * applies that rule: the flag and its variable, the in-process option, a scenario's API users, the typed client, a
 * binding of the control API, the service's header and Authorization part, and both OpenAPI documents.
 */

const IDS = ['123456789', '000000000'];
const NOT_IDS = [
  '12345678',
  '1234567890',
  '12345678a',
  'a12345678',
  '1234 6789',
  '',
  '123456789\n',
  '١٢٣٤٥٦٧٨٩',
  '１２３４５６７８９',
  '12345678９',
];
// What an HTTP header can carry (Node's client refuses control and non-Latin-1 characters; spaces around are trimmed).
const NOT_IDS_ON_THE_WIRE = NOT_IDS.filter((v) => v !== '' && /^[\x21-\x7e]+( [\x21-\x7e]+)*$/.test(v));

describe('the API user id rule, at every door', async () => {
  const sim = await simulator({ apiUsers: IDS.map((id) => ({ id, secret: `secret-${id}` })) });

  it('the flag and its variable', () => {
    for (const id of IDS) expect(parseFlags(['--api-user', id], {}).apiUser).toBe(id);
    for (const id of NOT_IDS) {
      expect(() => parseFlags(['--api-user', id], {}), JSON.stringify(id)).toThrow(
        new FlagError('--api-user must be exactly 9 digits.'),
      );
      if (id.trim() !== '')
        expect(() => parseFlags([], { MFA_SIM_API_USER: id }), JSON.stringify(id)).toThrow(
          new FlagError('MFA_SIM_API_USER must be exactly 9 digits.'),
        );
    }
  });

  it('the in-process option, a scenario, the typed client', async () => {
    for (const id of NOT_IDS) {
      await expect(simulator({ apiUser: id }), JSON.stringify(id)).rejects.toThrow(
        new OptionsError([{ path: ['apiUser'], message: 'must be exactly 9 digits' }]),
      );
      expect(compileScenario({ name: 'x', apiUsers: [{ id, secret: 's' }] }).issues, JSON.stringify(id)).toEqual([
        { path: ['apiUsers', 0, 'id'], message: 'must be exactly 9 digits' },
      ]);
      expect(() => createClient({ baseUrl: sim.url, apiUser: id, secret: 's' }), JSON.stringify(id)).toThrow(
        new OptionsError([{ path: ['apiUser'], message: 'must be exactly 9 digits' }]),
      );
    }
    for (const id of IDS) expect(compileScenario({ name: 'x', apiUsers: [{ id, secret: 's' }] }).issues).toEqual([]);
  });

  it('a binding of the control API', () => {
    for (const id of NOT_IDS) {
      let thrown: unknown;
      try {
        sim.bindScenario(id, 'default');
      } catch (e) {
        thrown = e;
      }
      expect(isMfaSimError(thrown, 'MFA_SIM_CONTROL') && thrown.status, JSON.stringify(id)).toBe(400);
      expect((thrown as Error).message).toBe('an API user id must be exactly 9 digits');
    }
    for (const id of IDS) expect(sim.bindScenario(id, 'default').name).toBe('default');
    for (const id of IDS) sim.unbindScenario(id);
  });

  it("the service's header and Authorization part", async () => {
    expect(NOT_IDS_ON_THE_WIRE.length).toBeGreaterThan(4);
    for (const id of NOT_IDS_ON_THE_WIRE) {
      const header = await send(sim, '/v1/svc/time', {
        method: 'GET',
        as: { apiUser: '123456789', secret: 'secret-123456789' },
        mutate: (h) => (h['x-svc-apiuser'] = id),
      });
      expectEnvelope(header, 400, -4009);
      const part = await send(sim, '/v1/svc/time', {
        method: 'GET',
        as: { apiUser: '123456789', secret: 'secret-123456789' },
        mutate: (h) => (h.Authorization = h.Authorization.replace('apiuser=123456789', `apiuser=${id}`)),
      });
      expectEnvelope(part, 400, -4029);
    }
    for (const id of IDS)
      expectEnvelope(
        await send(sim, '/v1/svc/time', { method: 'GET', as: { apiUser: id, secret: `secret-${id}` } }),
        200,
        15000,
      );
  });

  it('both OpenAPI documents', () => {
    const api = JSON.stringify(openApiDocument({ token: 'svc', responseStyle: 'document', serverUrl: sim.url }));
    const control = JSON.stringify(controlOpenApiDocument(CONTROL_ROUTES, sim.url));
    const pattern = JSON.stringify(API_USER_ID.source);
    expect(API_USER_ID.source).toBe('^\\d{9}$');
    expect(api).toContain(`"pattern":${pattern}`);
    expect(control).toContain(`"pattern":${pattern}`);
    expect(`${api}${control}`.match(/"pattern":"[^"]*\{9\}[^"]*"/g)?.every((p) => p === `"pattern":${pattern}`)).toBe(
      true,
    );
  });
});
