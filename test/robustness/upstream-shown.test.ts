import { describe, expect, it } from 'vitest';
import type { ExploreResult } from '../../src/http/explore.js';
import { remote, start } from '../cli-helpers.js';
import { send, simulator } from '../helpers.js';
import { server } from '../proxy-support.js';

/**
 * Class: what an upstream answers is shown for what it is, never as something it is not. The command line's log
 * says what a forwarded answer with no code came to (its status), never `undefined`; the dashboard's explorer offers
 * an upstream's phone page URL as a link only when it is an http: or https: URL, and its QR code as an image only when
 * it is a PNG data URL (docs/proxy.md: nothing the upstream says is rendered).
 */

const SECRET = 'upstream-shown-secret';
const ME = { apiUser: '123456789', secret: SECRET };
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';

describe("the command line's log of answers with no code", () => {
  it('a page, plain text, an empty answer, a code that is a string, no answer: the status or why, never undefined', async () => {
    const upstream = await server((req, res) => {
      const answer = (status: number, type: string, body: string) => {
        res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      const kind = String(req.headers['x-answer']);
      if (kind === 'html') answer(502, 'text/html', '<html><body>Bad gateway</body></html>');
      else if (kind === 'text') answer(200, 'text/plain', 'hello');
      else if (kind === 'empty') answer(204, 'text/plain', '');
      else if (kind === 'string-code') answer(400, 'application/json', '{"code":"-4037","message":"x"}');
      else req.socket.destroy();
    });
    const run = await start(['--port', '0', '--upstream', upstream.url, '--secret', SECRET]);
    try {
      const px = remote(run.url, ME.apiUser, SECRET);
      for (const kind of ['html', 'text', 'empty', 'string-code', 'gone'])
        await send(px, '/v1/svc/time', { method: 'GET', as: ME, headers: { 'x-answer': kind } });
      await expect.poll(() => run.out().match(/ GET \/v1\/svc\/time /g)?.length).toBe(5);
      const lines = run
        .out()
        .split('\n')
        .filter((l) => l.includes(' GET /v1/svc/time '));
      expect(lines.map((l) => / -> (.*) \(\d/.exec(l)?.[1])).toEqual([
        '502 (no code)',
        '200 (no code)',
        '204 (no code)',
        '400 (no code)',
        'fault upstream: the upstream closed the connection without an answer (ECONNRESET)',
      ]);
      for (const line of lines) expect(line).not.toContain('undefined');
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  });
});

describe("the explorer's new challenge, named by an upstream", async () => {
  /** The upstream answers 2025 with the phone page URL and QR code that the explorer's user names (`case-<n>@`). */
  const cases: [url: unknown, qr: unknown][] = [
    ['https://upstream.example/phone/1', PNG],
    ['javascript:alert(document.domain)', 'https://tracker.example/pixel.png'],
    ['  JavaScript:alert(1)', 'data:image/svg+xml;base64,PHN2Zy8+'],
    ['data:text/html,<script>alert(1)</script>', `${PNG}"><script>alert(1)</script>`],
    ['//upstream.example/phone/1', 'javascript:alert(1)'],
    [{ href: 'https://upstream.example/' }, 42],
  ];
  const upstream = await server((_req, res, body) => {
    const user = /case-(\d+)@/.exec(body.toString())?.[1];
    const [url, qr] = cases[Number(user)] ?? [];
    const message =
      user === undefined
        ? 'not JSON'
        : JSON.stringify({ challengeId: `up-${user}`, challengeQRcodeUrl: url, challengeQRcode: qr });
    const text = JSON.stringify({
      id: 'x',
      utctime: new Date().toISOString(),
      status: 202,
      code: 2025,
      message,
      moreInfo: 'https://upstream.example/codes?code=2025',
    });
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
  const px = await simulator({ secret: SECRET, upstream: upstream.url });
  const explore = async (user: string) => {
    const r = await fetch(`${px.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'challenge', user }),
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as ExploreResult).exchanges[0];
  };

  it('only an http or https URL is a link, only a PNG data URL an image: anything else is text', async () => {
    const shown = [];
    for (let i = 0; i < cases.length; i++) shown.push((await explore(`case-${i}@example.com`)).challenge);
    expect(shown).toEqual([
      { challengeId: 'up-0', phonePage: { link: 'https://upstream.example/phone/1' }, qrCode: { image: PNG } },
      {
        challengeId: 'up-1',
        phonePage: { text: 'javascript:alert(document.domain)' },
        qrCode: { text: 'https://tracker.example/pixel.png' },
      },
      {
        challengeId: 'up-2',
        phonePage: { text: '  JavaScript:alert(1)' },
        qrCode: { text: 'data:image/svg+xml;base64,PHN2Zy8+' },
      },
      {
        challengeId: 'up-3',
        phonePage: { text: 'data:text/html,<script>alert(1)</script>' },
        qrCode: { text: `${PNG}"><script>alert(1)</script>` },
      },
      {
        challengeId: 'up-4',
        phonePage: { text: '//upstream.example/phone/1' },
        qrCode: { text: 'javascript:alert(1)' },
      },
      { challengeId: 'up-5', phonePage: { text: '(an object)' }, qrCode: { text: '(an integer)' } },
    ]);
    // A 2025 whose message is not JSON names no challenge: the answer is shown as it came.
    const x = await explore('someone@example.com');
    expect(JSON.parse(x.response.body)).toMatchObject({ code: 2025, message: 'not JSON' });
    expect(x.challenge).toBeUndefined();
  });

  it("mfa-sim's own new challenge: its phone page is a link and its QR code an image", async () => {
    const sim = await simulator({ secret: SECRET });
    const r = await fetch(`${sim.url}/__sim/explore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'challenge', enableQRcode: true }),
    });
    const c = ((await r.json()) as ExploreResult).exchanges[0].challenge!;
    expect(c.phonePage).toEqual({ link: `${sim.url}/phone/${c.challengeId}` });
    expect(c.qrCode).toEqual({ image: expect.stringMatching(/^data:image\/png;base64,/) });
  });
});
