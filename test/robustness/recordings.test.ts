import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, signedHeaders, type RunningSimulator } from '../../src/index.js';
import { MAX_SCENARIO_BYTES } from '../../src/scenario/files.js';
import { start } from '../cli-helpers.js';
import { challengeEnvelope, raw, simulator } from '../helpers.js';
import { server } from '../proxy-support.js';

/**
 * Class: a recording the loader refuses. Whatever a hostile upstream answers (messages of characters that take three
 * bytes each, messages full of `{` and `[`), the recording stays within what one scenario file may hold, in bytes,
 * and loads and replays: in process and with `--scenario <dir>/scenario.yaml`.
 */

const SECRET = 'recordings-robustness-secret';
const ME = { apiUser: '123456789', secret: SECRET };
const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-recordings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One request, signed once: the same bytes go to the proxy and to the replay. */
interface Request {
  headers: [string, string][];
  body: string;
}
let tick = 0;
function challenge(user: string): Request {
  const headers = Object.entries(
    signedHeaders({ apiUser: ME.apiUser, secret: SECRET, time: Date.now() + ++tick, nonce: randomUUID() }),
  );
  headers.push(['Content-Type', 'application/json; charset=utf-8']);
  return { headers, body: JSON.stringify(challengeEnvelope(ME.apiUser, { svcUser: user })) };
}
const sendTo = (sim: RunningSimulator, r: Request) => raw(sim.url, 'POST', '/v1/svc/challenge', r.headers, r.body);

/**
 * Records `requests` through a proxy to an upstream that answers the nth request with `answer(n)`; replays them on a
 * fresh simulator loaded with the recording, and on the command line; returns what the proxy and the replay answered.
 */
async function recordAndReplay(
  name: string,
  requests: Request[],
  answer: (n: number) => { status: number; type: string; body: string },
) {
  let n = 0;
  const upstream = await server((_req, res) => {
    const a = answer(n++);
    res.writeHead(a.status, { 'content-type': a.type });
    res.end(a.body);
  });
  const folder = join(dir, name);
  const px = await simulator({ secret: SECRET, upstream: upstream.url, record: folder });
  const recorded: string[] = [];
  for (const r of requests) recorded.push((await sendTo(px, r)).text);
  await px.close();
  const file = join(folder, 'scenario.yaml');
  expect(statSync(file).size).toBeLessThanOrEqual(MAX_SCENARIO_BYTES);
  const rules = loadScenarioFile(file).input.rules!;
  const replay = await simulator({ secret: SECRET, scenario: file });
  const replayed: string[] = [];
  for (const r of requests.slice(0, rules.length)) replayed.push((await sendTo(replay, r)).text);
  await replay.close();
  const cli = await start(['--port', '0', '--quiet', '--scenario', file, '--api-user', ME.apiUser, '--secret', SECRET]);
  cli.child.kill('SIGTERM');
  expect(await cli.exit).toBe(0);
  return { recorded, replayed, rules, text: readFileSync(file, 'utf8') };
}

const envelope = (code: number, message: string) =>
  JSON.stringify({ id: 'ref-1', utctime: String(Date.now()), code, message });
/** An answer's code and the start of its message; a page the service answered is replayed as -5000 quoting it. */
const codeAndMessage = (text: string) => {
  if (!text.startsWith('{"'))
    return [-5000, `Internal error: the service answered HTTP 500 text/plain ${JSON.stringify(text)}`.slice(0, 60)];
  const e = JSON.parse(text) as { code: number; message: string };
  return [e.code, e.message.slice(0, 60)];
};

describe('a recording of a hostile upstream always loads and replays', () => {
  it('messages of CJK characters (three bytes each): the recording stops growing under 1 MiB in bytes', async () => {
    const requests = Array.from({ length: 120 }, () => challenge('cjk@example.com'));
    const { recorded, replayed, rules, text } = await recordAndReplay('cjk', requests, (n) => ({
      status: 400,
      type: 'application/json',
      body: envelope(-2007, `${n} ${'帳戶已停用'.repeat(2000)}`),
    }));
    expect(rules.length).toBeGreaterThan(5);
    expect(rules.length).toBeLessThan(120);
    expect(text).toMatch(/Recording stopped growing at request \d+/);
    expect(replayed.map(codeAndMessage)).toEqual(recorded.slice(0, rules.length).map(codeAndMessage));
  });

  it('messages full of { and [, in an envelope or a page quoted in a -5000: loaded, not "nested too deeply"', async () => {
    const requests = Array.from({ length: 8 }, () => challenge('brackets@example.com'));
    const { recorded, replayed, rules } = await recordAndReplay('brackets', requests, (n) =>
      n % 2 === 0
        ? { status: 400, type: 'application/json', body: envelope(-2007, `${n} ${'{['.repeat(300)}`) }
        : { status: 500, type: 'text/plain', body: `${n}${'{'.repeat(5000)}` },
    );
    expect(rules).toHaveLength(8);
    expect(replayed.map(codeAndMessage)).toEqual(recorded.map(codeAndMessage));
  });
});
