import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, signedHeaders, startSimulator, type RunningSimulator } from '../../src/index.js';
import { cancelEnvelope, challengeEnvelope, lookupEnvelope, raw, simulator, type Sent } from '../helpers.js';
import { server } from '../proxy-support.js';

/**
 * The recorder (`--record <dir>` with `--upstream`): a run through the proxy is written as a scenario and the raw
 * exchanges, with every secret, signature and nonce removed; a fresh simulator loaded with the scenario answers the
 * same requests as the upstream did.
 */

const SECRET = 'recorder-suite-secret';
const ME = { apiUser: '123456789', secret: SECRET };
const AT = Date.parse('2026-11-25T10:00:00.000Z');
const WORLD = {
  clock: { frozenAt: AT },
  accounts: { 'locked@example.com': 'locked' },
  rules: [
    { name: 'flaky once', when: { svcUser: 'flaky@example.com' }, times: 1, fault: 'proxy-503' as const },
    {
      name: 'own words',
      when: { svcUser: 'worded@example.com' },
      respond: { code: -2007, message: 'This account was switched off by its owner' },
    },
  ],
};

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'mfa-sim-record-'));
  dirs.push(d);
  return join(d, 'sandbox');
}

/** A request, signed once: the same bytes go to the proxy and, later, to the replay. */
interface Request {
  method: string;
  path: string;
  headers: [string, string][];
  body?: string;
}

