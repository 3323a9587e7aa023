/** Something each user e-mail gets: by exact e-mail (case-insensitive), then by glob in the order written. */
export interface EmailEntry<T> {
  key: string;
  value: T;
  /** A glob's matcher (compiled where the scenario is checked). */
  matches?: (email: string) => boolean;
}

/** Values by user e-mail: exact e-mails first (of two alike in lower case the first wins), then globs in order. */
export class EmailBook<T> {
  private readonly exact = new Map<string, T>();
  private readonly globs: { matches: (email: string) => boolean; value: T }[] = [];

  constructor(entries: Iterable<EmailEntry<T>>) {
    for (const { key, value, matches } of entries) {
      if (matches) this.globs.push({ matches, value });
      else if (!this.exact.has(key.toLowerCase())) this.exact.set(key.toLowerCase(), value);
    }
  }

  /** The value for this e-mail, or undefined when nothing matches. */
  find(email: string): T | undefined {
    return this.exact.get(email.toLowerCase()) ?? this.globs.find((g) => g.matches(email))?.value;
  }
}

/** Account states (docs/behaviour.md#accounts-and-api-users): the -2xxx code of each user e-mail, 0 when active. */
export class AccountBook extends EmailBook<number> {
  constructor(
    entries: Iterable<EmailEntry<number>>,
    private readonly fallback: number,
  ) {
    super(entries);
  }

  /** The -2xxx code for this e-mail's account, or 0 when it is active. */
  codeFor(email: string): number {
    return this.find(email) ?? this.fallback;
  }
}
