/**
 * Which files of src/ one request runs code in (docs/architecture.md walks them): a simulator started in this
 * process, warmed up, then V8's precise coverage taken around one signed new challenge and one signed time request.
 * Prints each request's files and fails (exit 1) past the house's bounds: at most 25 files for a new challenge, fewer
 * for a signed time request.
 *
 *   npx tsx scripts/request-files.ts
 */
import { randomUUID } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signedHeaders, startSimulator } from '../src/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BOUND = { challenge: 25, time: 24 };

const sim = await startSimulator({ secret: 'request-files' });
const as = { apiUser: sim.apiUser.id, secret: 'request-files' };
let last = 0;
const time = () => (last = Math.max(last + 1, sim.simulator.now()));

const requests = {
  challenge: () => {
    const t = time();
    return fetch(`${sim.url}/v1/svc/challenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedHeaders({ ...as, time: t, nonce: randomUUID() }) },
      body: JSON.stringify({
        id: `r-${t}`,
        utctime: String(t),
        apiUser: as.apiUser,
        type: 150,
        body: { svcUser: 'user@example.com', challengeType: 'UserKeyAndPattern', enableQRcode: false },
      }),
    });
  },
  time: () => fetch(`${sim.url}/v1/svc/time`, { headers: signedHeaders({ ...as, time: time(), nonce: randomUUID() }) }),
};

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** The files of src/ whose functions ran since the last call. */
async function ran(): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const file = relative(ROOT, fileURLToPath(script.url));
    if (!file.startsWith('src/')) continue;
    // A function other than the module's own (which starts at offset 0) that ran at least once.
    if (script.functions.some((f) => f.ranges[0].startOffset > 0 && f.ranges[0].count > 0)) files.add(file);
  }
  return [...files].sort();
}

let failed = false;
for (const [name, send] of Object.entries(requests) as [keyof typeof requests, () => Promise<Response>][]) {
  for (let i = 0; i < 200; i++) await (await send()).text();
  await ran();
  const answer = (await (await send()).json()) as { code: number };
  const files = await ran();
  const over = files.length > BOUND[name];
  failed ||= over;
  console.log(
    `${name} (code ${answer.code}): ${files.length} files of src/${over ? ` (more than ${BOUND[name]})` : ''}`,
  );
  for (const f of files) console.log(`  ${f}`);
}
await sim.close();
process.exitCode = failed ? 1 : 0;
