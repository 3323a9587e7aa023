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

/** A second feed of the stream: each step of a challenge (world/challenges.ts), as `view` shows it. */
export interface ChallengeFeed<C> {
  watch(watcher: (c: C) => void): () => void;
  view(c: C): unknown;
}

/**
 * `GET /__sim/events`: each answered request, sealed, as one server-sent event `request` whose data is the entry as
 * `view` shows it; and each step of a challenge (made, answered on the phone page or by a control call, verified,
 * cancelled, expired) as an event `challenge`. All open streams share one subscription to each feed, and each
 * event's text is made once however many streams there are.
 */
export function eventStream<C>(journal: Journal, view: (e: JournalEntry) => unknown, challenges?: ChallengeFeed<C>) {
  const open = new Set<Response>();
  let stop: (() => void) | undefined;
  const write = (text: string) => {
    for (const res of open) {
      if (res.writableLength > MAX_EVENT_BACKLOG) res.destroy();
      else res.write(text);
    }
  };
  const send = (e: JournalEntry) => write(`event: request\ndata: ${jsonText(view(e))}\n\n`);
  const subscribe = () => {
    const stopJournal = journal.subscribe(send);
    const stopChallenges = challenges?.watch((c) =>
      write(`event: challenge\ndata: ${jsonText(challenges.view(c))}\n\n`),
    );
    return () => {
      stopJournal();
      stopChallenges?.();
    };
  };
  return (_req: Request, res: Response) => {
    if (open.size >= MAX_EVENT_STREAMS) {
      return void res.status(503).json({ error: `at most ${MAX_EVENT_STREAMS} event streams at once` });
    }
    open.add(res);
    stop ??= subscribe();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
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
