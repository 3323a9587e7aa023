import { clipText } from '../contract/answer.js';
import type { Journal } from './journal.js';
import { Redactor } from './redactor.js';

/**
 * The secrets a simulator holds, and how everything it shows outside (journal, log, events, pages, messages,
 * errors) is kept free of them. The set is exactly what is held now: when it changes, journal entries not yet
 * sealed are sealed first, against the secrets they were recorded under, and remembered links are made anew.
 */
export class Secrets {
  readonly redactor = new Redactor();

  constructor(
    private readonly journal: Journal,
    /** What the simulator holds now. */
    private readonly held: () => string[],
    /** Told when the set changed (links remember a Host with its secrets hidden). */
    private readonly changed: () => void,
  ) {}

  /** Text with every secret held hidden, plain or escaped. */
  hide(text: string): string {
    return this.redactor.hide(text);
  }

  /** What a caller sent, fit to be shown back: its secrets hidden first, then cut to `max` characters. */
  echo(value: string, max: number): string {
    return clipText(this.redactor.hide(value), max);
  }

  /** Call when a scenario was loaded, bound or let go. */
  update(): void {
    this.journal.sealAll();
    this.redactor.set(this.held());
    this.changed();
  }

  get size(): number {
    return this.redactor.size;
  }
}
