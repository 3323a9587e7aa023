import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { authorizationValue } from '../../src/auth/signature.js';
import { LOG_BACKLOG_CHARS, StandardOutput } from '../../src/cli/output.js';
import { start, type Started } from '../cli-helpers.js';
import { rawSocket } from '../helpers.js';

/**
 * The command line when the reader of its standard output stalls without going away (a terminal on pause, a log
 * collector behind, a pipe no one reads): Node keeps in memory what a pipe's reader has not taken, so the request
 * log is dropped past LOG_BACKLOG_CHARS, every dropped line is counted, and the count is said on standard error once
 * the reader has caught up or as the simulator exits. The simulator itself keeps answering.
 */
const API_USER = '123456789';
const CONNECTIONS = 8;
/** Each -4037 line is some 230 characters: this many make about 7 MiB of log, well past the backlog. */
const PER_CONNECTION = 4000;
const SENT = CONNECTIONS * PER_CONNECTION;
const REFUSED_LINE = / -> 400 -4037 /g;
const STACK_LINE = /^\s+at /m;

/**
 * A refused request, the same bytes each time: its signature is wrong, so the simulator remembers nothing of it (no
 * nonce, no time) and answers each copy -4037, with a log line that shows the string it expected to be signed.
 */
function refusedRequest(host: string, last: boolean): string {
  const time = String(Date.now());
  const nonce = randomUUID();
  return (
    `POST /v1/svc/time HTTP/1.1\r\nHost: ${host}\r\n` +
    `Authorization: ${authorizationValue(API_USER, 'ab'.repeat(64))}\r\n` +
    `x-svc-apiuser: ${API_USER}\r\nx-svc-utctime: ${time}\r\nx-svc-cnonce: ${nonce}\r\nContent-Length: 0\r\n` +
    `${last ? 'Connection: close\r\n' : ''}\r\n`
  );
}

/** Sends SENT refused requests, pipelined over CONNECTIONS connections: how many were answered, how many -4037. */
async function flood(url: string): Promise<{ answered: number; refused: number }> {
  const host = new URL(url).host;
  const answers = await Promise.all(
    Array.from({ length: CONNECTIONS }, () => {
      const one = refusedRequest(host, false);
      return rawSocket(url, one.repeat(PER_CONNECTION - 1) + refusedRequest(host, true), { timeoutMs: 60_000 });
    }),
  );
  const count = (pattern: RegExp) => answers.reduce((n, text) => n + (text.match(pattern)?.length ?? 0), 0);
  return { answered: count(/HTTP\/1\.1 \d{3} /g), refused: count(/"code":-4037,/g) };
}

/** The simulator as users run it, its request log into a pipe whose reader has stopped reading. */
async function stalled(more: string[] = []): Promise<Started> {
  const s = await start(['--port', '0', '--api-user', API_USER, '--secret', 'stalled-output-secret', ...more]);
  s.child.stdout!.pause();
  return s;
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
};

const DROPPED =
  /^mfa-sim: (\d+) request log lines dropped: the reader of standard output fell more than 4 MiB behind(, and has caught up)? \(the journal, coverage and reports have every request\)$/m;

