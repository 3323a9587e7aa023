import type { Operation } from '../codes.js';
import { peekedUser, type Peek } from '../contract/envelope.js';
import type { Endpoint } from '../contract/operations.js';
import { headerReadings } from './header-readings.js';
import type { CompiledScenario } from './compile.js';
import type { CompiledRule } from './compile-rule.js';
import { ANSWERING_FAULTS } from './schema.js';
import { LIMITS } from '../world/time-limits.js';

/**
 * Which rule of a scenario decides a request, and the counts that `after`, `times` and `every` read. Rules are
 * matched before the request is judged (a rule may force an authentication code), on what can be read cheaply.
 */

/** What a rule can look at in a request before anything is judged. */
export interface RuleSubject {
  readonly endpointByPath: Endpoint | undefined;
  header(name: string): string | undefined;
  readonly peek: Peek;
  readonly operation: Operation | undefined;
}

/** A scenario as one simulator runs it: compiled, with its rules' match counts (fresh on every reset). */
export interface Running {
  readonly sc: CompiledScenario;
  readonly counts: number[];
  /** Picked by a request header: the scenario the request would otherwise run under, whose trust it never exceeds. */
  readonly under?: Running;
}

export function running(sc: CompiledScenario, under?: Running): Running {
  return { sc, counts: new Array<number>(sc.rules.length).fill(0), under };
}

/**
 * The rules that apply to a request, as one: the first rule that matches, whose count says it applies now and that
 * decides the answer (a code, or a fault that keeps the request from the service), with every rule that only delays
 * or garbles the answer and applies too, wherever it stands in the list. Counts every rule it looks at that matches;
 * the rules that decide after the first one that applies are not looked at.
 */
export function pickRule(run: Running, subject: RuleSubject): CompiledRule | undefined {
  const endpoint = subject.endpointByPath;
  let decided = false;
  let applied: CompiledRule[] | undefined;
  for (const rule of run.sc.rules) {
    if (decided && rule.decides) continue;
    if (!ruleMatches(rule, subject, endpoint, run.sc.names.apiUser) || !appliesNow(rule, ++run.counts[rule.index]))
      continue;
    decided ||= rule.decides;
    (applied ??= []).push(rule);
  }
  return applied && composed(applied);
}

/** Whether a rule that matched for the `n`th time applies to this request (`after`, `times`, `every`). */
function appliesNow(rule: CompiledRule, n: number): boolean {
  if (n <= rule.after) return false;
  const k = n - rule.after;
  return (rule.times === undefined || k <= rule.times) && (rule.every === undefined || k % rule.every === 0);
}

/**
 * The rules that apply, as one rule: the code and the fault that keeps the request from the service of the one that
 * decides; the delays added up (to the longest a delay may be); of the faults that garble an answer, the first.
 */
function composed(rules: CompiledRule[]): CompiledRule {
  const decider = rules.find((r) => r.decides);
  const delays = rules.flatMap((r) => (r.delay ? [r.delay] : []));
  const most = LIMITS.delay.max;
  return {
    ...(decider ?? rules[0]),
    label: rules.map((r) => r.label).join(' + '),
    delay: delays.length
      ? { min: Math.min(most, sum(delays.map((d) => d.min))), max: Math.min(most, sum(delays.map((d) => d.max))) }
      : undefined,
    fault: decider?.fault && !ANSWERING_FAULTS.has(decider.fault) ? decider.fault : rules.find((r) => r.fault)?.fault,
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function ruleMatches(
  rule: CompiledRule,
  subject: RuleSubject,
  endpoint: Endpoint | undefined,
  apiUserHeader: string,
): boolean {
  if (rule.endpoint !== undefined && rule.endpoint !== endpoint) return false;
  if (rule.headers) {
    for (const [name, match] of rule.headers) {
      const value = subject.header(name);
      if (value === undefined || !headerReadings(value).some((reading) => match(reading))) return false;
    }
  }
  if (rule.apiUser !== undefined) {
    const id = subject.header(apiUserHeader) ?? subject.peek.apiUser;
    if (id !== rule.apiUser) return false;
  }
  if (rule.type !== undefined && subject.peek.type !== rule.type) return false;
  if (rule.challengeType !== undefined && subject.peek.challengeType !== rule.challengeType) return false;
  if (rule.user) {
    const user = peekedUser(subject.peek);
    if (user === undefined || !rule.user(user)) return false;
  }
  if (rule.ops) {
    const op = subject.operation;
    if (op === undefined || !rule.ops.has(op)) return false;
  }
  return true;
}
