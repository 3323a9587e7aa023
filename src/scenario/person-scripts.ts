import { EmailBook, type EmailEntry } from './accounts.js';

/** What a person does on the phone page: approve or deny. */
export type PressAction = 'approve' | 'deny';

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

/** The people a scenario scripts (`people:`), matched as accounts are; then, unless turned off, the magic addresses. */
export class PersonBook extends EmailBook<PersonScript> {
  constructor(
    entries: Iterable<EmailEntry<PersonScript>>,
    private readonly magic: boolean,
  ) {
    super(entries);
  }

  /** What the person with this e-mail does, or undefined: no one answers for them but a real person (or a test). */
  scriptFor(email: string): PersonScript | undefined {
    return this.find(email) ?? (this.magic ? magicScript(email) : undefined);
  }
}
