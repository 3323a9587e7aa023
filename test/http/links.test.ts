import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, signedHeaders, Simulator, type SimulatorOptions } from '../../src/index.js';
import { Links } from '../../src/request/context.js';
import { bodyOf, challengeEnvelope, expectEnvelope, raw, rawSocket } from '../helpers.js';

/**
 * The base URL of an answer's links (src/request/links.ts) when the simulator has no public URL: an app made with
 * createApp and mounted on the caller's own server links back by the Host the request came by, when that Host is a
 * plain host name or IP literal (with a port or not), else by `localhost`; the Host is shown with its secrets hidden.
 */

const who = { apiUser: '123456789', secret: 'links-default-secret' };

/** A simulator made with createApp, on a node:http server of the test's own (no public URL), closed after the file. */
async function mounted(options: SimulatorOptions = { apiUser: who.apiUser, secret: who.secret }) {
  const sim = new Simulator(options);
  const server: Server = createServer(createApp(sim));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let lastTime = 0;
  /** Signed headers for the simulator's time now, never the same millisecond twice. */
  const signed = (as = who) => {
    lastTime = Math.max(sim.now(), lastTime + 1);
    return signedHeaders({ apiUser: as.apiUser, secret: as.secret, time: lastTime, nonce: randomUUID() });
  };
  /** A signed time request sent with this Host header; the base URL its moreInfo links to. */
  const baseFor = async (host: string, as = who): Promise<string> => {
    const r = await raw(url, 'GET', '/v1/svc/time', [['Host', host], ...Object.entries(signed(as))]);
    const e = expectEnvelope(r, 200, 15000);
    expect(e.moreInfo.endsWith('/status?code=15000'), e.moreInfo).toBe(true);
    return e.moreInfo.slice(0, -'/status?code=15000'.length);
  };
  return { sim, url, signed, baseFor };
}

describe('without a public URL, links go back by the Host the request came by', async () => {
  const { url, signed, baseFor } = await mounted();

  it('a host name or IPv4 address, with or without a port', async () => {
    expect(await baseFor('api.example.com')).toBe('http://api.example.com');
    expect(await baseFor('api.example.com:8443')).toBe('http://api.example.com:8443');
    expect(await baseFor('10.0.0.7')).toBe('http://10.0.0.7');
    expect(await baseFor('my-host:1')).toBe('http://my-host:1');
    expect(await baseFor('my-host:65535')).toBe('http://my-host:65535');
  });

  it('an IPv6 literal in brackets, with or without a port', async () => {
    expect(await baseFor('[::1]')).toBe('http://[::1]');
    expect(await baseFor('[::1]:8080')).toBe('http://[::1]:8080');
    expect(await baseFor('[2001:DB8::a]:1')).toBe('http://[2001:DB8::a]:1');
    expect(await baseFor('[::ffff:10.0.0.7]')).toBe('http://[::ffff:10.0.0.7]');
  });

  it('a Host that is not a plain host and port gives localhost', async () => {
    const invalid = [
      'bad host',
      'host/path',
      'host:123456',
      'host:80a',
      'host:',
      'exämple.com',
      '[zz::1]',
      '[::1',
      '[::1]/x',
      '[::1]:123456',
      '[::1]:8o',
      'x/[::1]',
      'a [::1]:80',
    ];
    for (const host of invalid) expect(await baseFor(host), host).toBe('http://localhost');
  });

  it('a new challenge links its phone page by the same base', async () => {
    const body = challengeEnvelope(who.apiUser, { enableQRcode: true });
    const send = async (host: string) => {
      const r = await raw(
        url,
        'POST',
        '/v1/svc/challenge',
        [['Host', host], ['content-type', 'application/json'], ...Object.entries(signed())],
        JSON.stringify(body),
      );
      const e = expectEnvelope(r, 202, 2025);
      return JSON.parse(e.message) as { challengeId: string; challengeQRcodeUrl: string };
    };
    const a = await send('phone.example:9000');
    expect(a.challengeQRcodeUrl).toBe(`http://phone.example:9000/phone/${a.challengeId}`);
    const b = await send('[::1]:9001');
    expect(b.challengeQRcodeUrl).toBe(`http://[::1]:9001/phone/${b.challengeId}`);
    const c = await send('not a host');
    expect(c.challengeQRcodeUrl).toBe(`http://localhost/phone/${c.challengeId}`);
  });

  it('one Host after another: each gets its own base, the same Host the same one', async () => {
    expect(await baseFor('one.example')).toBe('http://one.example');
    expect(await baseFor('one.example')).toBe('http://one.example');
    expect(await baseFor('two.example:81')).toBe('http://two.example:81');
    expect(await baseFor('one.example')).toBe('http://one.example');
    expect(await baseFor('bad host')).toBe('http://localhost');
    expect(await baseFor('bad host')).toBe('http://localhost');
    expect(await baseFor('two.example:81')).toBe('http://two.example:81');
  });

  it('a Host that holds a secret is shown with the secret hidden', async () => {
    expect(await baseFor(`${who.secret}.example`)).toBe('http://[secret].example');
  });
});

