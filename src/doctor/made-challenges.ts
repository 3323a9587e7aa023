/**
 * The challenges the simulator made for watched API users, the newest `max` of them, and whether each was followed up
 * by the client that asked for it (a status poll, a verify, a cancel naming it): the doctor's `challenge-abandoned`.
 *
 * Written on every new challenge, so kept without an object per challenge: each challenge's API user, request seq and
 * followed flag live in parallel arrays at its slot of a ring, and a Map finds the slot by id. Making one costs two
 * operations on that Map (forget the oldest id, add the new one), where a `RecentMap` of objects took four and an
 * object the collector had to follow.
 */
export class MadeChallenges {
  private readonly ids: (string | undefined)[];
  private readonly apiUsers: (string | undefined)[];
  private readonly seqs: Float64Array;
  private readonly followed: Uint8Array;
  private readonly slots = new Map<string, number>();
  /** The slot the next challenge takes: that of the oldest once the ring is full. */
  private next = 0;

  /** `max`: at least 1. */
  constructor(readonly max: number) {
    this.ids = new Array<string | undefined>(max).fill(undefined);
    this.apiUsers = new Array<string | undefined>(max).fill(undefined);
    this.seqs = new Float64Array(max);
    this.followed = new Uint8Array(max);
  }

  get size(): number {
    return this.slots.size;
  }

  /** A challenge made by request `seq` of `apiUser`; the oldest is forgotten once `max` are kept. */
  made(id: string, apiUser: string, seq: number): void {
    const slot = this.next;
    const oldest = this.ids[slot];
    if (oldest !== undefined) this.slots.delete(oldest);
    const size = this.slots.size;
    this.slots.set(id, slot);
    // The id was kept already (a random source that repeats ids; never the machine's): it now lives in this slot only.
    if (this.slots.size === size) this.ids[this.ids.indexOf(id)] = undefined;
    this.ids[slot] = id;
    this.apiUsers[slot] = apiUser;
    this.seqs[slot] = seq;
    this.followed[slot] = 0;
    this.next = (slot + 1) % this.max;
  }

  /** `apiUser` named the challenge in a request: followed, if the challenge is one made for that API user. */
  follow(id: string, apiUser: string): void {
    const slot = this.slots.get(id);
    if (slot !== undefined && this.apiUsers[slot] === apiUser) this.followed[slot] = 1;
  }

  /** Forgets every challenge (an API user's string left in a slot is let go when the slot is next taken). */
  clear(): void {
    this.slots.clear();
    this.ids.fill(undefined);
  }

  /** The challenges kept, oldest first. */
  *[Symbol.iterator](): IterableIterator<{ id: string; apiUser: string; seq: number; followed: boolean }> {
    for (let k = 0; k < this.max; k++) {
      const slot = (this.next + k) % this.max;
      const id = this.ids[slot];
      if (id !== undefined)
        yield { id, apiUser: this.apiUsers[slot]!, seq: this.seqs[slot], followed: this.followed[slot] === 1 };
    }
  }
}
