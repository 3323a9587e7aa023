import type { Request, Response } from 'express';
import { jsonText } from '../output/json.js';

/** How many live event streams (dashboard tabs) one simulator serves at once. */
export const MAX_EVENT_STREAMS = 32;
/** An event stream whose reader falls this far behind (bytes waiting to be sent) is closed. */
const MAX_EVENT_BACKLOG = 1024 * 1024;

/** A feed of the stream: events named `event`, each with the data `watch` hands its `send`. */
export interface EventFeed {
  event: string;
  watch(send: (data: unknown) => void): () => void;
}

/** `GET /__sim/events`: each event of the feeds as one server-sent event under the feed's name. */
export function eventStream(feeds: readonly EventFeed[]) {
  const open = new Set<Response>();
  let stop: (() => void) | undefined;
  const write = (text: string) => {
    for (const res of open) {
      // Stryker disable next-line EqualityOperator: a backlog of exactly 1 MiB, either way
      if (res.writableLength > MAX_EVENT_BACKLOG) res.destroy();
      else res.write(text);
    }
  };
  const subscribe = () => {
    const stops = feeds.map((feed) => feed.watch((data) => write(`event: ${feed.event}\ndata: ${jsonText(data)}\n\n`)));
    return () => stops.forEach((stopFeed) => stopFeed());
  };
  return (_req: Request, res: Response) => {
    if (open.size >= MAX_EVENT_STREAMS) {
      return void res.status(503).json({ error: `at most ${MAX_EVENT_STREAMS} event streams at once` });
    }
    open.add(res);
    stop ??= subscribe();
    // Not cached by a proxy; and `Connection` said outright.
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