describe('a request with no Host header (HTTP/1.0) links to localhost', async () => {
  const { url, signed, baseFor } = await mounted();
  const hostless = async () => {
    const head = Object.entries(signed())
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const text = await rawSocket(url, `GET /v1/svc/time HTTP/1.0\r\n${head}\r\n`);
    expect(text.startsWith('HTTP/1.1 200'), text).toBe(true);
    return bodyOf(text).moreInfo;
  };

  it('as the first request the simulator answers, and after a Host was seen', async () => {
    expect(await hostless()).toBe('http://localhost/status?code=15000');
    expect(await hostless()).toBe('http://localhost/status?code=15000');
    expect(await baseFor('seen.example')).toBe('http://seen.example');
    expect(await hostless()).toBe('http://localhost/status?code=15000');
    expect(await baseFor('seen.example')).toBe('http://seen.example');
  });
});

describe('when the secrets change, a Host seen before is shown anew', async () => {
  const { sim, baseFor } = await mounted();
  const host = 'hostsecret42.example';

  it('a Host that holds what becomes a secret is hidden from then on, and shown again once it is not one', async () => {
    expect(await baseFor(host)).toBe(`http://${host}`);
    expect(await baseFor(host)).toBe(`http://${host}`);
    // A scenario whose API user's secret is the Host's first label.
    const holder = { apiUser: '222222222', secret: 'hostsecret42' };
    sim.loadScenario({ name: 'holds it', apiUsers: [{ id: holder.apiUser, secret: holder.secret }] });
    expect(await baseFor(host, holder)).toBe('http://[secret].example');
    expect(await baseFor(host, holder)).toBe('http://[secret].example');
    // Another scenario, without that secret: the Host is the caller's own again.
    const other = { apiUser: '333333333', secret: 'another-secret' };
    sim.loadScenario({ name: 'does not', apiUsers: [{ id: other.apiUser, secret: other.secret }] });
    expect(await baseFor(host, other)).toBe(`http://${host}`);
  });
});

describe('a public URL wins over the Host', async () => {
  const { baseFor } = await mounted({
    apiUser: who.apiUser,
    secret: who.secret,
    publicUrl: 'http://public.example:7000/',
  });

  it('every answer links to the public URL, whatever Host it came by', async () => {
    expect(await baseFor('api.example.com')).toBe('http://public.example:7000');
    expect(await baseFor('bad host')).toBe('http://public.example:7000');
  });
});

describe("a challenge's phone link", () => {
  // Every id the simulator makes is a UUID; the id is still a path segment, percent-encoded when it is anything else.
  const links = new Links((text) => text, 'http://127.0.0.1:7000');

  it('carries a UUID, and every character RFC 3986 leaves unreserved, as it is', () => {
    expect(links.challenge('0f0e0d0c-0b0a-4908-8706-050403020100')).toBe(
      'http://127.0.0.1:7000/phone/0f0e0d0c-0b0a-4908-8706-050403020100',
    );
    expect(links.challenge('Az09-._~')).toBe('http://127.0.0.1:7000/phone/Az09-._~');
  });

  it('percent-encodes any other character, as encodeURIComponent does', () => {
    for (const id of ['a b', 'a/b', '../x', 'a?b#c', '%41', 'é', 'a\u2028b', '<b>', ''])
      expect(links.challenge(id)).toBe(`http://127.0.0.1:7000/phone/${encodeURIComponent(id)}`);
    expect(links.challenge('../x')).toBe('http://127.0.0.1:7000/phone/..%2Fx');
  });
});
