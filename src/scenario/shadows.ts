import type { CompiledRule } from './compile-rule.js';
import type { ScenarioIssue } from '../errors.js';
import type { RuleInput } from './schema.js';

/**
 * Rules that can never apply: a rule that decides (a code, or a fault that keeps the request from the service) is
 * shadowed when an earlier one always decides first: that one applies to every request it matches (no `after`,
 * `times` or `every`), and matches every request the later one matches. Rules that only delay or garble the answer
 * are never shadowed: they apply together with whatever decides. Judged on what the rules say, not on every request
 * they could meet: a glob is taken to cover another only when it is the same text, or `*`.
 */

type When = NonNullable<RuleInput['when']>;

/** A problem for each rule that an earlier one always decides before, at its key path. */
export function shadowedRules(
  rules: readonly CompiledRule[],
  inputs: readonly RuleInput[],
  skip: (index: number) => boolean,
): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  rules.forEach((later, j) => {
    if (!later.decides || skip(j)) return;
    const earlier = rules
      .slice(0, j)
      .find((d, i) => alwaysDecides(d) && !skip(i) && covers(d, inputs[i].when ?? {}, later, inputs[j].when ?? {}));
    if (!earlier) return;
    issues.push({
      path: ['rules', j],
      message: `impossible: ${quotedLabel(earlier)} before it decides every request this rule matches (it has no after, times or every): put this rule first, or narrow that one's when`,
    });
  });
  return issues;
}

function alwaysDecides(rule: CompiledRule): boolean {
  return rule.decides && rule.after === 0 && rule.times === undefined && rule.every === undefined;
}

function quotedLabel(rule: CompiledRule): string {
  return rule.label === `rule ${rule.index + 1}`
    ? `rules[${rule.index}]`
    : `rules[${rule.index}] (${JSON.stringify(rule.label)})`;
}

/** Whether every request that `b` (with `bw`) matches is matched by `a` (with `aw`). */
function covers(a: CompiledRule, aw: When, b: CompiledRule, bw: When): boolean {
  return (
    same(aw.endpoint, bw.endpoint) &&
    same(aw.type, bw.type) &&
    same(aw.apiUser, bw.apiUser) &&
    same(aw.challengeType, bw.challengeType) &&
    patternCovers(aw.svcUser, bw.svcUser) &&
    Object.entries(aw.headers ?? {}).every(([name, pattern]) => patternCovers(pattern, headerOf(bw, name))) &&
    // A rule forcing a code matches only the operations it exists for.
    (a.ops === undefined || (b.ops !== undefined && [...b.ops].every((op) => a.ops!.has(op))))
  );
}

/** A condition of `a` is met by every request of `b` when `a` has none, or `b` has the same. */
function same<T>(a: T | undefined, b: T | undefined): boolean {
  return a === undefined || a === b;
}

function patternCovers(a: string | undefined, b: string | undefined): boolean {
  return a === undefined || (b !== undefined && (a === '*' || a.toLowerCase() === b.toLowerCase()));
}

function headerOf(w: When, name: string): string | undefined {
  const key = Object.keys(w.headers ?? {}).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : w.headers![key];
}
