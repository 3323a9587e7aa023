import type { Request, Response } from 'express';
import { jsonText } from '../output/json.js';
import type { Journal, JournalEntry } from './journal.js';

/**
 * The dashboard's live log as server-sent events: an observer of the journal's feed, bounded in streams and backlog.
 */

/** How many live event streams (dashboard tabs) one simulator serves at once. */
export const MAX_EVENT_STREAMS = 32;
/**
 * An event stream whose reader falls this far behind (bytes waiting to be sent) is closed: a tab that stopped reading
 * cannot make the simulator hold every event.
 */
const MAX_EVENT_BACKLOG = 1024 * 1024;

/**
 * One more feed of the stream, besides the journal's: events named `event`, each with the data `watch` hands its
 * `send` (a step of a challenge, a move of the clock); `watch` returns how to stop watching.
 */
export interface EventFeed {
  event: string;
  watch(send: (data: unknown) => void): () => void;
}

/**
 * `GET /__sim/events`: each answered request, sealed, as one server-sent event `request` whose data is the entry as
 * `view` shows it; and each event of the other feeds (a step of a challenge, a move of the clock) under its own name.
 * All open streams share one subscription to each feed, and each event's text is made once however many streams there
 * are.
 */
export function eventStream(journal: Journal, view: (e: JournalEntry) => unknown, feeds: readonly EventFeed[]) {
  const open = new Set<Response>();
  let stop: (() => void) | undefined;
  const write = (text: string) => {
    for (const res of open) {
      // Stryker disable next-line EqualityOperator: a backlog of exactly 1 MiB, either way
      if (res.writableLength > MAX_EVENT_BACKLOG) res.destroy();
      else res.write(text);
    }
  };
  const send = (e: JournalEntry) => write(`event: request\ndata: ${jsonText(view(e))}\n\n`);
  const subscribe = () => {
    const stops = [
      journal.subscribe(send),
      ...feeds.map((feed) => feed.watch((data) => write(`event: ${feed.event}\ndata: ${jsonText(data)}\n\n`))),
    ];
    return () => {
      for (const stopFeed of stops) stopFeed();
    };
  };
  return (_req: Request, res: Response) => {
    if (open.size >= MAX_EVENT_STREAMS) {
      return void res.status(503).json({ error: `at most ${MAX_EVENT_STREAMS} event streams at once` });
    }
    open.add(res);
    stop ??= subscribe();
    // Not cached by a proxy; and `Connection` said outright, so that Node adds no `Keep-Alive: timeout=5`, which a
    // client could read as a limit on a stream meant to stay open.
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write(': mfa-sim events\n\n');
    // A comment every 15 s keeps an idle stream from being closed by a proxy (no test waits that long).
    // Stryker disable next-line ArrowFunction,StringLiteral: seen only after 15 s
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    res.on('close', () => {
      open.delete(res);
      clearInterval(ping);
      if (open.size === 0) {
        // Stryker disable next-line OptionalChaining: for the type checker; set while any stream is open
        stop?.();
        stop = undefined;
      }
    });
  };
}
