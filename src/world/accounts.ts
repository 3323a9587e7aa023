import { foldCase } from './fold-case.js';
import { compileFoldedGlob, isGlob } from './glob.js';

/**
 * Account states (docs/behaviour.md#accounts-and-api-users): which -2xxx code each user e-mail of a scenario gets, by
 * exact e-mail or glob.
 */

export { isGlob };

/** An account as a scenario lists it: a glob comes with its matcher (compiled where the scenario is checked). */
export interface AccountEntry {
  key: string;
  code: number;
  /** A glob's: takes the e-mail folded (fold-case.ts). */
  matchFolded?: (email: string) => boolean;
}

/**
 * The account states of a scenario: exact e-mails (case-insensitive, as fold-case.ts folds), then globs in the
 * order written, then the default. A state resolves to its -2xxx code, or 0 for an active account.
 */
export class AccountBook {
  private readonly exact = new Map<string, number>();
  private readonly globs: { matchFolded: (email: string) => boolean; code: number }[] = [];

  constructor(
    entries: Iterable<AccountEntry>,
    private readonly fallback: number,
  ) {
    for (const { key, code, matchFolded } of entries) {
      if (matchFolded) {
        this.globs.push({ matchFolded, code });
        continue;
      }
      // The first of two keys written differently but folding alike wins, as the first matching glob does.
      const folded = foldCase(key);
      if (!this.exact.has(folded)) this.exact.set(folded, code);
    }
  }

  /** The -2xxx code for this e-mail's account, or 0 when it is active. */
  codeFor(email: string): number {
    const folded = foldCase(email);
    const exact = this.exact.get(folded);
    if (exact !== undefined) return exact;
    for (const g of this.globs) if (g.matchFolded(folded)) return g.code;
    return this.fallback;
  }
}

/**
 * A matcher for a value that is exact (case-insensitive) or a glob (glob.ts), taking the value folded (fold-case.ts):
 * a request's header or user is folded once, however many rules look at it. A glob that cannot be used throws a
 * GlobError.
 */
export function foldedValueMatcher(pattern: string): (folded: string) => boolean {
  if (isGlob(pattern)) return compileFoldedGlob(pattern);
  const want = foldCase(pattern);
  return (folded) => folded === want;
}
