import type { Request, Response } from 'express';
import { jsonText } from '../output/json.js';
import type { Journal, JournalEntry } from './journal.js';

/**
 * The dashboard's live log as server-sent events: an observer of the journal's feed, bounded in streams and backlog.
 */

/** How many live event streams (dashboard tabs) one simulator serves at once. */
export const MAX_EVENT_STREAMS = 32;
/** An event stream whose reader falls this far behind (bytes waiting to be sent) is closed: a tab that stopped reading cannot make the simulator hold every event. */
export const MAX_EVENT_BACKLOG = 1024 * 1024;

/**
 * `GET /__sim/events`: each answered request, sealed, as one server-sent event `request` whose data is the entry as
 * `view` shows it. All open streams share one subscription to the journal, and each event's text is made once
 * however many streams there are.
 */
export function eventStream(journal: Journal, view: (e: JournalEntry) => unknown) {
  const open = new Set<Response>();
  let stop: (() => void) | undefined;
  const send = (e: JournalEntry) => {
    const text = `event: request\ndata: ${jsonText(view(e))}\n\n`;
    for (const res of open) {
      if (res.writableLength > MAX_EVENT_BACKLOG) res.destroy();
      else res.write(text);
    }
  };
  return (_req: Request, res: Response) => {
    if (open.size >= MAX_EVENT_STREAMS) {
      return void res.status(503).json({ error: `at most ${MAX_EVENT_STREAMS} event streams at once` });
    }
    open.add(res);
    stop ??= journal.subscribe(send);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(': mfa-sim events\n\n');
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    res.on('close', () => {
      open.delete(res);
      clearInterval(ping);
      if (open.size === 0) {
        stop?.();
        stop = undefined;
      }
    });
  };
}
