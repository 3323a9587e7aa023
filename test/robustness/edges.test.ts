import { linkSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlError, ScenarioError, Simulator, startSimulator } from '../../src/index.js';
import { run } from '../cli-helpers.js';
import { send, simulator } from '../helpers.js';
import { control } from './support.js';

/**
 * Class: the edges of what the simulator is given at start and in process. Report files that would collide or cannot
 * be written are refused at start, naming the flag, not found out at exit. An in-process argument is read once into
 * plain data: a getter or Proxy that throws, or a list of a hundred million entries, is a clear error at once (a
 * ControlError with status 400, or a ScenarioError for options and scenarios), never a plain Error from deep inside or
 * an 8-second loop. Options and scenarios refuse the same keys, and names refuse control characters.
 */

const dir = mkdtempSync(join(tmpdir(), 'mfa-sim-edges-'));

describe('report files: refused at start when they collide or cannot be written', () => {
  it('the same file for two reports, by the same path or another way to it', () => {
    const file = join(dir, 'same.xml');
    writeFileSync(file, '');
    const link = join(dir, 'link.xml');
    linkSync(file, link);
    for (const args of [
      ['--report', file, '--junit', file],
      ['--junit', join(dir, 'new.xml'), '--coverage-out', join(dir, '.', 'new.xml')],
      ['--report', link, '--junit', file],
      ['--coverage-out', file, '--report', join(dir, 'sub', '..', 'same.xml')],
    ]) {
      if (args.some((a) => a.includes('sub'))) mkdirSync(join(dir, 'sub'), { recursive: true });
      const r = run(['--port', '0', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^mfa-sim: --\S+ \S+ and --\S+ \S+ are the same file: give each report its own\.$/m);
    }
  });

  it('a device that takes no report, a kernel file, a folder: each refused at start, naming the flag', () => {
    const cases: [string, RegExp][] = [
      [
        '/dev/full',
        /--junit \/dev\/full: it is a device, not a file \(only a file, a pipe or a terminal takes a report\)\./,
      ],
      ['/dev/zero', /--junit \/dev\/zero: it is a device, not a file/],
      [
        '/proc/version',
        /--junit \/proc\/version: it is a file of the kernel's \(\/proc, \/sys\), which takes no report\./,
      ],
      ['/proc/self/status', /--junit \/proc\/self\/status: it is a file of the kernel's/],
      [
        '/proc/new-report.xml',
        /--junit \/proc\/new-report\.xml: its folder \/proc is the kernel's \(\/proc, \/sys\), which takes no report\./,
      ],
      [dir, /--junit .*: it is a folder\./],
    ];
    for (const [file, message] of cases) {
      const r = run(['--port', '0', '--junit', file]);
      expect(r.status, file).toBe(2);
      expect(r.stderr, file).toMatch(message);
    }
  });
});

/** A report option whose reading throws. */
const throwing = () => ({
  get failOn(): 'error' {
    throw new Error('boom from a getter');
  },
});

/** An array that says it holds a hundred million entries, counting every entry read. */
function huge(): { list: number[]; reads: () => number } {
  let reads = 0;
  const target: number[] = [];
  target.length = 1e8;
  const list = new Proxy(target, {
    get(t, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(t, key, receiver);
    },
  });
  return { list, reads: () => reads };
}

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('in-process arguments are read once, into plain data', async () => {
  const sim = await simulator();
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const trap = new Proxy(
    {},
    {
      ownKeys() {
        throw new Error('boom from a trap');
      },
    },
  );

  it('a getter or a Proxy that throws: a ControlError (400) naming the argument and what threw', () => {
    const calls: [string, () => unknown, RegExp][] = [
      [
        'report options with a throwing getter',
        () => sim.report('markdown', throwing()),
        /^report options: failOn: reading it threw: boom from a getter$/,
      ],
      [
        'report options as a Proxy whose ownKeys throws',
        () => sim.report('markdown', trap),
        /^report options: reading it threw: boom from a trap$/,
      ],
      [
        'report options as a revoked Proxy',
        () => sim.report('junit', revoked.proxy),
        /^report options: reading it threw: .*revoked/,
      ],
      [
        'a journal filter with a throwing getter',
        () =>
          sim.journal({
            get limit(): number {
              throw new Error('no limit');
            },
          }),
        /^journal filter: limit: reading it threw: no limit$/,
      ],
      ['a clock move as a Proxy', () => sim.advance(trap as never), /^by: reading it threw: boom from a trap$/],
    ];
    for (const [label, call, message] of calls) {
      const e = thrown(call);
      expect(e, label).toBeInstanceOf(ControlError);
      expect((e as ControlError).status, label).toBe(400);
      expect((e as Error).message, label).toMatch(message);
    }
  });

  it('scenarios and options that throw: a ScenarioError naming where', async () => {
    const scenario = {
      name: 'x',
      get rules(): never {
        throw new Error('rules unreadable');
      },
    };
    const loaded = thrown(() => sim.loadScenario(scenario));
    expect(loaded).toBeInstanceOf(ScenarioError);
    expect((loaded as Error).message).toMatch(/rules: reading it threw: rules unreadable/);
    expect(thrown(() => sim.bindScenario('123456789', trap as never))).toBeInstanceOf(ScenarioError);
    const started = startSimulator({
      get port(): number {
        throw new Error('port unreadable');
      },
    });
    await expect(started).rejects.toThrow(ScenarioError);
    await expect(started).rejects.toThrow(/port: reading it threw: port unreadable/);
    expect(() => new Simulator(revoked.proxy as never)).toThrow(ScenarioError);
  });

  it('a list of a hundred million entries is refused at once, without reading its entries', () => {
    const { list, reads } = huge();
    const e = thrown(() => sim.report('markdown', { required: list }));
    expect(e).toBeInstanceOf(ControlError);
    expect((e as Error).message).toBe('report options: required: has 100000000 items; at most 100000');
    expect(reads()).toBe(0);
    const journal = huge();
    expect(thrown(() => sim.journal({ code: journal.list }))).toBeInstanceOf(ControlError);
    expect(journal.reads()).toBe(0);
    const rules = huge();
    expect(thrown(() => sim.loadScenario({ name: 'big', rules: rules.list as never }))).toBeInstanceOf(ScenarioError);
    expect(rules.reads()).toBe(0);
  });

  it('the bounds of what is read: lists, keys, values in all, nesting; where a read failed is named', () => {
    const codes = (n: number) => Array.from({ length: n }, () => 15000);
    expect(sim.journal({ code: codes(100_000) })).toEqual(expect.any(Array));
    expect((thrown(() => sim.journal({ code: codes(100_001) })) as Error).message).toBe(
      'journal filter: code: has 100001 items; at most 100000',
    );
    const keyed = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(sim.report('markdown', keyed(100_000) as never)).toContain('## mfa-sim report');
    expect((thrown(() => sim.report('markdown', keyed(100_001) as never)) as Error).message).toBe(
      'report options: has 100001 keys; at most 100000',
    );
    const lists = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, codes(99_999)]));
    expect(sim.journal(lists(10) as never)).toEqual(expect.any(Array));
    expect((thrown(() => sim.journal(lists(11) as never)) as Error).message).toMatch(
      /^journal filter: l9: holds more than 1000000 values in all$/,
    );
    // Keys count as values as entries do: 11 keys and 10 lists of 99,998 are 999,991; ten keys more pass the million.
    const filled = {
      ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`l${i}`, codes(99_998)])),
      last: keyed(10),
    };
    expect((thrown(() => sim.journal(filled as never)) as Error).message).toBe(
      'journal filter: last: holds more than 1000000 values in all',
    );
    const nested = (depth: number): unknown => (depth === 0 ? true : { a: nested(depth - 1) });
    expect(sim.report('markdown', { final: nested(64) } as never)).toContain('## mfa-sim report');
    expect((thrown(() => sim.report('markdown', { final: nested(65) } as never)) as Error).message).toMatch(
      /^report options: final(\.a){64}: is nested more than 64 deep$/,
    );
    const rules = [
      { name: 'readable', respond: { code: -5000 } },
      {
        get name(): string {
          throw new Error('name unreadable');
        },
      },
    ];
    expect((thrown(() => sim.loadScenario({ name: 'x', rules: rules })) as Error).message).toBe(
      'scenario: rules[1].name: reading it threw: name unreadable',
    );
    const required = [2025, 15000];
    Object.defineProperty(required, 1, {
      get: () => {
        throw new Error('second code unreadable');
      },
    });
    expect((thrown(() => sim.report('markdown', { required })) as Error).message).toBe(
      'report options: required[1]: reading it threw: second code unreadable',
    );
  });

  it('plain data passes as it is: null, an object without a prototype; an instance of a class is left to the checks', () => {
    expect(sim.report('markdown', { final: null } as never)).toContain('## mfa-sim report');
    // Without a prototype, an object is still read once: a limit of 1 when first read, -1 after.
    let reads = 0;
    const bare = Object.defineProperty(Object.create(null) as { limit?: number }, 'limit', {
      enumerable: true,
      get: () => (++reads === 1 ? 1 : -1),
    });
    expect(sim.journal(bare)).toHaveLength(Math.min(1, sim.journal().length));
    expect(reads).toBe(1);
    const e = thrown(() => sim.freeze(new Date() as never));
    expect(e).toBeInstanceOf(ControlError);
    expect((e as ControlError).status).toBe(400);
    // A list within the bounds is still held to what it must be.
    expect((thrown(() => sim.report('markdown', { required: [2025, -9999] })) as Error).message).toBe(
      'required must be a list of codes of the service (see mfa-sim --codes)',
    );
  });

  it('each value is read once: what is checked is what is used', async () => {
    for (let i = 0; i < 3; i++) await send(sim, '/v1/svc/time', { method: 'GET' });
    // A limit that is 1 when first read and -1 afterwards: checked as 1, it must be used as 1 (slice(0, -1) would
    // answer all but one entry).
    let reads = 0;
    const flipping = {
      get limit() {
        reads++;
        return reads === 1 ? 1 : -1;
      },
    };
    expect(sim.journal(flipping)).toHaveLength(1);
    expect(reads).toBe(1);
    let severityReads = 0;
    const failOn = {
      get failOn() {
        severityReads++;
        return severityReads === 1 ? 'error' : 'not-a-severity';
      },
    };
    expect(sim.report('markdown', failOn as never)).toContain('## mfa-sim report');
    expect(severityReads).toBe(1);
  });
});

