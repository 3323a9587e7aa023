import { describe, expect, it } from 'vitest';
import { hostnameOf } from '../../src/simulator/allowed-hosts.js';
import { challengeEnvelope, expectEnvelope, raw, send, simulator } from '../helpers.js';
import { run } from '../cli-helpers.js';
import { signedPairs } from './support.js';

/**
 * Class: a web page that reaches the control plane under its own name (DNS rebinding). Everything under
 * `/__sim/` (control API, dashboard, event stream, explorer, health) answers only a Host naming this machine
 * or a name the operator allowed; the simulated API answers under any name.
 */

/** A request as a rebinding page's browser sends it: its own name in Host and Origin, and "same-origin". */
function asPage(host: string): [string, string][] {
  return [
    ['Host', host],
    ['Origin', `http://${host}`],
    ['Sec-Fetch-Site', 'same-origin'],
    ['Content-Type', 'application/json'],
  ];
}

const CONTROL: [method: string, path: string, body?: string][] = [
  ['GET', '/__sim/scenarios'],
  ['POST', '/__sim/scenario', JSON.stringify({ name: 'default', auth: 'off' })],
  ['GET', '/__sim/journal'],
  ['GET', '/__sim/coverage'],
  ['GET', '/__sim/challenges'],
  ['POST', '/__sim/clock/advance', '{"by":"1m"}'],
  ['POST', '/__sim/reset'],
  ['PUT', '/__sim/bindings/123456789', '{"name":"locked-account"}'],
  ['GET', '/__sim/ui'],
  ['GET', '/__sim/ui/challenges'],
  ['GET', '/__sim/events'],
  ['POST', '/__sim/explore', '{"kind":"time"}'],
  ['GET', '/__sim/health'],
  ['OPTIONS', '/__sim/journal'],
];

describe('the control plane answers only requests addressed to this machine', async () => {
  const sim = await simulator({ allowedHosts: ['sim.test', '.corp.example'] });
  const port = new URL(sim.url).port;

  const hostile = [
    'evil.example',
    'EVIL.example',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    'attacker.localhost.com',
    'sim.test.evil.example',
    'corp.example.evil',
    'xn--80ak6aa92e.com',
    'a'.repeat(300),
    'b'.repeat(4_000),
  ];
  for (const name of hostile) {
    it(`Host ${name.slice(0, 40)}: every control route is 403 with a JSON error naming the flag`, async () => {
      for (const [method, path, body] of CONTROL) {
        const r = await raw(sim.url, method, path, asPage(`${name}:${port}`), body);
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.headers['content-type']).toMatch(/application\/json/);
        const error = (JSON.parse(r.text) as { error: string }).error;
        expect(error).toMatch(/--allowed-hosts/);
        if (name.length < 100) expect(error).toContain(`--allowed-hosts ${name.toLowerCase()}`);
        // A name longer than DNS allows is quoted cut, and not offered back whole as the flag's value.
        else
          expect([
            error.length < 400,
            error.endsWith('start it with --allowed-hosts <name> (option allowedHosts)'),
          ]).toEqual([true, true]);
      }
      // Nothing changed: the scenario is still the default one with authentication on.
      expect(sim.simulator.scenario.auth).toBe('verify');
    });
  }

  it('odd Host values that are no host name at all are refused too', async () => {
    for (const host of ['evil.example:99999x', 'user@evil.example', 'evil.example/path', '[::1', 'evil example']) {
      const r = await raw(sim.url, 'GET', '/__sim/scenarios', [['Host', host]]);
      expect(r.status, host).toBe(403);
      expect(JSON.parse(r.text)).toHaveProperty('error');
    }
  });

  it('localhost, *.localhost, IP addresses, the listening address and allowed names are answered', async () => {
    const allowed = [
      'localhost',
      'LOCALHOST',
      'app.localhost',
      'localhost.',
      '127.0.0.1',
      '127.0.0.2',
      '[::1]',
      '10.0.0.5',
      '[::ffff:127.0.0.1]',
      'sim.test',
      'corp.example',
      'ci.corp.example',
    ];
    for (const name of allowed) {
      const r = await raw(sim.url, 'GET', '/__sim/scenarios', [['Host', `${name}:${port}`]]);
      expect(r.status, name).toBe(200);
    }
  });

  it('the simulated API answers under any host name', async () => {
    const evil = `evil.example:${port}`;
    const time = await raw(sim.url, 'GET', '/v1/svc/time', [...signedPairs(sim), ['Host', evil]]);
    expectEnvelope(time, 200, 15000);
    const r = await send(sim, '/v1/svc/challenge', {
      body: challengeEnvelope(sim.apiUser.id),
      headers: { host: evil },
    });
    expectEnvelope(r, 202, 2025);
  });

  it('an allowed name that no Host could ever be is refused where it is given, in process and on the command line', async () => {
    const never = [
      '*',
      '*.corp.example',
      'http://sim.test',
      'sim.test:8080',
      'sim.test/ui',
      'a..b',
      '.',
      'fe80::1%eth0',
    ];
    for (const name of never) {
      await expect(simulator({ allowedHosts: [name] }), name).rejects.toThrow(
        /allowedHosts\[0\]: must be a host name, or \.domain for the domain and its subdomains/,
      );
      const cli = run(['--port', '0', '--allowed-hosts', `sim.test,${name}`]);
      expect(cli.status, name).toBe(2);
      expect(cli.stderr, name).toContain(
        'allowedHosts[1]: must be a host name, or .domain for the domain and its subdomains: no scheme, port, path or `*`',
      );
    }
    for (const name of ['mfa-sim', 'sim.test.', '.corp.example', 'under_score.test', '10.0.0.5', '::1', '[::1]']) {
      const s = await simulator({ allowedHosts: [name] });
      await s.close();
    }
  });

  it('host names are read as a browser sends them', () => {
    expect(hostnameOf('Example.COM:8080')).toBe('example.com');
    expect(hostnameOf('[::1]:80')).toBe('::1');
    expect(hostnameOf('localhost.')).toBe('localhost');
    expect(hostnameOf('a b')).toBeUndefined();
  });
});
