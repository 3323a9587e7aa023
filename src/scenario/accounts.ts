import { isGlob } from './glob.js';

/**
 * Account states (docs/behaviour.md#accounts-and-api-users): which -2xxx code each user e-mail of a scenario gets, by
 * exact e-mail or glob.
 */

export { isGlob };

/** An account as a scenario lists it: a glob comes with its matcher (compiled where the scenario is checked). */
export interface AccountEntry {
  key: string;
  code: number;
  matches?: (email: string) => boolean;
}

/**
 * The account states of a scenario: exact e-mails (case-insensitive), then globs in the order written, then the
 * default. A state resolves to its -2xxx code, or 0 for an active account.
 */
export class AccountBook {
  private readonly exact = new Map<string, number>();
  private readonly globs: { matches: (email: string) => boolean; code: number }[] = [];

  constructor(
    entries: Iterable<AccountEntry>,
    private readonly fallback: number,
  ) {
    for (const { key, code, matches } of entries) {
      if (matches) {
        this.globs.push({ matches, code });
        continue;
      }
      // The first of two keys written differently but alike in lower case wins, as the first matching glob does.
      const lower = key.toLowerCase();
      if (!this.exact.has(lower)) this.exact.set(lower, code);
    }
  }

  /** The -2xxx code for this e-mail's account, or 0 when it is active. */
  codeFor(email: string): number {
    const exact = this.exact.get(email.toLowerCase());
    if (exact !== undefined) return exact;
    for (const g of this.globs) if (g.matches(email)) return g.code;
    return this.fallback;
  }
}