describe('options and scenarios refuse the same keys; names refuse control characters', async () => {
  it('an own __proto__ key: refused as an option as in a scenario', async () => {
    const scenario = thrown(() =>
      new Simulator({}).loadScenario(JSON.parse('{"name":"x","__proto__":{"strict":true}}')),
    );
    expect(scenario).toBeInstanceOf(ScenarioError);
    expect((scenario as Error).message).toMatch(/__proto__: unknown key/);
    const options = startSimulator(JSON.parse('{"__proto__":{"strict":true}}'));
    await expect(options).rejects.toThrow(ScenarioError);
    await expect(options).rejects.toThrow(/__proto__: unknown key/);
  });

  it('a scenario or rule name with a control character: refused wherever it is given', async () => {
    const sim = await simulator();
    for (const name of ['a\u0000b', 'tab\there', 'esc\u001b[2J', 'c1\u009b', 'del\u007f', 'bidi\u202e', 'line\u2028']) {
      for (const given of [{ name }, { name: 'ok', rules: [{ name, respond: { code: -5000 } }] }]) {
        const e = thrown(() => sim.loadScenario(given));
        expect(e, JSON.stringify(given)).toBeInstanceOf(ScenarioError);
        expect((e as Error).message).toMatch(/name: must not hold control characters/);
        expect(
          (await control(sim, 'POST', '/__sim/scenario', { ...given, hints: true })).status,
          JSON.stringify(given),
        ).toBe(400);
      }
      await expect(startSimulator({ name })).rejects.toThrow(/name: must not hold control characters/);
    }
    const file = join(dir, 'nul.yaml');
    writeFileSync(file, 'name: "a\\0b"\n');
    expect(thrown(() => sim.loadScenario(file))).toBeInstanceOf(ScenarioError);
    expect(sim.scenarios().active).toBe('default');
  });
});
