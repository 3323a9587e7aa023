import { describe, expect, it } from 'vitest';
import { probeCommand } from '../../src/cli/probe.js';
import { STEPS } from '../../src/proxy/probe.js';
import { simulator } from '../helpers.js';
import { changedUpstream, server } from '../proxy-support.js';

/**
 * `mfa-sim probe`: the same short run of requests to the upstream (here a second simulator) and to an in-process
 * mfa-sim, a table of where they agree, exit 0 when they do; nothing created on the upstream.
 */

const SECRET = 'probe-suite-secret';

async function probe(upstream: string, ...more: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const status = await probeCommand(
    ['--upstream', upstream, '--api-user', '123456789', '--secret', SECRET, ...more],
    {},
    { out: (t) => (out += t), err: (t) => (err += t) },
  );
  return { status, out, err };
}

/** The table's rows: step name and verdict. */
const verdicts = (out: string) =>
  out
    .split('\n')
    .filter((l) => /^\d+ {2}/.test(l))
    .map((l) => {
      const cells = l.split(/ {2,}/);
      return [cells[1], cells[cells.length - 1]];
    });

describe('mfa-sim probe', () => {
  it('agrees with a service that is mfa-sim, step by step, and creates nothing on it', async () => {
    const upstream = await simulator({ secret: SECRET });
    const r = await probe(upstream.url);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(verdicts(r.out)).toEqual(STEPS.map((s) => [s.name, 'agrees']));
    expect(r.out).toMatch(/^1 {2}time +200 15000 +200 15000 +agrees$/m);
    expect(r.out).toMatch(/^8 {2}invalid e-mail address +400 -5079 +400 -5079 +agrees$/m);
    expect(r.out).toMatch(/\nThe service answers in the document response style\.\n\n9 of 9 steps agree\.\n$/);
    // What it sent, as the upstream journaled it: the codes of the steps, and no challenge made.
    expect(
      upstream
        .journal()
        .map((e) => e.code)
        .reverse(),
    ).toEqual(STEPS.map((s) => s.expect));
    expect(upstream.challenges()).toEqual([]);
  });

  it('reports where the service differs, with both answers, and exits 1', async () => {
    const upstream = await simulator({ secret: SECRET, replay: { nonces: false } });
    const r = await probe(upstream.url);
    expect(r.status).toBe(1);
    expect(verdicts(r.out)[2]).toEqual(['replayed nonce', 'differs']);
    expect(r.out).toMatch(
      /3\. replayed nonce: the same time request, correctly signed with a new time and the nonce of step 1\n {3}- HTTP 200 15000 where mfa-sim answers HTTP 400 -4034\n {3}the service: HTTP 200 15000 "\{\\"utc-time\\":\\"\d+\\"\}"\n {3}mfa-sim: {5}HTTP 400 -4034 "Nonce reused: this nonce was used before\. Hint: request 1 used this nonce first/,
    );
    expect(r.out).toMatch(/\n8 of 9 steps agree\.\n$/);
  });

  it('tells which response style the service answers in, and the flag to give when it is not the one given', async () => {
    const upstream = await simulator({ secret: SECRET, responseStyle: 'sdk' });
    const r = await probe(upstream.url);
    expect(r.status).toBe(1);
    expect(r.out).toContain('\nThe service answers in the sdk response style (give --response-style sdk).\n');
    // A second service of the same style: the first remembers the times the first probe signed with.
    const again = await probe(
      (await simulator({ secret: SECRET, responseStyle: 'sdk' })).url,
      '--response-style',
      'sdk',
    );
    expect(again.out).toMatch(/\nThe service answers in the sdk response style\.\n\n9 of 9 steps agree\.\n$/);
    expect(again.status).toBe(0);
  });

  it('shows a message worded otherwise, and still agrees', async () => {
    const upstream = await simulator({
      secret: SECRET,
      rules: [{ when: { endpoint: 'challenge', type: 150 }, respond: { code: -5079, message: 'Invalid e-mail' } }],
    });
    const r = await probe(upstream.url);
    expect(verdicts(r.out)[7]).toEqual(['invalid e-mail address', 'message differs']);
    expect(r.out).toMatch(
      / {3}- the message differs from mfa-sim's\n {3}the service: HTTP 400 -5079 "Invalid e-mail"\n/,
    );
    expect(r.status).toBe(0);
  });

  it('stops at the first step when the service cannot be reached', async () => {
    const gone = await server((_req, res) => res.destroy());
    const r = await probe(gone.url);
    expect(r.status).toBe(1);
    expect(verdicts(r.out)).toEqual([['time', 'differs']]);
    expect(r.out).toMatch(/the service: the upstream closed the connection without an answer \(ECONNRESET\)/);
    expect(r.out).toMatch(/\n0 of 9 steps agree \(8 not sent: the service could not be reached\)\.\n$/);
  });

  it('prints what the service answered as text: no escape sequence reaches the terminal', async () => {
    const real = await simulator({ secret: SECRET });
    const hostile = await changedUpstream(real, (e) => ({
      ...e,
      message: '\u001b]0;owned\u0007\u001b[2J\u009b31mred\u202eevil',
    }));
    const r = await probe(hostile.url);
    // Nothing of the answer's reaches the output raw: no control character but the line breaks, no reordering mark.
    expect(
      [...r.out].filter((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f') || c === '\u202e')),
    ).toEqual([]);
    expect(r.out).toContain('\\u001b]0;owned');
  });

  it('refuses what it cannot use, with exit 2', async () => {
    const run = async (...args: string[]) => {
      let err = '';
      const status = await probeCommand(args, {}, { out: () => undefined, err: (t) => (err += t) });
      return { status, err };
    };
    expect(await run('--upstream', 'http://127.0.0.1:1')).toEqual({
      status: 2,
      err: "mfa-sim probe: give --api-user, --secret.\nRun 'mfa-sim probe --help' for the options.\n",
    });
    expect((await run('--upstream', 'ftp://example.com', '--api-user', '123456789', '--secret', 'x')).err).toMatch(
      /^mfa-sim probe: --upstream must be an http:\/\/ or https:\/\/ base URL, without user name, password, query or fragment\.\n/,
    );
    expect(
      (await run('--upstream', 'https://user:pw@example.com', '--api-user', '123456789', '--secret', 'x')).status,
    ).toBe(2);
    expect((await run('--port', '8080')).err).toMatch(/unknown flag --port/);
    let help = '';
    expect(await probeCommand(['--help'], {}, { out: (t) => (help += t), err: () => undefined })).toBe(0);
    expect(help).toMatch(/^Usage: mfa-sim probe --upstream <url> --api-user <id> --secret <secret> \[options\]/);
    expect(help).toMatch(/--upstream-ca <file\.pem>/);
  });
});
