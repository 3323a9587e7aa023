import type * as YAML from 'yaml';
import type { RuleInput } from '../scenario/schema.js';
import { lazy } from '../world/lazy.js';

/**
 * The rules of a recording (recorder.ts): for each kind of request, its answers in the order they came, as rules of
 * the scenario file. Each rule's text is made once, when it is added (and once more when the next one of its kind
 * makes it say `times`), so that writing the file is a join, however many rules it holds, and the file's size is
 * counted in bytes as written: turning the whole scenario into YAML at each rewrite held the event loop for a quarter
 * of a second near the bound, and counting characters let a file of three-byte characters grow past what the loader
 * takes.
 */

const yaml = lazy<typeof YAML>('yaml');

/** Rules recorded at most. */
const MAX_RECORDED_RULES = 1000;
/** Each string on one line; each rule an item of `rules` at the left margin, so that its text stands alone. */
export const YAML_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false, indentSeq: false } as const;

export type When = NonNullable<RuleInput['when']>;
export type Outcome = Pick<RuleInput, 'respond' | 'fault' | 'delay'>;

interface Step {
  outcome: Outcome;
  times: number;
  label: string;
  /** The rule's text (`times` said once it is no longer the last of its kind), and its bytes. */
  text: string;
  bytes: number;
}

interface Sequence {
  when: When;
  steps: Step[];
}

export class RecordedRules {
  private readonly sequences = new Map<string, Sequence>();
  private count = 0;
  private bytes = 0;

  /** How many rules there are. */
  get size(): number {
    return this.count;
  }

  /**
   * One more answer to a kind of request: one more time of its last rule when it answered the same, else a new rule,
   * if the rules stay within MAX_RECORDED_RULES and `room` bytes. Says whether it was taken.
   */
  add(when: When, outcome: Outcome, label: string, room: number): boolean {
    const key = JSON.stringify(when);
    const sequence = this.sequences.get(key);
    const last = sequence?.steps[sequence.steps.length - 1];
    if (last && JSON.stringify(last.outcome) === JSON.stringify(outcome)) {
      last.times++;
      return true;
    }
    const step = { outcome, times: 1, label, ...ruleText(when, { outcome, times: 1, label }, false) };
    // The rule before it now says how many times it answers.
    const before = last && ruleText(when, last, true);
    const more = step.bytes + (before && last ? before.bytes - last.bytes : 0);
    if (this.count >= MAX_RECORDED_RULES || this.bytes + more > room) return false;
    if (before && last) Object.assign(last, before);
    if (sequence) sequence.steps.push(step);
    else this.sequences.set(key, { when, steps: [step] });
    this.count++;
    this.bytes += more;
    return true;
  }

  /**
   * The file's `rules`: the most specific kinds of request first (a rule for any user of an endpoint must not answer
   * for one with a rule of its own).
   */
  text(): string {
    const sequences = [...this.sequences.values()].sort(
      (a, b) => Object.keys(b.when).length - Object.keys(a.when).length,
    );
    const rules = sequences.flatMap((s) => s.steps.map((step) => step.text));
    return rules.length ? `rules:\n${rules.join('')}` : 'rules: []\n';
  }
}

/** A rule's text as an item of the file's `rules`, and its bytes. */
function ruleText(when: When, step: Pick<Step, 'outcome' | 'times' | 'label'>, withTimes: boolean) {
  const rule: RuleInput = { name: step.label, when, ...(withTimes ? { times: step.times } : {}), ...step.outcome };
  const text = yaml().stringify([rule], YAML_OPTIONS);
  return { text, bytes: Buffer.byteLength(text) };
}
