/** What a person does on the phone page: approve or deny. */
export type PressAction = 'approve' | 'deny';

/**
 * What the person a challenge is made for does with it, as a scenario scripts it (`people:`) or a magic address says
 * (`approve@`, `deny-after-5s@`, `ignore@`): the presses they make on the phone, each some time after the challenge is
 * made. No press at all: they never answer, and the challenge expires.
 */

/** One press a person makes, this long (ms) after the challenge is made. */
export interface ScriptedPress {
  action: PressAction;
  afterMs: number;
}

/** A person's presses, earliest first; empty: they never answer. */
export type PersonScript = readonly ScriptedPress[];

/** The word forms (`approve`, `deny`) press once, this long after the challenge is made. */
const WORD_PRESS_MS = 1000;
/** A person presses at most this many times (`people:` lists). */
export const MAX_PRESSES = 10;

/** The script a word stands for: one press a second after the challenge is made, or none for `ignore`. */
export function wordScript(word: PressAction | 'ignore', afterMs = WORD_PRESS_MS): PersonScript {
  return word === 'ignore' ? [] : [{ action: word, afterMs }];
}

/** `approve`, `deny` or `ignore`, optionally `-after-<whole seconds>s`, before the `@` (any case, any domain). */
const MAGIC = /^(approve|deny|ignore)(?:-after-(\d{1,5})s)?@/i;
/** A magic address waits at most a day (as `people:` presses do). */
const MAX_MAGIC_SECONDS = 86_400;

/** The script a magic address says (`approve@example.com`, `deny-after-5s@example.com`), or undefined for any other. */
function magicScript(user: string): PersonScript | undefined {
  const m = MAGIC.exec(user);
  if (!m) return undefined;
  const seconds = m[2] === undefined ? undefined : Number(m[2]);
  if (seconds !== undefined && seconds > MAX_MAGIC_SECONDS) return undefined;
  return wordScript(m[1].toLowerCase() as PressAction | 'ignore', seconds === undefined ? undefined : seconds * 1000);
}

/** A person as a scenario lists them: a glob comes with its matcher (compiled where the scenario is checked). */
export interface PersonEntry {
  key: string;
  script: PersonScript;
  matches?: (email: string) => boolean;
}

/**
 * The people a scenario scripts: exact e-mails (case-insensitive), then globs in the order written, as accounts are
 * matched (accounts.ts); then, unless the scenario turns them off, the magic addresses.
 */
export class PersonBook {
  private readonly exact = new Map<string, PersonScript>();
  private readonly globs: { matches: (email: string) => boolean; script: PersonScript }[] = [];

  constructor(
    entries: Iterable<PersonEntry>,
    private readonly magic: boolean,
  ) {
    for (const { key, script, matches } of entries) {
      if (matches) this.globs.push({ matches, script });
      else if (!this.exact.has(key.toLowerCase())) this.exact.set(key.toLowerCase(), script);
    }
  }

  /** What the person with this e-mail does, or undefined: no one answers for them but a real person (or a test). */
  scriptFor(email: string): PersonScript | undefined {
    const exact = this.exact.get(email.toLowerCase());
    if (exact) return exact;
    for (const g of this.globs) if (g.matches(email)) return g.script;
    return this.magic ? magicScript(email) : undefined;
  }
}
