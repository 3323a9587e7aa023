import { randomUUID } from 'node:crypto';
import { ControlError } from '../contract/errors.js';
import type { ApiRequest } from '../request/context.js';
import type { ApiResult } from '../request/path.js';
import { idAfter, RedisLog, storeName } from '../store/redis-log.js';
import { machine, type Readings } from '../world/clock.js';
import { applyChange } from './changes.js';
import type { Simulator } from './simulator.js';
import type { SimulatorState } from './state.js';

/**
 * Replicas that answer as one (docs/containers.md#several-replicas-on-one-store-redis): every change to the simulated
 * service (an API request, a control operation) is appended to a log on Redis, and every replica applies every
 * change, in the log's order, to its own simulator. A replica answers a request once it has applied it: of 200
 * replicas' copies of one signed request, the first in the log is accepted and the others are replays; a challenge made
 * on one is approved on a second and read on a third; the run's journal, coverage and findings are every replica's.
 * While a change is applied the machine reads (time, random bytes) as the replica that took it did (world/clock.ts),
 * so every replica decides it alike.
 */

/** A change as the log keeps it. */
interface Change {
  /** Who took it: `<replica>:<n>`, for that replica to answer its caller once it is applied. */
  by: string;
  /** What the machine read when it was taken: time, monotonic time, a seed for random bytes (base64). */
  at: { time: number; mono: number; seed: string };
  request?: ApiRequest;
  /** The request is one the dashboard's explorer sent, signed with this nonce (not the client's doing). */
  sentItself?: string;
  /** A control operation (Simulator's `changes`) and its arguments. */
  op?: string;
  args?: unknown[];
}

type Outcome = { value: unknown } | { error: unknown };

/** A change as the log holds it, or undefined when the text is not one (the store is read as hostile input). */
function changeIn(text: string): Change | undefined {
  try {
    const c = JSON.parse(text) as Change;
    const at = c?.at as Partial<Change['at']> | undefined;
    const ok =
      typeof c.by === 'string' &&
      typeof at === 'object' &&
      at !== null &&
      Number.isFinite(at.time) &&
      Number.isFinite(at.mono) &&
      typeof at.seed === 'string';
    return ok ? c : undefined;
  } catch {
    return undefined;
  }
}

/** A snapshot is kept after every this many changes (by the replica that took that change). */
const SNAPSHOT_EVERY = 1000;
/** A replica waits this long for its own change to come back from the log before it gives up (ms). */
const APPLY_WAIT_MS = 10_000;

export class Replicas {
  private readonly me = randomUUID();
  private taken = 0;
  /** The id of the last change applied, and how many have been applied in all. */
  private applied = '0-0';
  private count = 0;
  /** Entries of the log that were not changes (a store written by something else). */
  private leftOut = 0;
  private readonly waiting = new Map<string, (outcome: Outcome) => void>();
  private readonly caughtUpTo: { id: string; done: () => void }[] = [];
  private reading?: Promise<void>;
  readonly name: string;

  private constructor(
    private readonly sim: Simulator,
    private readonly log: RedisLog,
    url: string,
    /** The options this replica started with, as the store keeps them for the next to compare. */
    private readonly options: string,
    private readonly warn: (message: string) => void,
  ) {
    this.name = storeName(url);
  }

  /** Joins the replicas on `url`: the snapshot, then every change after it, then follows the log. */
  static async join(sim: Simulator, url: string, options: string, warn: (m: string) => void): Promise<Replicas> {
    let log: RedisLog;
    try {
      log = await RedisLog.open(url, warn);
    } catch (e) {
      throw new Error(`the store ${storeName(url)} cannot be reached: ${(e as Error).message}`, { cause: e });
    }
    const replicas = new Replicas(sim, log, url, options, warn);
    try {
      const first = await log.options(options);
      if (first !== options)
        throw new Error(
          `the replicas on ${replicas.name} were started with other options (${JSON.stringify(first.slice(0, 2000))}); start every replica with the same scenario, secret and limits (this one: ${options})`,
        );
      const snapshot = await log.snapshot();
      if (snapshot) {
        try {
          sim.restore(snapshot.state as SimulatorState);
        } catch (e) {
          const why = e instanceof Error ? e.message : String(e);
          throw new Error(
            `the snapshot in ${replicas.name} cannot be read (${why.slice(0, 500)}): empty its database (FLUSHDB) to start afresh`,
            { cause: e },
          );
        }
        replicas.applied = snapshot.id;
      }
      for (let batch = await log.range(replicas.applied); batch.length; batch = await log.range(replicas.applied))
        for (const e of batch) replicas.apply(e.id, e.change);
    } catch (e) {
      await log.close();
      throw e;
    }
    replicas.reading = replicas.follow();
    return replicas;
  }