let tick = 0;
function request(path: string, body: unknown, opts: { method?: string; secret?: string } = {}): Request {
  const headers = Object.entries(
    signedHeaders({ apiUser: ME.apiUser, secret: opts.secret ?? SECRET, time: AT + ++tick, nonce: randomUUID() }),
  );
  headers.push(['Content-Type', 'application/json; charset=utf-8']);
  return { method: opts.method ?? 'POST', path, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}
const sendTo = (sim: RunningSimulator, r: Request) => raw(sim.url, r.method, r.path, r.headers, r.body);
const answerOf = (r: Sent) => ({ status: r.status, type: String(r.headers['content-type']), text: r.text });

describe('the recorder', async () => {
  const upstream = await simulator({ secret: SECRET, ...WORLD });
  const dir = folder();
  const px = await simulator({ secret: SECRET, ...WORLD, rules: [], upstream: upstream.url, record: dir });
  const sent: Request[] = [];
  const got: ReturnType<typeof answerOf>[] = [];
  const go = async (r: Request) => {
    sent.push(r);
    const answer = await sendTo(px, r);
    got.push(answerOf(answer));
    return answer;
  };

  it('writes a run through the proxy as a scenario and the raw exchanges', async () => {
    await go(request('/v1/svc/time', undefined, { method: 'GET' }));
    const created = await go(
      request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'user@example.com' })),
    );
    const id = JSON.parse(created.text).message
      ? (JSON.parse(JSON.parse(created.text).message) as { challengeId: string }).challengeId
      : '';
    await go(request('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id)));
    await go(request('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id)));
    await go(request('/v1/svc/challenge', cancelEnvelope(ME.apiUser, id)));
    await go(request('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id)));
    await go(request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'locked@example.com' })));
    await go(request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'worded@example.com' })));
    await go(request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'flaky@example.com' })));
    await go(request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'flaky@example.com' })));
    await go(request('/v1/svc/time', undefined, { method: 'GET', secret: 'not-the-secret' }));
    await go(request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: 'not-an-address' })));
    expect(got.map((g) => g.status)).toEqual([200, 202, 400, 400, 202, 400, 400, 400, 503, 202, 400, 400]);
    await px.close();

    const lines = readFileSync(join(dir, 'exchanges.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            seq: number;
            request: { headers: [string, string][] };
            response: { status: number; body: string };
          },
      );
    expect(lines.map((l) => l.response.status)).toEqual(got.map((g) => g.status));
    expect(lines[1].response.body).toBe(got[1].text);
    const auth = lines[0].request.headers.find(([n]) => n === 'Authorization')![1];
    expect(auth).toBe(
      `svc-hmac: apiuser=${ME.apiUser},signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=[removed]`,
    );
    expect(lines[0].request.headers.find(([n]) => n === 'x-svc-cnonce')![1]).toBe('[removed]');

    const scenario = loadScenarioFile(join(dir, 'scenario.yaml'));
    expect(scenario.name).toBe('recorded');
    expect(scenario.input.description).toMatch(`What ${upstream.url} answered, recorded by mfa-sim (12 requests)`);
    const rules = scenario.input.rules!;
    const statuses = rules.filter((r) => r.when?.endpoint === 'status');
    expect(statuses.map((r) => [r.respond?.code, r.times])).toEqual([
      [-3091, 2],
      [-3092, undefined],
    ]);
    expect(rules.find((r) => r.when?.svcUser === 'flaky@example.com' && r.fault)).toMatchObject({
      fault: 'proxy-503',
      times: 1,
    });
    expect(rules.find((r) => r.when?.svcUser === 'worded@example.com')).toMatchObject({
      respond: { code: -2007, message: 'This account was switched off by its owner' },
    });
    // The time is told by the replay's own clock.
    expect(
      rules.find((r) => r.when?.endpoint === 'time' && r.respond?.code === 15000)!.respond!.message,
    ).toBeUndefined();
  });

  it('removes every secret, signature and nonce from both files', () => {
    const written =
      readFileSync(join(dir, 'exchanges.jsonl'), 'utf8') + readFileSync(join(dir, 'scenario.yaml'), 'utf8');
    expect(written).not.toContain(SECRET);
    for (const r of sent) {
      const headers = new Map(r.headers.map(([n, v]) => [n.toLowerCase(), v]));
      expect(written).not.toContain(headers.get('x-svc-cnonce'));
      expect(written).not.toContain(/signature=([0-9a-f]{128})/.exec(headers.get('authorization')!)![1]);
    }
  });

  it('a fresh simulator loaded with the scenario answers the same requests as the upstream did', async () => {
    const replay = await startSimulator({
      scenario: join(dir, 'scenario.yaml'),
      apiUser: ME.apiUser,
      secret: SECRET,
      clock: { frozenAt: AT },
    });
    try {
      const again: ReturnType<typeof answerOf>[] = [];
      for (const r of sent) again.push(answerOf(await sendTo(replay, r)));
      const comparable = (a: ReturnType<typeof answerOf>) => {
        const envelope = a.type?.startsWith('application/json')
          ? (JSON.parse(a.text) as Record<string, unknown>)
          : undefined;
        // moreInfo and the QR code's page name each server's own address; everything else is the upstream's.
        return envelope
          ? {
              status: a.status,
              code: envelope.code,
              message: envelope.message,
              id: envelope.id,
              utctime: envelope.utctime,
            }
          : { status: a.status, type: a.type, text: a.text };
      };
      expect(again.map(comparable)).toEqual(got.map(comparable));
    } finally {
      await replay.close();
    }
  });

  it('never writes over a recording', async () => {
    await expect(startSimulator({ secret: SECRET, upstream: upstream.url, record: dir })).rejects.toThrow(
      /scenario\.yaml exists: a recording is never written over/,
    );
    await expect(startSimulator({ secret: SECRET, record: folder() })).rejects.toThrow(
      /record: is an option of proxy mode: give upstream too/,
    );
  });
});

