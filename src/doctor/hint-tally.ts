import { clipText, MAX_MESSAGE_CHARS } from '../contract/answer.js';
import type { HintSeen, Scope } from './finding-types.js';
import type { Hint } from './doctor.js';

/**
 * Rows of hints kept (docs/robustness.md gives it in bytes), each text kept up to an error message's length, so a
 * flood of distinct mistakes cannot grow the doctor without end.
 */
const HINT_KINDS_KEPT = 1000;

/** The doctor's hints given (the signature mistakes seen), counted over the run and over the current scenario. */
export class HintTally {
  private readonly hints = new Map<string, HintSeen>();
  /** The same, counted since the current scenario started (its view); the run's map above goes on. */
  private readonly hintsHere = new Map<string, HintSeen>();

  /** `hide`: hides secrets in a text before it is cut to be kept (a cut secret would no longer be recognised). */
  constructor(private readonly hide: (text: string) => string) {}

  /** A new run: every hint is forgotten. */
  clear(): void {
    this.hints.clear();
    this.hintsHere.clear();
  }

  /** A scenario starts: its view starts afresh; the run's hints go on. */
  startScenario(): void {
    this.hintsHere.clear();
  }

  /** The hints given, most frequent first. */
  seen(scope: Scope): HintSeen[] {
    return [...(scope === 'run' ? this.hints : this.hintsHere).values()]
      .map((h) => ({ ...h }))
      .sort((a, b) => b.count - a.count || a.firstSeq - b.firstSeq);
  }

  tally(code: number, hint: Hint, seq: number, apiUser: string | undefined): void {
    const key = `${code}\0${hint.id}\0${apiUser ?? ''}`;
    // A hint may quote what the client sent at length: kept up to an error message's length, its secrets hidden first.
    const text = hint.text.length <= MAX_MESSAGE_CHARS ? hint.text : clipText(this.hide(hint.text), MAX_MESSAGE_CHARS);
    for (const hints of [this.hints, this.hintsHere]) {
      const seen = hints.get(key);
      if (seen) {
        seen.count++;
        seen.lastSeq = seq;
        seen.text = text;
      } else if (hints.size < HINT_KINDS_KEPT) {
        hints.set(key, { code, id: hint.id, text, apiUser, firstSeq: seq, lastSeq: seq, count: 1 });
      }
    }
  }
}
