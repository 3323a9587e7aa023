import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import type { RunningSimulator } from '../src/index.js';
import type { Finding } from '../src/run/finding-types.js';

/**
 * What the tests of proxy mode share: an upstream of their own making (a simulator's answers changed on the way, or
 * anything a hostile upstream does), and reading the findings over HTTP as a CI job would.
 */

/** A server on 127.0.0.1 answering every request with `handle`; closed after the file's tests. */
export async function server(
  handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
): Promise<{ url: string; server: Server; hits: () => number }> {
  let hits = 0;
  const s = createServer((req, res) => {
    hits++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, server: s, hits: () => hits };
}

/**
 * An upstream that is a real simulator whose answers are changed on the way back: `change` gets the envelope (parsed)
 * and returns the one to send. Everything else (status, headers) is the simulator's.
 */
export function changedUpstream(
  real: RunningSimulator,
  change: (envelope: Record<string, unknown>) => Record<string, unknown>,
) {
  return server((req, res, body) => {
    const out = request(`${real.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const text = JSON.stringify(
          change(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>),
        );
        res.writeHead(answer.statusCode ?? 500, {
          'content-type': answer.headers['content-type'] ?? '',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
      });
    });
    out.end(body);
  });
}

/**
 * The findings as `GET /__sim/findings` answers them: of the whole run, or of the current scenario (since the last load
 * or reset).
 */
export async function findingsOver(sim: RunningSimulator, scope: 'run' | 'scenario' = 'run'): Promise<Finding[]> {
  const r = await fetch(`${sim.url}/__sim/findings?scope=${scope}`);
  return ((await r.json()) as { findings: Finding[] }).findings;
}

/** The finding of one kind, which must be there. */
export function finding(list: Finding[], id: string): Finding {
  const f = list.find((x) => x.id === id);
  if (!f) throw new Error(`no finding ${id} among ${list.map((x) => x.id).join(', ') || 'none'}`);
  return f;
}
