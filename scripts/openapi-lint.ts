/**
 * Lints both OpenAPI documents with Redocly CLI's recommended rules, a warning failing as an error (`npm run lint`):
 * the simulated API's (`/openapi.json`) and the control API's (`/__sim/openapi.json`), as a simulator serves them,
 * written to a temporary folder first.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiDocument } from '../src/contract/openapi.js';
import { controlOpenApiDocument } from '../src/http/control.js';
import { CONTROL_ROUTES } from '../src/http/control-routes.js';

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-openapi-'));
try {
  const server = 'http://127.0.0.1:8080';
  const files = {
    'api.json': openApiDocument({ token: 'svc', responseStyle: 'document', serverUrl: server }),
    'control.json': controlOpenApiDocument(CONTROL_ROUTES, server),
  };
  for (const [name, doc] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(doc, null, 2));
  const cli = join(import.meta.dirname, '..', 'node_modules', '.bin', 'redocly');
  execFileSync(cli, ['lint', '--extends', 'recommended-strict', ...Object.keys(files).map((f) => join(dir, f))], {
    stdio: 'inherit',
  });
} catch {
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
