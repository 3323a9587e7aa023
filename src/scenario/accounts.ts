/** Something each user e-mail gets: by exact e-mail (case-insensitive), then by glob in the order written. */
export interface EmailEntry<T> {
  key: string;
  value: T;
  /** A glob's matcher (compiled where the scenario is checked). */
  matches?: (email: string) => boolean;
}

/** Finds values by user e-mail: exact e-mails (of two alike in lower case the first wins), then globs in order. */
function emailBook<T>(entries: Iterable<EmailEntry<T>>): (email: string) => T | undefined {
  const exact = new Map<string, T>();
  const globs: { matches: (email: string) => boolean; value: T }[] = [];
  for (const { key, value, matches } of entries) {
    if (matches) globs.push({ matches, value });
    else if (!exact.has(key.toLowerCase())) exact.set(key.toLowerCase(), value);
  }
  return (email) => exact.get(email.toLowerCase()) ?? globs.find((g) => g.matches(email))?.value;
}

/** Account states (docs/behaviour.md#accounts-and-api-users): the -2xxx code of each user e-mail, 0 when active. */
export interface AccountBook {
  codeFor(email: string): number;
}

export function accountBook(entries: Iterable<EmailEntry<number>>, fallback: number): AccountBook {
  const find = emailBook(entries);
  return { codeFor: (email) => find(email) ?? fallback };
}

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

/** The people a scenario scripts (`people:`): what each does, or undefined when no one answers but a real person. */
export interface PersonBook {
  scriptFor(email: string): PersonScript | undefined;
}

/** People matched as accounts are; then, unless `magic` is off, the magic addresses. */
export function personBook(entries: Iterable<EmailEntry<PersonScript>>, magic: boolean): PersonBook {
  const find = emailBook(entries);
  return { scriptFor: (email) => find(email) ?? (magic ? magicScript(email) : undefined) };
}