describe('a reader of the output that stalls', () => {
  it('drops the log past the backlog, counts every line dropped, and says so once the reader catches up', async () => {
    expect(LOG_BACKLOG_CHARS).toBe(4 * 2 ** 20);
    const s = await stalled();
    try {
      expect(await flood(s.url)).toEqual({ answered: SENT, refused: SENT });
      // Nothing is said while the reader is still behind.
      expect(s.err()).toBe('');
      s.child.stdout!.resume();
      await until(() => DROPPED.test(s.err()));
      const told = DROPPED.exec(s.err());
      expect(told?.[2]).toBe(', and has caught up');
      const dropped = Number(told![1]);
      // The backlog is most of 7 MiB of lines: about half were dropped, never all, and each line is either shown or
      // counted.
      expect(dropped).toBeGreaterThan(SENT / 4);
      expect(dropped).toBeLessThan((SENT * 3) / 4);
      expect((s.out().match(REFUSED_LINE)?.length ?? 0) + dropped).toBe(SENT);
      // Caught up, the log goes on: the next request has its line.
      const before = s.out().match(REFUSED_LINE)!.length;
      await rawSocket(s.url, refusedRequest(new URL(s.url).host, true));
      await until(() => (s.out().match(REFUSED_LINE)?.length ?? 0) > before);
      expect(s.out().match(REFUSED_LINE)!.length).toBe(before + 1);
      expect(s.err().match(new RegExp(DROPPED.source, 'gm'))?.length).toBe(1);
      expect(s.err()).not.toMatch(STACK_LINE);
    } finally {
      s.child.kill('SIGTERM');
      await s.exit;
    }
  });

  /**
   * About 900 KB of log: far more than the pipe between the processes holds (Node's is a socket pair, some 200 KB), far
   * less than the backlog: nothing is dropped, and most of it waits in the simulator for the reader when the simulator
   * is stopped. `signals` are sent 300 ms apart; the reader reads on 300 ms after the last. The lines the reader got,
   * and the exit status.
   */
  async function stoppedBehindTheReader(signals: number, more: string[] = []): Promise<[number, number | null]> {
    const LINES = 4000;
    const s = await stalled(more);
    const ended = new Promise((r) => s.child.stdout!.once('end', r));
    const pause = () => new Promise((r) => setTimeout(r, 300));
    try {
      const host = new URL(s.url).host;
      const requests = refusedRequest(host, false).repeat(LINES - 1) + refusedRequest(host, true);
      const answers = await rawSocket(s.url, requests, { timeoutMs: 60_000 });
      expect(answers.match(/"code":-4037,/g)?.length).toBe(LINES);
      await pause();
    } finally {
      s.child.kill('SIGTERM');
    }
    for (let i = 1; i < signals; i++) {
      await pause();
      s.child.kill('SIGTERM');
    }
    await pause();
    s.child.stdout!.resume();
    const status = await s.exit;
    await ended;
    expect(s.err()).not.toMatch(DROPPED);
    expect(s.err()).not.toMatch(STACK_LINE);
    return [s.out().match(REFUSED_LINE)?.length ?? 0, status];
  }

  it('waits for a reader behind to take the last lines before it exits', async () => {
    expect(await stoppedBehindTheReader(1)).toEqual([4000, 0]);
  });

  it('stops at once on a second signal, without waiting for the reader', async () => {
    const [lines, status] = await stoppedBehindTheReader(2);
    expect(lines).toBeLessThan(4000);
    expect(status).toBe(0);
  });

  it('keeps the verdict when a second signal stops it while it waits for the reader', async () => {
    // Only -4037 is answered: the run fails --require-coverage 15000 (exit 3) before the reader has the last lines.
    const [lines, status] = await stoppedBehindTheReader(2, ['--require-coverage', '15000']);
    expect(lines).toBeLessThan(4000);
    expect(status).toBe(3);
  });

  it('keeps a verdict that passes too, when a second signal stops it while it waits', async () => {
    const [lines, status] = await stoppedBehindTheReader(2, ['--require-coverage', '-4037']);
    expect(lines).toBeLessThan(4000);
    expect(status).toBe(0);
  });

  it('says how many lines it dropped when it stops before the reader caught up', async () => {
    const s = await stalled();
    try {
      expect(await flood(s.url)).toEqual({ answered: SENT, refused: SENT });
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exit).toBe(0);
    const told = DROPPED.exec(s.err());
    expect(told?.[2]).toBeUndefined();
    expect(Number(told![1])).toBeGreaterThan(SENT / 4);
    expect(Number(told![1])).toBeLessThan(SENT);
    expect(s.err()).not.toMatch(STACK_LINE);
  });
});

/** A pipe whose reader takes nothing until told: each write waits for `take`. */
function slowPipe() {
  const waiting: (() => void)[] = [];
  const taken: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      waiting.push(() => {
        taken.push(chunk);
        done();
      });
    },
  });
  /** The reader takes the `n` oldest writes waiting (all of them, by default). */
  const take = async (n = Infinity) => {
    // A write taken lets the stream hand the next one to `write`: taken one by one, a turn apart.
    for (let i = 0; i < n && waiting.length > 0; i++) {
      waiting.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { stream, taken, take };
}

describe('the request log into a reader that falls behind', () => {
  const MiB = 2 ** 20;
  const batch = (i: number) => `${String(i).padStart(7, '0')}${'x'.repeat(MiB - 8)}\n`;

  it('writes while at most LOG_BACKLOG_CHARS wait, then drops and counts until the reader has taken everything', async () => {
    const pipe = slowPipe();
    const out = new StandardOutput(pipe.stream);
    const told: number[] = [];
    out.onCaughtUp = (n) => void told.push(n);
    // Batches of 1 MiB, as 3 lines each: the fifth puts 5 MiB in waiting; the sixth finds more than 4 MiB waiting.
    for (let i = 0; i < 8; i++) out.writeLog(batch(i), 3);
    expect(pipe.stream.writableLength).toBe(5 * MiB);
    expect(out.droppedLines).toBe(9);
    // The reader takes two: 3 MiB still wait, under the backlog, but the log stays off until it has taken everything
    // (one gap in the log, not one between every batch).
    await pipe.take(2);
    expect(pipe.stream.writableLength).toBe(3 * MiB);
    out.writeLog(batch(8), 2);
    expect(out.droppedLines).toBe(11);
    expect(told).toEqual([]);
    await pipe.take();
    expect(told).toEqual([11]);
    expect(out.droppedLines).toBe(0);
    // Caught up: written again, and a second fall behind is counted afresh, told once.
    out.writeLog(batch(9), 1);
    await pipe.take();
    expect(pipe.taken.map((t) => t.slice(0, 7))).toEqual([
      '0000000',
      '0000001',
      '0000002',
      '0000003',
      '0000004',
      '0000009',
    ]);
    for (let i = 10; i < 16; i++) out.writeLog(batch(i), 1);
    expect(out.droppedLines).toBe(1);
    await pipe.take();
    expect(told).toEqual([11, 1]);
  });

  it('writes text other than the log whatever waits, and drops nothing into a stream that keeps up', async () => {
    const pipe = slowPipe();
    const out = new StandardOutput(pipe.stream);
    for (let i = 0; i < 6; i++) out.write(batch(i));
    expect(pipe.stream.writableLength).toBe(6 * MiB);
    expect(out.droppedLines).toBe(0);
    await pipe.take();
    const quick = new Writable({ write: (_chunk, _encoding, done) => done() });
    const fast = new StandardOutput(quick);
    for (let i = 0; i < 20; i++) fast.writeLog(batch(i), 1);
    expect(fast.droppedLines).toBe(0);
  });
});
