import { codeInfo, OPERATIONS, type Operation } from '../contract/codes.js';
import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import { peekedUser, type Peek } from '../contract/envelope.js';
import { CHALLENGE_TYPES, TYPE_OPERATION, endpointTypes, type Endpoint } from '../contract/envelope.js';
import type { ScenarioIssue } from '../contract/errors.js';
import { isGlob, MAX_GLOB_LENGTH, valueMatcher } from './glob.js';
import { boundedDuration, LIMITS } from '../contract/time-limits.js';
import type { CompiledScenario } from './compile.js';
import { ANSWERING_FAULTS, type Fault, type RuleInput } from './schema.js';

/** A scenario's rules: compiled (one that could never apply is refused), and matched to requests with their counts. */

/** A problem found while compiling, at a key path; compiling goes on, to report them all at once. */
export type Fail = (path: (string | number)[], message: string) => void;
type When = NonNullable<RuleInput['when']>;
type Matcher = (value: string) => boolean;

/** A rule ready to match requests. */
export interface CompiledRule {
  index: number;
  /** `name`, or "rule N" (1-based). */
  label: string;
  /** What a request must be, as written; `user` and `headers` are its globs compiled. */
  when: When;
  user?: Matcher;
  headers?: [string, Matcher][];
  /** The operations the forced code exists on (from the code table); undefined: every request. */
  ops?: ReadonlySet<Operation>;
  after: number;
  times?: number;
  every?: number;
  respond?: { code: number; message?: string };
  delay?: { min: number; max: number };
  fault?: Fault;
  hangMs: number;
  /** It forces a code, or a fault that keeps the request from the service; one that delays or garbles composes. */
  decides: boolean;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The case-insensitive matcher of an exact value or a glob; a glob too long is a problem of its key, and has none. */
export function matcherOf(pattern: string, path: (string | number)[], fail: Fail): Matcher | undefined {
  if (!isGlob(pattern) || pattern.length <= MAX_GLOB_LENGTH) return valueMatcher(pattern);
  fail(path, `a glob is at most ${MAX_GLOB_LENGTH} characters`);
  return undefined;
}

/** Compiles `rules[index]`; `apiUsers`: the scenario's, if it lists some. */
export function compileRule(r: RuleInput, index: number, fail: Fail, apiUsers?: ReadonlyMap<string, unknown>) {
  const bad = (message: string, ...path: (string | number)[]) => fail(['rules', index, ...path], message);
  const { when: w = {}, after = 0, times, every, fault, respond, delay, hangFor } = r;
  const decides = respond !== undefined || (fault !== undefined && !ANSWERING_FAULTS.has(fault));
  const label = r.name ?? `rule ${index + 1}`;
  const rule: CompiledRule = { index, label, when: { ...w }, after, times, every, fault, hangMs: 60_000, decides };
  // The operations a matching request can be, narrowed by each condition.
  let ops = new Set<Operation>(OPERATIONS);
  if (w.endpoint) ops = new Set(endpointTypes(w.endpoint, false).map((t) => TYPE_OPERATION.get(t)!));
  if (w.type !== undefined) {
    const op = TYPE_OPERATION.get(w.type);
    if (!op) bad(`${w.type} is not an operation type (${[...TYPE_OPERATION.keys()].join(', ')})`, 'when', 'type');
    else if (!ops.has(op)) bad(`impossible: type ${w.type} is never sent to /v1/svc/${w.endpoint}`, 'when', 'type');
    else ops = new Set([op]);
  }
  if (w.apiUser !== undefined && !API_USER_ID.test(w.apiUser)) bad(API_USER_ID_RULE, 'when', 'apiUser');
  else if (w.apiUser !== undefined && apiUsers && !apiUsers.has(w.apiUser))
    bad(`impossible: API user ${w.apiUser} is not in this scenario's apiUsers`, 'when', 'apiUser');
  if (w.svcUser !== undefined) {
    ops.delete('time');
    if (ops.size === 0) bad('impossible: time requests carry no user', 'when', 'svcUser');
    rule.user = matcherOf(w.svcUser, ['rules', index, 'when', 'svcUser'], fail);
  }
  if (w.challengeType !== undefined) {
    if (!(CHALLENGE_TYPES as readonly string[]).includes(w.challengeType))
      bad(`\`${w.challengeType}\` is not one of ${CHALLENGE_TYPES.join(', ')}`, 'when', 'challengeType');
    else if (!ops.has('challenge'))
      bad('impossible: only new challenges (type 150) carry a challengeType', 'when', 'challengeType');
    ops = new Set(ops.has('challenge') ? ['challenge'] : []);
  }
  rule.headers = Object.entries(w.headers ?? {}).map(([name, pattern]) => {
    if (!HEADER_NAME.test(name)) bad('is not a valid header name', 'when', 'headers', name);
    return [name.toLowerCase(), matcherOf(pattern, ['rules', index, 'when', 'headers', name], fail) ?? (() => false)];
  });
  if (respond) rule.respond = { code: respond.code, message: respond.message };
  const info = respond && codeInfo(respond.code);
  if (respond && !info)
    bad(`${respond.code} is not a code of the code table (see \`mfa-sim --codes\`)`, 'respond', 'code');
  if (info?.scope) {
    rule.ops = new Set(info.scope.filter((o) => ops.has(o)));
    const message = `impossible: ${info.code} is answered only to ${info.scope.join(', ')} requests, and this rule matches none`;
    if (rule.ops.size === 0) bad(message, 'respond', 'code');
  }
  if (delay !== undefined) {
    const range = typeof delay === 'object' ? delay : { min: delay, max: delay };
    const [min, max] = [boundedDuration(range.min, LIMITS.delay), boundedDuration(range.max, LIMITS.delay)];
    if ('problem' in min) bad(min.problem, 'delay', ...(typeof delay === 'object' ? ['min'] : []));
    else if ('problem' in max) bad(max.problem, 'delay', 'max');
    else if (max.ms < min.ms) bad('must not be negative, and min must not exceed max', 'delay');
    else rule.delay = { min: min.ms, max: max.ms };
  }
  if (respond && fault && !ANSWERING_FAULTS.has(fault))
    bad(`has no effect: fault ${fault} never sends the service's answer`, 'respond');
  if (hangFor !== undefined) {
    const hang = boundedDuration(hangFor, LIMITS.delay);
    if (fault !== 'hang') bad('only applies with fault: hang', 'hangFor');
    else if ('problem' in hang) bad(hang.problem, 'hangFor');
    else rule.hangMs = hang.ms;
  }
  if (!respond && delay === undefined && !fault) bad('does nothing: give it `respond`, `delay` or `fault`');
  if (every !== undefined && times !== undefined && every > times)
    bad(`impossible: every ${every}th request within only ${times}`, 'every');
  return rule;
}

/**
 * A problem for each rule an earlier one always decides before (it matches all the later one matches, and has no
 * `after`, `times` or `every`). Judged on what the rules say: a glob covers another only when the same, or `*`.
 */
export function shadowedRules(rules: CompiledRule[], skip: (index: number) => boolean): ScenarioIssue[] {
  const always = (d: CompiledRule) => d.decides && d.after === 0 && d.times === undefined && d.every === undefined;
  return rules.flatMap((later, j) => {
    if (!later.decides || skip(j)) return [];
    const earlier = rules.slice(0, j).find((d, i) => always(d) && !skip(i) && covers(d, later));
    if (!earlier) return [];
    const name = earlier.label === `rule ${earlier.index + 1}` ? '' : ` (${JSON.stringify(earlier.label)})`;
    const message = `impossible: rules[${earlier.index}]${name} before it decides every request this rule matches (it has no after, times or every): put this rule first, or narrow that one's when`;
    return [{ path: ['rules', j], message }];
  });
}

/** Whether every request that `b` matches is matched by `a`. */
function covers(a: CompiledRule, b: CompiledRule): boolean {
  const [aw, bw] = [a.when, b.when];
  // A condition of `a` is met by every request of `b` when `a` has none, or `b` has the same.
  const same = (key: 'endpoint' | 'type' | 'apiUser' | 'challengeType') => aw[key] === undefined || aw[key] === bw[key];
  const pattern = (x: string | undefined, y: string | undefined) =>
    x === undefined || (y !== undefined && (x === '*' || x.toLowerCase() === y.toLowerCase()));
  const headerOf = (name: string) =>
    Object.entries(bw.headers ?? {}).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return (
    (['endpoint', 'type', 'apiUser', 'challengeType'] as const).every(same) &&
    pattern(aw.svcUser, bw.svcUser) &&
    Object.entries(aw.headers ?? {}).every(([name, p]) => pattern(p, headerOf(name))) &&
    // A rule forcing a code matches only the operations it exists for.
    (a.ops === undefined || (b.ops !== undefined && [...b.ops].every((op) => a.ops!.has(op))))
  );
}

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

/** The rules that apply, as one: the first that decides, with each that only delays or garbles; counts each match. */
export function pickRule(run: Running, subject: RuleSubject): CompiledRule | undefined {
  const applied: CompiledRule[] = [];
  for (const rule of run.sc.rules) {
    if (rule.decides && applied.some((r) => r.decides)) continue;
    if (matches(rule, subject, run.sc.names.apiUser) && appliesNow(rule, ++run.counts[rule.index])) applied.push(rule);
  }
  return applied.length ? composed(applied) : undefined;
}

/** Whether a rule that matched for the `n`th time applies to this request (`after`, `times`, `every`). */
function appliesNow(rule: CompiledRule, n: number): boolean {
  const k = n - rule.after;
  return k > 0 && (rule.times === undefined || k <= rule.times) && (rule.every === undefined || k % rule.every === 0);
}

/** The rules that apply as one: the code and fault of the one that decides, delays added up, the first garbling. */
function composed(rules: CompiledRule[]): CompiledRule {
  const decider = rules.find((r) => r.decides);
  const delays = rules.flatMap((r) => (r.delay ? [r.delay] : []));
  const added = (end: 'min' | 'max') => delays.reduce((n, d) => n + d[end], 0);
  const total = (end: 'min' | 'max') => Math.min(LIMITS.delay.max, added(end));
  return {
    ...(decider ?? rules[0]),
    label: rules.map((r) => r.label).join(' + '),
    delay: delays.length ? { min: total('min'), max: total('max') } : undefined,
    fault: decider?.fault && !ANSWERING_FAULTS.has(decider.fault) ? decider.fault : rules.find((r) => r.fault)?.fault,
  };
}

function matches(rule: CompiledRule, subject: RuleSubject, apiUserHeader: string): boolean {
  const { when: w, user, ops } = rule;
  const { peek, operation } = subject;
  if (w.endpoint !== undefined && w.endpoint !== subject.endpointByPath) return false;
  for (const [name, match] of rule.headers ?? []) {
    const value = subject.header(name);
    if (value === undefined || !headerReadings(value).some((reading) => match(reading))) return false;
  }
  if (w.apiUser !== undefined && (subject.header(apiUserHeader) ?? peek.apiUser) !== w.apiUser) return false;
  if (w.type !== undefined && peek.type !== w.type) return false;
  if (w.challengeType !== undefined && peek.challengeType !== w.challengeType) return false;
  const svcUser = user && peekedUser(peek);
  if (user && (svcUser === undefined || !user(svcUser))) return false;
  return !ops || (operation !== undefined && ops.has(operation));
}

// A byte-order mark is part of the value as sent, not a sign to drop (the decoder would drop a leading one).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A header value as Node gives it (Latin-1, as fetch writes it), and as UTF-8 (as curl writes it) when it is so. */
function headerReadings(value: string): string[] {
  if (!/[\x80-\xff]/.test(value)) return [value];
  try {
    return [value, UTF8.decode(Buffer.from(value, 'latin1'))];
  } catch {
    return [value];
  }
}
