/**
 * Soak: a million requests with fresh nonces against one simulator, printing its memory as it goes, to show
 * that memory levels off (README "Robustness"). A load script, not a unit test: `npm run soak`.
 *
 * The simulator runs in a child process (in-process there, with --expose-gc so that each reading is taken
 * after a full collection), listening on 127.0.0.1 only. This process is the client: keep-alive connections,
 * each request freshly signed. The mix is 90% time reads (GET) and 10% new challenges, so the replay memory,
 * the journal ring and the challenge store all fill. Timestamp-reuse checks are off (`replay.timestamps:
 * false`): a client cannot send more than one request per millisecond otherwise, and a million of them would
 * take 17 minutes; nonces are still remembered, one entry per request. The drift window is widened to one
 * hour, so that no nonce of the run is forgotten: the replay memory ends holding all million, the most the
 * default 5-minute window can hold at about 3,300 requests a second.
 *
 * Pass: the final heap and RSS are within --bound MiB (default 50) of their level after the first 10,000
 * requests. Exit status 0 pass, 1 fail, 2 bad arguments or the simulator did not start.
 *
 *   npm run soak -- [--requests 1000000] [--concurrency 32] [--every 50000] [--bound 50] [--max-seconds 1800]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  replayEntries: number;
  replayBytes: number;
  journal: number;
  challenges: number;
}

const MiB = 1024 * 1024;

if (process.argv[2] === '--child') await child();
else await main();

/** The simulator side: starts, says where it listens, answers memory readings and the stop message. */
async function child(): Promise<void> {
  const { startSimulator } = await import('../src/index.js');
  const sim = await startSimulator({ secret: 'soak-secret', replay: { timestamps: false }, clock: { maxDrift: '1h' }, host: '127.0.0.1', port: 0 });
  const gc = (globalThis as { gc?: () => void }).gc;
  process.on('message', (m: string) => {
    if (m === 'memory') {
      gc?.();
      gc?.();
      const mu = process.memoryUsage();
      const replay = Object.values(sim.simulator.replayStats());
      const reading: Memory = {
        rss: mu.rss,
        heapUsed: mu.heapUsed,
        external: mu.external,
        arrayBuffers: mu.arrayBuffers,
        replayEntries: replay.reduce((n, r) => n + r.entries, 0),
        replayBytes: replay.reduce((n, r) => n + r.bytes, 0),
        journal: sim.simulator.journal.length,
        challenges: sim.challenges().length,
      };
      process.send!(reading);
    } else if (m === 'stop') {
      void sim.close().then(() => process.exit(0));
    }
  });
  process.send!({ url: sim.url, apiUser: sim.apiUser.id, secret: sim.apiUser.secret });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '1000000' },
      concurrency: { type: 'string', default: '32' },
      every: { type: 'string', default: '50000' },
      bound: { type: 'string', default: '50' },
      'max-seconds': { type: 'string', default: '1800' },
    },
  });
  const total = whole(values.requests, 'requests', 10_001, 100_000_000);
  const concurrency = whole(values.concurrency, 'concurrency', 1, 1024);
  const every = whole(values.every, 'every', 1000, total);
  const bound = whole(values.bound, 'bound', 1, 100_000) * MiB;
  const maxMs = whole(values['max-seconds'], 'max-seconds', 1, 86_400) * 1000;
  const warmup = 10_000;

  const sim = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: [...process.execArgv, '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const target = await new Promise<{ url: string; apiUser: string; secret: string }>((resolve, reject) => {
    sim.once('message', (m) => resolve(m as { url: string; apiUser: string; secret: string }));
    sim.once('exit', (code) => reject(new Error(`the simulator exited with ${code} before it listened`)));
  }).catch((e: Error) => {
    process.stderr.write(`soak: ${e.message}\n`);
    process.exit(2);
  });
  const { signedHeaders } = await import('../src/index.js');
  const url = new URL(target.url);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const challengeBody = (apiUser: string) =>
    JSON.stringify({ id: 'soak', utctime: String(Date.now()), apiUser, type: 150, body: { svcUser: 'soak@example.com', challengeType: 'UserKeyAndPattern', challengeExpiry: 'FiveMins', enableQRcode: false, status: 'NEW' } });

  const codes = new Map<number, number>();
  let sent = 0;
  let done = 0;
  let failures = 0;
  const started = performance.now();
  let baseline: Memory | undefined;
  let nextReading = warmup;
  let reading: Promise<void> = Promise.resolve();
  let peakRss = 0;

  console.log(`soak: ${total.toLocaleString('en')} requests, ${concurrency} at a time, against ${target.url} (pid ${sim.pid}); memory after a full GC, every ${every.toLocaleString('en')} requests`);
  console.log(['requests', 'seconds', 'req/s', 'rss MiB', 'heap MiB', 'external MiB', 'replay entries', 'replay MiB', 'journal', 'challenges'].map((h) => h.padStart(14)).join(''));

  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const isChallenge = i % 10 === 9;
      const headers: Record<string, string> = { ...signedHeaders({ apiUser: target.apiUser, secret: target.secret, time: Date.now(), nonce: randomUUID() }) };
      const body = isChallenge ? challengeBody(target.apiUser) : undefined;
      if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      const req = request({ host: url.hostname, port: url.port, path: isChallenge ? '/v1/svc/challenge' : '/v1/svc/time', method: isChallenge ? 'POST' : 'GET', headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code: number }).code;
            codes.set(code, (codes.get(code) ?? 0) + 1);
          } catch {
            failures++;
          }
          resolve();
        });
      });
      req.on('error', () => {
        failures++;
        resolve();
      });
      req.end(body);
    });

  const measure = (n: number) => {
    reading = reading.then(async () => {
      const m = await memory(sim);
      baseline ??= m;
      peakRss = Math.max(peakRss, m.rss);
      const s = (performance.now() - started) / 1000;
      console.log(
        [n.toLocaleString('en'), s.toFixed(1), Math.round(n / s), mib(m.rss), mib(m.heapUsed), mib(m.external), m.replayEntries.toLocaleString('en'), mib(m.replayBytes), m.journal, m.challenges]
          .map((v) => String(v).padStart(14))
          .join(''),
      );
    });
  };

  // Workers take the next request number until all are sent; readings are taken at the marks (the workers
  // pause at a mark so that the reading is of a quiet simulator).
  let gate: Promise<void> = Promise.resolve();
  const worker = async () => {
    while (sent < total) {
      await gate;
      if (sent >= total || performance.now() - started > maxMs) return;
      const i = sent++;
      await one(i);
      done++;
      if (done === nextReading) {
        measure(done);
        gate = reading;
        nextReading = Math.min(total, (Math.floor(done / every) + 1) * every);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (done !== nextReading && done > warmup) measure(done);
  await reading;
  const final = await memory(sim);
  sim.send('stop');
  agent.destroy();

  const seconds = (performance.now() - started) / 1000;
  const byCode = [...codes].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}: ${n.toLocaleString('en')}`).join(', ');
  console.log(`\n${done.toLocaleString('en')} requests in ${seconds.toFixed(1)} s (${Math.round(done / seconds)} req/s); answers ${byCode}; transport failures ${failures}`);
  const growth = { rss: final.rss - baseline!.rss, heap: final.heapUsed - baseline!.heapUsed };
  console.log(`after ${warmup.toLocaleString('en')}: rss ${mib(baseline!.rss)} MiB, heap ${mib(baseline!.heapUsed)} MiB; final: rss ${mib(final.rss)} MiB, heap ${mib(final.heapUsed)} MiB`);
  console.log(`growth: rss ${mib(growth.rss)} MiB, heap ${mib(growth.heap)} MiB; bound ${mib(bound)} MiB; replay memory ${final.replayEntries.toLocaleString('en')} entries in ${mib(final.replayBytes)} MiB`);
  // RSS after a GC still counts pages the allocator keeps for reuse, so single readings swing; the heap does not.
  console.log(`largest RSS reading: ${mib(peakRss)} MiB (${mib(peakRss - baseline!.rss)} MiB above the level after ${warmup.toLocaleString('en')})`);
  const complete = done === total;
  const within = growth.rss <= bound && growth.heap <= bound;
  const unexpected = [...codes.keys()].filter((c) => c !== 15000 && c !== 2025);
  if (!complete) console.log(`FAIL: stopped after ${maxMs / 1000} s with ${done} of ${total} requests done`);
  if (unexpected.length || failures) console.log(`FAIL: unexpected answers (${unexpected.join(', ')}) or ${failures} transport failures`);
  console.log(within ? 'PASS: memory is within the bound' : 'FAIL: memory grew past the bound');
  process.exit(complete && within && !unexpected.length && !failures ? 0 : 1);
}

function memory(sim: ChildProcess): Promise<Memory> {
  return new Promise((resolve) => {
    sim.once('message', (m) => resolve(m as Memory));
    sim.send('memory');
  });
}

function mib(bytes: number): string {
  return (bytes / MiB).toFixed(1);
}

function whole(value: string | undefined, name: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`soak: --${name} must be a whole number from ${min} to ${max}\n`);
    process.exit(2);
  }
  return n;
}