  /** Answers an API request once every replica can apply it: -5000 naming the store when it cannot be reached. */
  async request(req: ApiRequest): Promise<ApiResult> {
    const nonce = req.headers[this.sim.scenario.names.nonce];
    const sentItself = typeof nonce === 'string' && this.sim.doctor.sentItself(nonce) ? nonce : undefined;
    const outcome = await this.take({ request: { ...req, headers: { ...req.headers } }, sentItself }, String);
    if ('error' in outcome) return this.sim.path.notTaken(req, String(outcome.error));
    const result = outcome.value as ApiResult;
    if (result.delayMs) await new Promise((done) => setTimeout(done, result.delayMs));
    return result;
  }

  /** Makes a control change on every replica; answers what it answers here (or throws what it throws). */
  async change(op: string, args: unknown[]): Promise<unknown> {
    const outcome = await this.take({ op, args }, (message) => new ControlError(503, message));
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** Resolves once this replica has applied every change the log held when asked (read what was written anywhere). */
  async caughtUp(): Promise<void> {
    let last: string;
    try {
      last = await this.log.lastId();
    } catch (e) {
      throw new ControlError(503, this.unreachable(e));
    }
    if (!idAfter(last, this.applied)) return;
    await new Promise<void>((done) => this.caughtUpTo.push({ id: last, done }));
  }

  /** Stops following the log, once it has applied what the log held (for at most 2 s): a verdict at exit counts it. */
  async close(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((done) => (timer = setTimeout(done, 2000)));
    await Promise.race([this.caughtUp().catch(() => undefined), late]);
    clearTimeout(timer);
    await this.log.close();
    await this.reading;
    for (const w of this.caughtUpTo.splice(0)) w.done();
  }

  private async take(
    what: Pick<Change, 'request' | 'sentItself' | 'op' | 'args'>,
    failure: (message: string) => unknown,
  ): Promise<Outcome> {
    const by = `${this.me}:${++this.taken}`;
    const at = machine.read();
    const change: Change = { by, at: { time: at.time, mono: at.mono, seed: at.seed.toString('base64') }, ...what };
    const outcome = new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(by);
        resolve({ error: failure(`the store ${this.name} did not hand the change back in time`) });
      }, APPLY_WAIT_MS);
      this.waiting.set(by, (o) => {
        clearTimeout(timer);
        resolve(o);
      });
    });
    try {
      await this.log.append(JSON.stringify(change));
    } catch (e) {
      this.waiting.get(by)?.({ error: failure(this.unreachable(e)) });
      this.waiting.delete(by);
    }
    return outcome;
  }

  private unreachable(e: unknown): string {
    const why = e instanceof Error ? e.message : String(e);
    return `mfa-sim's store ${this.name} cannot be reached (${why}): nothing was changed; try again once it is back`;
  }

  /** Reads the log as it grows, applying each change; after an outage, puts the state back into an empty store. */
  private async follow(): Promise<void> {
    let wasAway = false;
    while (this.log.isOpen) {
      try {
        // Its state as it applied it, up to the last change it read: any change the store took since follows it.
        if (wasAway && (await this.log.lost(this.options)))
          await this.log.saveSnapshot(this.applied, this.sim.state(), true);
        wasAway = false;
        for (const e of await this.log.next(this.applied)) this.apply(e.id, e.change);
      } catch {
        if (!this.log.isOpen) return;
        wasAway = true;
        await new Promise((done) => setTimeout(done, 200));
      }
    }
  }

  /** Applies one change, as the replica that took it read the machine; answers its caller if that is this replica. */
  private apply(id: string, text: string): void {
    this.applied = id;
    this.count++;
    const change = changeIn(text);
    if (!change) {
      // Said for the first few only: a store full of them must not flood the log.
      if (++this.leftOut <= 10)
        this.warn(`mfa-sim: the store ${this.name} holds a change that is not one (${id}): left out`);
    } else {
      let outcome: Outcome;
      try {
        const { time, mono, seed } = change.at;
        const readings: Readings = { time, mono, seed: Buffer.from(seed, 'base64') };
        outcome = { value: machine.as(readings, () => applyChange(this.sim, change)) };
      } catch (e) {
        outcome = { error: e };
      }
      this.waiting.get(change.by)?.(outcome);
      this.waiting.delete(change.by);
      if (this.count % SNAPSHOT_EVERY === 0 && change.by.startsWith(`${this.me}:`)) this.keepSnapshot(id);
    }
    for (let i = this.caughtUpTo.length - 1; i >= 0; i--)
      if (!idAfter(this.caughtUpTo[i].id, id)) this.caughtUpTo.splice(i, 1)[0].done();
  }

  private keepSnapshot(id: string): void {
    this.log.saveSnapshot(id, this.sim.state()).catch((e: unknown) => {
      this.warn(`mfa-sim: no snapshot kept in ${this.name}: ${(e as Error).message}`);
    });
  }
}
