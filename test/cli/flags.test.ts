import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlagError } from '../../src/contract/errors.js';
import { CommandLineSchema, FLAGS, helpText, parseFlags, START_KEYS, startOptions } from '../../src/cli/flags.js';
import { RunOptionsSchema } from '../../src/simulator/options.js';
import { ScenarioSchema } from '../../src/scenario/schema.js';

// The command line's flags as the table reads them. The CLI tests (cli.test.ts, cli-ecosystem.test.ts) run the built
// command with some of these; here every rule of the reading is shown on its own, several instances each.
const read = (args: string[], env: Record<string, string> = {}) => parseFlags(args, env);
const refusal = (args: string[], env: Record<string, string> = {}) => {
  try {
    read(args, env);
  } catch (e) {
    expect(e).toBeInstanceOf(FlagError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(args)}`);
};

// Scenario directories must exist: three that do, and a file where one is expected.
const dirs = mkdtempSync(join(tmpdir(), 'mfa-sim-flags-'));
const [one, two, three] = ['one', 'two', 'three'].map((d) => join(dirs, d));
for (const d of [one, two, three]) mkdirSync(d);
const aFile = join(dirs, 'file.yaml');
writeFileSync(aFile, 'name: x\n');

describe('the command line flags', () => {
  it('fills in the defaults, and only them, when nothing is given', () => {
    expect(read([])).toEqual({ port: 8080, host: '127.0.0.1', log: 'text' });
  });

  it('reads long flags, --name=value, short flags, -p8080, and switches given together', () => {
    expect(read(['--port', '0', '--scenario', 'happy-path'])).toMatchObject({ port: 0, scenario: 'happy-path' });
    expect(read(['--port=9000', '--response-style=sdk'])).toMatchObject({ port: 9000, responseStyle: 'sdk' });
    expect(read(['-p', '81', '-s', 'x.yaml'])).toMatchObject({ port: 81, scenario: 'x.yaml' });
    expect(read(['-p8082'])).toMatchObject({ port: 8082 });
    expect(read(['-qw'])).toMatchObject({ quiet: true, watch: true });
    expect(read(['-qp', '83'])).toMatchObject({ quiet: true, port: 83 });
    expect(read(['--no-hints'])).toMatchObject({ hints: false });
    expect(read(['--secret=a=b'])).toMatchObject({ secret: 'a=b' });
  });

  it('takes the last of a repeated flag, and adds up a list flag and its separators', () => {
    expect(read(['--port', '1', '--port', '2'])).toMatchObject({ port: 2 });
    expect(read(['--allowed-hosts', 'a.test, b.test', '--allowed-hosts', '.c.test'])).toMatchObject({
      allowedHosts: ['a.test', 'b.test', '.c.test'],
    });
    expect(read(['--scenario-dir', `${one}${delimiter}${two}`, '--scenario-dir', three])).toMatchObject({
      scenarioDirs: [one, two, three],
    });
  });

  it('reads the environment when a flag is not given, and a flag wins over its variable', () => {
    expect(read([], { MFA_SIM_PORT: '7000', MFA_SIM_LOG: 'json' })).toMatchObject({ port: 7000, log: 'json' });
    expect(read(['--port', '7001'], { MFA_SIM_PORT: '7000' })).toMatchObject({ port: 7001 });
    expect(read([], { MFA_SIM_PORT: '' })).toMatchObject({ port: 8080 });
    for (const [text, on] of [
      ['1', true],
      ['TRUE', true],
      ['yes', true],
      [' on ', true],
      ['0', false],
      ['False', false],
      ['no', false],
      ['off', false],
      [' off\t', false],
    ] as const) {
      expect(read([], { MFA_SIM_QUIET: text }).quiet, text).toBe(on);
      expect(read([], { MFA_SIM_HINTS: text }).hints, text).toBe(on);
    }
    expect(read([], { MFA_SIM_QUIET: ' ' })).not.toHaveProperty('quiet');
  });

  it('takes the edges of each range, exact values and words for on and off', () => {
    expect(read(['--port', '65535', '--seed', String(2 ** 32 - 1), '--api-user', '000000001'])).toMatchObject({
      port: 65535,
      seed: 2 ** 32 - 1,
      apiUser: '000000001',
    });
    expect(read(['--port', '0', '--seed', '0'])).toMatchObject({ port: 0, seed: 0 });
    expect(read(['--allowed-hosts', ',a.test,, b.test ,'])).toMatchObject({ allowedHosts: ['a.test', 'b.test'] });
    expect(read(['--require-coverage', '2025,-4036'])).toMatchObject({ requireCoverage: [2025, -4036] });
    for (const text of ['yesno', 'nope', 'truex', 'xon', '10', 'offf', 'o n']) {
      expect(refusal([], { MFA_SIM_WATCH: text }), text).toBe(
        'MFA_SIM_WATCH must be on or off (true/false, yes/no, 1/0).',
      );
    }
    for (const user of ['12345678a', 'a12345678', '1234567890', '12345678']) {
      expect(refusal(['--api-user', user]), user).toBe('--api-user must be exactly 9 digits.');
    }
  });

  it('refuses a bad value naming the flag, or the variable it came from', () => {
    for (const port of ['-1', '65536', '1e3', '0x50', '8080.5', '', ' 80', '99999999999999999999']) {
      expect(refusal(['--port', port]), port).toBe('--port must be a whole number from 0 to 65535.');
    }
    expect(refusal([], { MFA_SIM_PORT: 'http' })).toBe('MFA_SIM_PORT must be a whole number from 0 to 65535.');
    expect(refusal(['--log', 'xml'])).toBe('--log must be one of text, json (not "xml").');
    expect(refusal(['--log', 'constructor'])).toBe('--log must be one of text, json (not "constructor").');
    expect(refusal(['--api-user', '12345678'])).toBe('--api-user must be exactly 9 digits.');
    expect(refusal(['--seed', String(2 ** 32)])).toBe('--seed must be a whole number from 0 to 4294967295.');
    expect(refusal(['--require-coverage', '2025,'])).toBe(
      '--require-coverage takes `all` or a comma-separated list of codes, e.g. 2025,-4036.',
    );
    expect(refusal([], { MFA_SIM_REQUIRE_COVERAGE: '2025,-9999' })).toBe(
      'MFA_SIM_REQUIRE_COVERAGE -9999 is not a code of the service (see mfa-sim --codes).',
    );
    // An empty variable is as if unset: the default (or nothing) stands, and an error names the flag.
    expect(refusal(['--port', 'x'], { MFA_SIM_PORT: '' })).toBe('--port must be a whole number from 0 to 65535.');
    expect(refusal([], { MFA_SIM_QUIET: 'maybe' })).toBe('MFA_SIM_QUIET must be on or off (true/false, yes/no, 1/0).');
    expect(refusal([], { MFA_SIM_FAIL_ON_FINDINGS: 'fatal' })).toBe(
      'MFA_SIM_FAIL_ON_FINDINGS must be one of info, warning, error (not "fatal").',
    );
  });

  it('refuses a scenario directory that is not one, from the flag or its variable, among good ones too', () => {
    const missing = join(dirs, 'missing');
    expect(refusal(['--scenario-dir', missing])).toBe(`--scenario-dir ${missing}: there is no such directory.`);
    expect(refusal(['--scenario-dir', aFile])).toBe(`--scenario-dir ${aFile}: it is not a directory.`);
    expect(refusal(['--scenario-dir', join(aFile, 'below')])).toBe(
      `--scenario-dir ${join(aFile, 'below')}: there is no such directory.`,
    );
    expect(refusal(['--scenario-dir', one, '--scenario-dir', missing])).toBe(
      `--scenario-dir ${missing}: there is no such directory.`,
    );
    expect(refusal([], { MFA_SIM_SCENARIO_DIR: `${one}${delimiter}${missing}` })).toBe(
      `MFA_SIM_SCENARIO_DIR ${missing}: there is no such directory.`,
    );
    // A name too long to quote whole is quoted by its start.
    const long = join(dirs, ...Array<string>(30).fill('abcdefgh'));
    expect(refusal(['--scenario-dir', long])).toBe(`--scenario-dir ${long.slice(0, 200)}: there is no such directory.`);
  });

  it('refuses a missing value, a value given to a switch, and a stray argument', () => {
    expect(refusal(['--port'])).toBe('--port needs a value: --port <port>.');
    expect(refusal(['-s'])).toBe('--scenario needs a value: --scenario <name|file>.');
    expect(refusal(['--quiet=yes'])).toBe('--quiet takes no value.');
    expect(refusal(['--no-hints=1'])).toBe('--no-hints takes no value.');
    expect(refusal(['happy-path'])).toBe('unexpected argument "happy-path": mfa-sim takes only flags.');
    expect(refusal(['-'])).toMatch(/^unexpected argument "-"/);
  });

  it('refuses unknown flags, suggesting a near one, and knows no name from Object.prototype', () => {
    expect(refusal(['--prot', '1'])).toBe('unknown flag --prot (did you mean --port?).');
    expect(refusal(['--senario', 'x'])).toBe('unknown flag --senario (did you mean --scenario?).');
    expect(refusal(['--hints'])).toBe('unknown flag --hints (did you mean --no-hints?).');
    expect(refusal(['-x'])).toBe('unknown flag -x.');
    expect(refusal(['--no-hint'])).toBe('unknown flag --no-hint (did you mean --no-hints?).');
    expect(refusal(['--portxyz'])).toBe('unknown flag --portxyz.');
    expect(refusal(['--verbose'])).toBe('unknown flag --verbose.');
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(refusal([`--${name}`])).toMatch(new RegExp(`^unknown flag --${name}[ .]`));
      expect(refusal([`--${name}=1`])).toMatch(new RegExp(`^unknown flag --${name}[ .]`));
    }
    expect(refusal(['-_'])).toBe('unexpected argument "-_": mfa-sim takes only flags.');
    const options = read([], { __proto__: 'x', constructor: 'y' });
    expect(Object.getPrototypeOf(options)).toBe(Object.prototype);
  });

  it('answers a huge unknown flag at once, quoting only its start', () => {
    const huge = `--${'x'.repeat(1_000_000)}`;
    expect(refusal([huge])).toBe(`unknown flag --${'x'.repeat(40)}.`);
    expect(refusal(['y'.repeat(1_000_000)])).toBe(`unexpected argument "${'y'.repeat(40)}": mfa-sim takes only flags.`);
    expect(refusal(['--log', 'y'.repeat(1_000_000)])).toBe(
      `--log must be one of text, json (not "${'y'.repeat(40)}").`,
    );
  });

  it('each flag is its option as the schemas declare it: description, bounds, choices, default; its variable by rule', () => {
    expect(FLAGS.map((f) => f.key)).toEqual(Object.keys(CommandLineSchema.properties));
    for (const f of FLAGS) {
      expect(f.env, f.name).toBe(f.action ? undefined : `MFA_SIM_${f.name.toUpperCase().replaceAll('-', '_')}`);
      const declared = { ...ScenarioSchema.properties, ...RunOptionsSchema.properties }[f.key as 'port'];
      if (START_KEYS.includes(f.key as 'port')) expect(f.description, f.name).toBe(declared.description);
    }
    const run = RunOptionsSchema.properties;
    expect(refusal(['--seed', '-1'])).toBe(
      `--seed must be a whole number from ${run.seed.minimum} to ${run.seed.maximum}.`,
    );
    expect(refusal(['--response-style', 'x'])).toBe('--response-style must be one of document, sdk (not "x").');
    expect(FLAGS.find((f) => f.key === 'host')?.default).toBe(run.host.default);
    // The command line's own default port; in process, 0 picks a free one.
    expect([FLAGS.find((f) => f.key === 'port')?.default, run.port.default]).toEqual(['8080', 0]);
  });

  it('hands startSimulator the options of its flags by their names, and nothing of its own', () => {
    const o = read([
      '--scenario-dir',
      one,
      '--token',
      'acme',
      '--no-hints',
      '--watch',
      '--log',
      'json',
      '--report',
      'r.md',
      '--api-user',
      '000000001',
    ]);
    expect(startOptions(o)).toStrictEqual({
      port: 8080,
      host: '127.0.0.1',
      scenarioDirs: [one],
      token: 'acme',
      hints: false,
      apiUser: '000000001',
    });
    expect(startOptions(read(['--help', '-q']))).toStrictEqual({ port: 8080, host: '127.0.0.1' });
  });

  it('lists every flag in the help, with its variable, default and choices, within 100 columns', () => {
    const help = helpText('What it does.', 'After.');
    for (const f of FLAGS) {
      expect(help).toContain(`--${f.negated ? 'no-' : ''}${f.name}`);
      if (f.env) expect(help).toContain(`env: ${f.env}`);
    }
    expect(help).toContain('(choices: text, json, default: text, env: MFA_SIM_LOG)');
    expect(help).toContain('env: MFA_SIM_HINTS=off');
    expect(help.startsWith('Usage: mfa-sim [options]\n\nWhat it does.\n\nOptions:\n  -V, --version ')).toBe(true);
    expect(help.endsWith('show this help\n\nAfter.\n')).toBe(true);
    // The rows, to the column, are those docs/command-line.md shows (a page generated from this table).
    const page = readFileSync('docs/command-line.md', 'utf8');
    const rows = page.slice(page.indexOf('Options:\n'), page.indexOf('show this help\n') + 'show this help\n'.length);
    expect(rows).toContain('  -p, --port <port>  ');
    expect(help).toContain(rows);
    for (const line of help.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});
