/**
 * The simulator's virtual clock: the only place that reads the machine's time. Simulator time is a base
 * (real time plus manual moves, or a frozen instant) plus the scenario's offset, which plays a server whose
 * clock is off. Tests freeze and advance it; drift, expiry, replay windows and `utctime` all follow it.
 */
export class VirtualClock {
  private frozenBase: number | undefined;
  private shift = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  /** The base instant (without any scenario offset), in epoch ms. */
  base(): number {
    return this.frozenBase ?? this.realNow() + this.shift;
  }

  get frozen(): boolean {
    return this.frozenBase !== undefined;
  }

  /** Stops the clock, at `at` (epoch ms) when given, else where it stands. */
  freeze(at?: number): void {
    this.frozenBase = at ?? this.base();
  }

  /** Lets the clock run again from where it stands. */
  unfreeze(): void {
    if (this.frozenBase === undefined) return;
    this.shift = this.frozenBase - this.realNow();
    this.frozenBase = undefined;
  }

  /** Moves the clock by `ms` (negative moves it back), frozen or not. */
  advance(ms: number): void {
    if (this.frozenBase !== undefined) this.frozenBase += ms;
    else this.shift += ms;
  }

  /** Back to real time, running. */
  reset(): void {
    this.frozenBase = undefined;
    this.shift = 0;
  }
}
