import { describe, expect, it } from 'vitest';
import { remote, start } from '../cli-helpers.js';
import { send } from '../helpers.js';
import { server } from '../proxy-support.js';

/**
 * Class: what an upstream answers is shown for what it is, never as something it is not. The command line's log
 * says what a forwarded answer with no code came to (its status), never `undefined`.
 */

const SECRET = 'upstream-shown-secret';
const ME = { apiUser: '123456789', secret: SECRET };

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
