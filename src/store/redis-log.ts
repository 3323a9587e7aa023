import type { RedisClientType } from 'redis';

/**
 * The shared log of replicas on one Redis (docs/containers.md#several-replicas-on-one-store-redis): a stream of
 * changes in the order every replica applies them, and a snapshot of the state after one of them. It knows nothing of
 * what a change is: simulator/replicas.ts does.
 *
 * Keys (in the database the URL names):
 * - `mfa-sim:log`: a stream; each entry's field `c` is one change, as JSON. Trimmed to the entries after the
 *   snapshot before the last one, so that a replica a little behind still finds what follows its place.
 * - `mfa-sim:snapshot`: JSON `{ id, state }`, the state after the change `id`; no expiry.
 * - `mfa-sim:options`: what the first replica was started with; the others must be started alike.
 */
const LOG = 'mfa-sim:log';
const SNAPSHOT = 'mfa-sim:snapshot';
const OPTIONS = 'mfa-sim:options';
/** How long a read waits for new changes before it asks again (ms). */
const READ_WAIT_MS = 2000;

export interface LogEntry {
  id: string;
  change: string;
}

/** The store's URL as it may be shown: without user name or password. */
export function storeName(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return 'redis://(an address that is not a URL)';
  }
}

/** Stream ids (`<ms>-<n>`) in order. */
export function idAfter(a: string, b: string): boolean {
  const [am, an] = a.split('-').map(Number);
  const [bm, bn] = b.split('-').map(Number);
  return am > bm || (am === bm && an > bn);
}

export class RedisLog {
  private closed = false;

  private constructor(
    /** Writes, snapshots and short reads; fails at once while Redis is away (no queue of its own). */
    private readonly client: RedisClientType,
    /** The one blocking read of new changes. */
    private readonly reader: RedisClientType,
  ) {}

  /** Connects (both connections), or fails with the reason; node-redis reconnects on its own after that. */
  static async open(url: string, warn: (message: string) => void): Promise<RedisLog> {
    const { createClient } = await import('redis');
    const name = storeName(url);
    // At start, a store it cannot reach is an answer at once; once connected, it reconnects for as long as it takes.
    let connected = false;
    let firstError: Error | undefined;
    const reconnectStrategy = (retries: number, cause: Error) => {
      if (connected) return Math.min(100 * 2 ** retries, 2000);
      firstError ??= cause;
      return cause;
    };
    const client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 5000, reconnectStrategy },
    }) as RedisClientType;
    let away = false;
    client.on('error', (e: Error) => {
      if (away || !connected) return;
      away = true;
      warn(`mfa-sim: the store ${name} cannot be reached (${e.message}); requests get -5000 until it is back`);
    });
    client.on('ready', () => {
      if (!away) return;
      away = false;
      warn(`mfa-sim: the store ${name} is reachable again`);
    });
    const reader = client.duplicate() as RedisClientType;
    reader.on('error', () => {
      // Told once, by the client above.
    });
    try {
      await Promise.all([client.connect(), reader.connect()]);
    } catch (e) {
      for (const c of [client, reader]) if (c.isOpen) c.destroy();
      throw firstError ?? e;
    }
    connected = true;
    return new RedisLog(client, reader);
  }

  /** Appends a change; resolves once Redis has it. */
  async append(change: string): Promise<void> {
    await this.client.xAdd(LOG, '*', { c: change });
  }

  /** The changes after `id`, waiting up to READ_WAIT_MS for one; [] when none came (or the log is closed). */
  async next(after: string, count = 500): Promise<LogEntry[]> {
    const got = await this.reader.xRead({ key: LOG, id: after }, { BLOCK: READ_WAIT_MS, COUNT: count });
    return entriesOf(got);
  }

  /** The changes after `id`, at most `count`, without waiting. */
  async range(after: string, count = 1000): Promise<LogEntry[]> {
    const got = await this.client.xRange(LOG, `(${after}`, '+', { COUNT: count });
    return got.map((m) => ({ id: m.id, change: String(m.message.c) }));
  }

  /** The id of the last change in the log ('0-0' when none). */
  async lastId(): Promise<string> {
    const [last] = await this.client.xRevRange(LOG, '+', '-', { COUNT: 1 });
    return last?.id ?? '0-0';
  }

  /** The snapshot kept, if any; one that is not JSON `{ id, state }` with a stream id is refused with why. */
  async snapshot(): Promise<{ id: string; state: unknown } | undefined> {
    const text = await this.client.get(SNAPSHOT);
    if (text === null) return undefined;
    let kept: { id?: unknown; state?: unknown } | null;
    try {
      kept = JSON.parse(text) as typeof kept;
    } catch {
      kept = null;
    }
    if (typeof kept?.id !== 'string' || !/^\d+-\d+$/.test(kept.id) || typeof kept.state !== 'object' || !kept.state)
      throw new Error(`${SNAPSHOT} is not a snapshot mfa-sim wrote: empty the database (FLUSHDB) to start afresh`);
    return { id: kept.id, state: kept.state };
  }

  /**
   * Keeps a snapshot of the state after change `id` (unless a later one is kept, or `onlyIfNone` and one is), and
   * drops the log's changes before the snapshot it replaces: a replica a little behind still finds what follows.
   */
  async saveSnapshot(id: string, state: unknown, onlyIfNone = false): Promise<void> {
    const kept = await this.snapshot();
    if (kept && (onlyIfNone || !idAfter(id, kept.id))) return;
    await this.client.set(SNAPSHOT, JSON.stringify({ id, state }));
    if (kept) await this.client.xTrim(LOG, 'MINID', kept.id);
  }

  /** The options the first replica started with: set to `mine` when none are, else the ones set. */
  async options(mine: string): Promise<string> {
    await this.client.set(OPTIONS, mine, { NX: true });
    return (await this.client.get(OPTIONS)) ?? mine;
  }

  /**
   * Whether the store lost what it held (Redis restarted empty): the options every replica sets at start are gone.
   * Sets them again (`mine`), so that one replica only is told.
   */
  async lost(mine: string): Promise<boolean> {
    return (await this.client.set(OPTIONS, mine, { NX: true })) === 'OK';
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.reader.isOpen) this.reader.destroy();
    await this.client.close().catch(() => undefined);
  }
}

type XReadReply = Awaited<ReturnType<RedisClientType['xRead']>>;

function entriesOf(reply: XReadReply): LogEntry[] {
  if (!Array.isArray(reply)) return [];
  const out: LogEntry[] = [];
  for (const stream of reply as { messages: { id: string; message: Record<string, unknown> }[] }[])
    for (const m of stream.messages) out.push({ id: m.id, change: String(m.message.c) });
  return out;
}
