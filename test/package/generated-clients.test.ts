import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { simulator } from '../helpers.js';

/**
 * A client generated from each OpenAPI document, as a user of another code base would make one: openapi-typescript
 * writes the types of a running simulator's `/openapi.json` and `/__sim/openapi.json`, a program written against
 * them with openapi-fetch type-checks (strict TypeScript), a program that gets a route, a body or an answer wrong
 * does not, and the good one drives the simulator: a scenario loaded, a challenge made, approved and verified,
 * named by the operations' ids the documents give.
 */

const ROOT = join(__dirname, '..', '..');
// Inside node_modules, so that the programs resolve openapi-fetch as a project of the user's would.
const DIR = join(ROOT, 'node_modules', '.cache', `mfa-sim-generated-clients-${process.pid}`);
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const DRIVE = `
import createClient from 'openapi-fetch';
import { signedHeaders } from '../../../src/index.js';
import type { paths as Api } from './api.js';
import type { paths as Control } from './control.js';

/** What the generated clients saw, step by step. */
export async function drive(url: string, apiUser: string, secret: string, now: () => number) {
  const control = createClient<Control>({ baseUrl: url });
  const api = createClient<Api>({ baseUrl: url });
  const signed = () => {
    const { Authorization, ...headers } = signedHeaders({ apiUser, secret, time: now() });
    return { header: headers as { 'x-svc-utctime': string; 'x-svc-cnonce': string; 'x-svc-apiuser': string }, Authorization };
  };

  const loaded = await control.POST('/__sim/scenario', { body: { name: 'default' } });
  const health = await control.GET('/__sim/health');

  const s1 = signed();
  const time = await api.GET('/v1/svc/time', { params: { header: s1.header }, headers: { Authorization: s1.Authorization } });

  const s2 = signed();
  const created = await api.POST('/v1/svc/challenge', {
    params: { header: s2.header },
    headers: { Authorization: s2.Authorization },
    body: { id: 'gen-1', utctime: s2.header['x-svc-utctime'], apiUser, type: 150, body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: false } },
  });
  const challengeId: string = JSON.parse(created.data?.message ?? '{}').challengeId;

  const challenges = await control.GET('/__sim/challenges');
  const approved = await control.POST('/__sim/challenges/{id}/approve', { params: { path: { id: challengeId } }, body: { authCode: '424242' } });

  const s3 = signed();
  const verified = await api.POST('/v1/svc/verify', {
    params: { header: s3.header },
    headers: { Authorization: s3.Authorization },
    body: { id: 'gen-2', utctime: s3.header['x-svc-utctime'], apiUser, type: 170, body: { svcUser: 'user@example.com', challengeId, authCode: '424242' } },
  });

  const unknown = await control.POST('/__sim/challenges/{id}/deny', { params: { path: { id: 'no-such-challenge' } } });
  const journal = await control.GET('/__sim/journal', { params: { query: { limit: 10 } } });
  const clock = await control.POST('/__sim/clock/advance', { body: { by: '1m' } });

  return {
    loaded: loaded.data?.active,
    health: health.data?.ok,
    time: time.data?.code,
    created: [created.response.status, created.data?.code],
    listed: challenges.data?.map((c) => c.id).includes(challengeId),
    approved: approved.data?.state,
    verified: verified.data?.code,
    unknown: [unknown.response.status, unknown.error?.error],
    journaled: journal.data?.map((e) => e.code),
    clockMoved: typeof clock.data?.now === 'number',
  };
}
`;

/** Wrong uses, each of which the generated types must refuse. */
const WRONG = `
import createClient from 'openapi-fetch';
import type { paths as Api } from './api.js';
import type { paths as Control } from './control.js';

const control = createClient<Control>({ baseUrl: 'http://127.0.0.1:1' });
const api = createClient<Api>({ baseUrl: 'http://127.0.0.1:1' });
export async function wrong() {
  await control.GET('/__sim/no-such-route'); // refused: no such route
  await control.POST('/__sim/clock/advance', { body: { by: true } }); // refused: a duration is a string or a number
  await control.PUT('/__sim/bindings/{apiUser}', { body: { name: 'default' } }); // refused: the path's apiUser is missing
  const clock = await control.GET('/__sim/clock');
  const notThere: string = clock.data?.nonsense; // refused: the clock has no such field
  await api.POST('/v1/svc/challenge', { body: { id: 'x', utctime: '1', apiUser: '123456789', type: 150, body: {} } }); // refused: no signed headers, no svcUser
  return notThere;
}
`;

/** The type errors of programs against the generated types (strict, as a careful user compiles), by file. */
function typeErrors(...files: string[]): Record<string, number[]> {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
  });
  const out: Record<string, number[]> = Object.fromEntries(files.map((f) => [f.split('/').pop(), []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const where = d.file ? d.file.fileName.split('/').pop()! : '(no file)';
    (out[where] ??= []).push(d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : 0);
  }
  return out;
}

describe('clients generated from the OpenAPI documents', async () => {
  const sim = await simulator({ secret: 'generated-client-secret' });
  mkdirSync(DIR, { recursive: true });
  for (const [name, path] of [
    ['api', '/openapi.json'],
    ['control', '/__sim/openapi.json'],
  ]) {
    const doc = (await (await fetch(`${sim.url}${path}`)).json()) as Parameters<typeof openapiTS>[0];
    writeFileSync(join(DIR, `${name}.ts`), astToString(await openapiTS(doc)));
  }
  writeFileSync(join(DIR, 'drive.ts'), DRIVE);
  writeFileSync(join(DIR, 'wrong.ts'), WRONG);

  it('name every operation: the generated types carry the operation ids', () => {
    for (const operation of [
      'loadScenario',
      'bindScenario',
      'claimApiUser',
      'approveChallenge',
      'advanceClock',
      'getJournal',
      'getVerdict',
      'getHealth',
    ]) {
      expect(ts.sys.readFile(join(DIR, 'control.ts')), operation).toContain(`    ${operation}: {`);
    }
    for (const operation of ['challenge', 'timeGet', 'time', 'status', 'verify', 'blocked']) {
      expect(ts.sys.readFile(join(DIR, 'api.ts')), operation).toContain(`    ${operation}: {`);
    }
  });

  // Type-checking with the DOM's and Node's types takes seconds on a busy machine.
  it(
    'a program written against them type-checks, and one that misuses them does not, at each misuse',
    { timeout: 120_000 },
    () => {
      const refused = WRONG.split('\n').flatMap((line, i) => (line.includes('// refused') ? [i + 1] : []));
      expect(refused).toHaveLength(5);
      expect(typeErrors(join(DIR, 'drive.ts'), join(DIR, 'wrong.ts'))).toEqual({ 'drive.ts': [], 'wrong.ts': refused });
    },
  );

  it('drives a running simulator: a scenario, a challenge made, approved and verified, a refusal, the journal', async () => {
    const { drive } = (await import(join(DIR, 'drive.ts'))) as {
      drive: (url: string, apiUser: string, secret: string, now: () => number) => Promise<Record<string, unknown>>;
    };
    let t = sim.simulator.now();
    const result = await drive(sim.url, sim.apiUser.id, 'generated-client-secret', () => ++t);
    expect(result).toEqual({
      loaded: 'default',
      health: true,
      time: 15000,
      created: [202, 2025],
      listed: true,
      approved: 'approved',
      verified: 3080,
      unknown: [404, 'no challenge no-such-challenge'],
      journaled: [3080, 2025, 15000],
      clockMoved: true,
    });
  });
});