describe('the recorder: what it keeps of each request, and answers a rule cannot give', async () => {
  const hostile = await server((req, res) => {
    if (req.url!.includes('teapot')) {
      res.writeHead(418, { 'content-type': 'text/plain', 'set-cookie': 'session=upstream-cookie' });
      return void res.end("I'm a teapot");
    }
    // A cancel's success to a verify: a code of the table, which the table gives to other requests.
    const [status, code] = req.url!.includes('scope') ? [202, 2028] : [200, 15001];
    res.writeHead(status, { 'content-type': 'application/json', 'set-cookie': 'session=upstream-cookie' });
    res.end(
      JSON.stringify({
        id: 'x',
        utctime: '2026-11-25T10:00:00.000Z',
        status,
        code,
        message: 'odd',
        moreInfo: `https://s.example/status?code=${code}`,
      }),
    );
  });
  const upstream = await simulator({
    secret: SECRET,
    ...WORLD,
    rules: [
      {
        when: { svcUser: 'wide@example.com' },
        respond: { code: 2025, message: JSON.stringify({ challengeId: 'w', pad: 'p'.repeat(200_000) }) },
      },
    ],
  });
  const recordOf = async (target: string, requests: Request[], extra: Record<string, unknown> = {}) => {
    const dir = folder();
    const px = await startSimulator({
      secret: SECRET,
      upstream: target,
      record: dir,
      clock: { frozenAt: AT },
      upstreamTimeout: 500,
      ...extra,
    });
    for (const r of requests) await sendTo(px, r);
    await px.close();
    return {
      dir,
      scenario: loadScenarioFile(join(dir, 'scenario.yaml')),
      lines: readFileSync(join(dir, 'exchanges.jsonl'), 'utf8').trimEnd().split('\n'),
    };
  };

  it('removes credentials, signatures and nonces from the headers, however written; keeps the rest as sent', async () => {
    const bare = request('/v1/svc/time', undefined, { method: 'GET' });
    const hex = /signature=([0-9a-f]{128})/.exec(bare.headers.find(([n]) => n === 'Authorization')![1])![1];
    bare.headers = bare.headers.map(([n, v]) => (n === 'Authorization' ? [n, hex] : [n, v]));
    bare.headers.push(
      ['Cookie', 'session=client-cookie'],
      ['X-Sim-Control-Token', 'ctl-token-value'],
      ['x-svc-nonce', 'other-nonce-value'],
      ['Proxy-Authorization', 'Basic c2VjcmV0'],
      ['X-Kept', 'kept as sent'],
    );
    const { lines } = await recordOf(hostile.url, [bare]);
    const line = lines[0];
    for (const gone of [hex, 'client-cookie', 'upstream-cookie', 'ctl-token-value', 'other-nonce-value', 'c2VjcmV0'])
      expect(line).not.toContain(gone);
    const { request: sent, response } = JSON.parse(line) as {
      request: { headers: [string, string][] };
      response: { headers: [string, string][] };
    };
    expect(Object.fromEntries(sent.headers)).toMatchObject({
      Authorization: '[removed]',
      Cookie: '[removed]',
      'X-Sim-Control-Token': '[removed]',
      'x-svc-nonce': '[removed]',
      'x-svc-cnonce': '[removed]',
      'X-Kept': 'kept as sent',
      'Content-Type': 'application/json; charset=utf-8',
    });
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'set-cookie': '[removed]',
      'content-type': 'application/json',
    });
  });

  it('tells kinds of requests apart by endpoint, type, API user, user and challenge type, each as a replay reads it', async () => {
    upstream.loadScenario({ name: 'plain', clock: { frozenAt: AT } });
    const odd = 'a*b?{d}@example.com';
    const { dir, scenario } = await recordOf(upstream.url, [
      request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: odd, challengeType: 'UserKeyAndUserPin' })),
      request('/v1/svc/challenge', cancelEnvelope(ME.apiUser, randomUUID(), odd)),
      request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { challengeType: 'NotAType' })),
      // A published client sends the user in Base64: the rule names the address it stands for, as a replay reads it.
      request(
        '/v1/svc/challenge',
        challengeEnvelope(ME.apiUser, { svcUser: Buffer.from('b64@example.com').toString('base64') }),
      ),
      request('/v1/svc/time', {
        id: 't',
        utctime: '1',
        apiUser: ME.apiUser,
        type: 990,
        body: { svcUser: 'nobody@example.com' },
      }),
      {
        ...request('/v1/svc/blocked', { id: 'b', utctime: '1', apiUser: ME.apiUser, type: 151, body: {} }),
        headers: [
          ['x-svc-apiuser', '12345'],
          ['Content-Type', 'application/json'],
        ],
      },
      request('/v1/svc/nowhere', {}),
    ]);
    expect(scenario.input.rules!.map((r) => r.when)).toEqual([
      {
        endpoint: 'challenge',
        type: 150,
        apiUser: ME.apiUser,
        svcUser: 'a\\*b\\?\\{d\\}@example.com',
        challengeType: 'UserKeyAndUserPin',
      },
      {
        endpoint: 'challenge',
        type: 150,
        apiUser: ME.apiUser,
        svcUser: 'b64@example.com',
        challengeType: 'UserKeyAndPattern',
      },
      { endpoint: 'challenge', type: 151, apiUser: ME.apiUser, svcUser: 'a\\*b\\?\\{d\\}@example.com' },
      { endpoint: 'challenge', type: 150, apiUser: ME.apiUser, svcUser: 'user@example.com' },
      { endpoint: 'time', type: 990, apiUser: ME.apiUser },
      { endpoint: 'blocked' },
    ]);
    // The user's glob characters stand for themselves: the recorded answer is that user's, and no other's.
    const replay = await startSimulator({
      scenario: join(dir, 'scenario.yaml'),
      apiUser: ME.apiUser,
      secret: SECRET,
      clock: { frozenAt: AT },
    });
    try {
      const idFor = async (user: string) =>
        JSON.parse(
          (
            await sendTo(
              replay,
              request(
                '/v1/svc/challenge',
                challengeEnvelope(ME.apiUser, { svcUser: user, challengeType: 'UserKeyAndUserPin' }),
              ),
            )
          ).json.message,
        ).challengeId as string;
      const recorded = JSON.parse(
        JSON.parse(readFileSync(join(dir, 'exchanges.jsonl'), 'utf8').split('\n')[0]).response.body,
      ).message as string;
      expect(await idFor(odd)).toBe(JSON.parse(recorded).challengeId);
      expect(await idFor('aXXb!{d}@example.com')).not.toBe(JSON.parse(recorded).challengeId);
    } finally {
      await replay.close();
    }
  });

  it('writes the nearest a rule can give: no answer, another page, a code outside the table, a 5xx page', async () => {
    const { scenario: fromHostile } = await recordOf(hostile.url, [
      request('/v1/svc/time?teapot', undefined, { method: 'GET' }),
      request('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, 'c')),
      request('/v1/svc/verify?scope', lookupEnvelope(ME.apiUser, 170, 'c')),
    ]);
    expect(fromHostile.input.rules!.map((r) => r.respond)).toEqual([
      { code: -5000, message: 'Internal error: the service answered HTTP 200 15001 "odd"' },
      {
        code: -5000,
        message: 'Internal error: the service answered code 2028, which the code table does not give to these requests',
      },
      { code: -5000, message: `Internal error: the service answered HTTP 418 text/plain "I'm a teapot"` },
    ]);
    const silent = await server(() => undefined);
    const { scenario: fromSilent } = await recordOf(silent.url, [
      request('/v1/svc/time', undefined, { method: 'GET' }),
    ]);
    expect(fromSilent.input.rules![0]).toMatchObject({
      respond: { code: -5000, message: 'Internal error: the upstream did not answer within 500 ms' },
    });
    const flaky = await simulator({
      secret: SECRET,
      clock: { frozenAt: AT },
      rules: [{ when: { endpoint: 'time' }, fault: 'proxy-504' }],
    });
    const { scenario: fromFlaky } = await recordOf(flaky.url, [request('/v1/svc/time', undefined, { method: 'GET' })]);
    expect(fromFlaky.input.rules!.map((r) => [r.fault, r.respond])).toEqual([['proxy-504', undefined]]);
  });

  it('stops growing where one scenario file ends, says so, and the file still loads; each raw body is cut', async () => {
    const users = Array.from({ length: 8 }, (_, i) =>
      request('/v1/svc/challenge', challengeEnvelope(ME.apiUser, { svcUser: `wide${i}@example.com` })),
    );
    upstream.loadScenario({
      name: 'wide',
      clock: { frozenAt: AT },
      rules: [
        {
          when: { endpoint: 'challenge', type: 150 },
          respond: { code: 2025, message: JSON.stringify({ challengeId: 'w', pad: 'p'.repeat(200_000) }) },
        },
      ],
    });
    const { scenario, lines } = await recordOf(upstream.url, users);
    expect(scenario.input.rules!.length).toBeGreaterThanOrEqual(3);
    expect(scenario.input.rules!.length).toBeLessThan(8);
    expect(scenario.input.description).toMatch(
      /Recording stopped growing at request \d: \d rules, as much as one scenario file holds\. The exchanges after it are in .*exchanges\.jsonl\.$/,
    );
    expect(lines).toHaveLength(8);
    for (const l of lines) expect(l.length).toBeLessThan(40_000);
    expect(JSON.parse(lines[0]).response.body).toMatch(/… \(\d+ more characters\)$/);
  });
});
