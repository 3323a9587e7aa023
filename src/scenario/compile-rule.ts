import { codeInfo, type Operation } from '../codes.js';
import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import { CHALLENGE_TYPES, TYPE_OPERATION, endpointTypes, type Endpoint } from '../contract/operations.js';
import { isGlob, MAX_GLOB_LENGTH, valueMatcher } from '../world/glob.js';
import { boundedDuration, LIMITS } from '../world/time-limits.js';
import { ANSWERING_FAULTS, type Fault, type RuleInput } from './schema.js';

/**
 * Compiling one rule of a scenario: what a request must be for it to match, what it does, and every way it could
 * never match named as a problem at load (docs/behaviour.md#scenarios-and-forced-codes).
 */

/** A problem found while compiling, at a path of the scenario's keys; compiling goes on, to report them all at once. */
export type Fail = (path: (string | number)[], message: string) => void;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A rule ready to match requests. */
export interface CompiledRule {
  index: number;
  /** `name`, or "rule N" (1-based). */
  label: string;
  endpoint?: Endpoint;
  type?: number;
  apiUser?: string;
  user?: (value: string) => boolean;
  challengeType?: string;
  headers?: [string, (value: string) => boolean][];
  /** The operations the forced code exists on (from the code table); undefined: every request. */
  ops?: ReadonlySet<Operation>;
  after: number;
  times?: number;
  every?: number;
  respond?: { code: number; message?: string };
  delay?: { min: number; max: number };
  fault?: Fault;
  hangMs: number;
  /**
   * Whether the rule decides the answer (it forces a code, or a fault that keeps the request from the service). A rule
   * that only delays or garbles the answer (truncate, garbage) does not: it composes with the one that decides.
   */
  decides: boolean;
}

/**
 * The case-insensitive matcher of a value that is exact or a glob; a glob too long is reported as a problem of its
 * key, and has none.
 */
export function matcherOf(
  pattern: string,
  path: (string | number)[],
  fail: Fail,
): ((value: string) => boolean) | undefined {
  if (!isGlob(pattern) || pattern.length <= MAX_GLOB_LENGTH) return valueMatcher(pattern);
  fail(path, `a glob is at most ${MAX_GLOB_LENGTH} characters`);
  return undefined;
}

export function compileRule(
  r: RuleInput,
  index: number,
  apiUsers: ReadonlyMap<string, unknown> | undefined,
  fail: Fail,
): CompiledRule {
  const at = (...rest: (string | number)[]) => ['rules', index, ...rest];
  const w = r.when ?? {};
  const decides = r.respond !== undefined || (r.fault !== undefined && !ANSWERING_FAULTS.has(r.fault));
  const rule: CompiledRule = {
    index,
    label: r.name ?? `rule ${index + 1}`,
    after: r.after ?? 0,
    times: r.times,
    every: r.every,
    hangMs: 60_000,
    decides,
  };

  // What the request must be: endpoint, type, and the operations they allow.
  let ops = new Set<Operation>(['challenge', 'cancel', 'time', 'status', 'verify', 'blocked']);
  if (w.endpoint) {
    rule.endpoint = w.endpoint;
    ops = new Set(endpointTypes(w.endpoint, false).map((t) => TYPE_OPERATION.get(t)!));
  }
  if (w.type !== undefined) {
    const op = TYPE_OPERATION.get(w.type);
    if (!op) fail(at('when', 'type'), `${w.type} is not an operation type (150, 151, 990, 171, 170, 950)`);
    else if (!ops.has(op))
      fail(at('when', 'type'), `impossible: type ${w.type} is never sent to /v1/svc/${w.endpoint}`);
    else ops = new Set([op]);
    rule.type = w.type;
  }
  if (w.apiUser !== undefined) {
    if (!API_USER_ID.test(w.apiUser)) fail(at('when', 'apiUser'), API_USER_ID_RULE);
    else if (apiUsers && !apiUsers.has(w.apiUser))
      fail(at('when', 'apiUser'), `impossible: API user ${w.apiUser} is not in this scenario's apiUsers`);
    rule.apiUser = w.apiUser;
  }
  if (w.svcUser !== undefined) {
    ops.delete('time');
    if (ops.size === 0) fail(at('when', 'svcUser'), 'impossible: time requests carry no user');
    rule.user = matcherOf(w.svcUser, at('when', 'svcUser'), fail);
  }
  if (w.challengeType !== undefined) {
    if (!(CHALLENGE_TYPES as readonly string[]).includes(w.challengeType)) {
      fail(at('when', 'challengeType'), `\`${w.challengeType}\` is not one of ${CHALLENGE_TYPES.join(', ')}`);
    } else if (!ops.has('challenge')) {
      fail(at('when', 'challengeType'), 'impossible: only new challenges (type 150) carry a challengeType');
    }
    ops = new Set(ops.has('challenge') ? ['challenge'] : []);
    rule.challengeType = w.challengeType;
  }
  if (w.headers) {
    rule.headers = Object.entries(w.headers).map(([name, pattern]) => {
      if (!HEADER_NAME.test(name)) fail(at('when', 'headers', name), 'is not a valid header name');
      return [name.toLowerCase(), matcherOf(pattern, at('when', 'headers', name), fail) ?? (() => false)];
    });
  }

  // What the rule does.
  if (r.respond) {
    const info = codeInfo(r.respond.code);
    if (!info) {
      fail(at('respond', 'code'), `${r.respond.code} is not a code of the code table (see \`mfa-sim --codes\`)`);
    } else if (info.scope) {
      const possible = info.scope.filter((op) => ops.has(op));
      if (possible.length === 0) {
        fail(
          at('respond', 'code'),
          `impossible: ${info.code} is answered only to ${info.scope.join(', ')} requests, and this rule matches none`,
        );
      }
      rule.ops = new Set(possible);
    }
    rule.respond = { code: r.respond.code, message: r.respond.message };
  }
  if (r.delay !== undefined) {
    const range = typeof r.delay === 'object' ? r.delay : { min: r.delay, max: r.delay };
    const min = boundedDuration(range.min, LIMITS.delay);
    const max = boundedDuration(range.max, LIMITS.delay);
    if ('problem' in min) fail(at('delay', ...(typeof r.delay === 'object' ? ['min'] : [])), min.problem);
    else if ('problem' in max) fail(at('delay', 'max'), max.problem);
    else if (max.ms < min.ms) fail(at('delay'), 'must not be negative, and min must not exceed max');
    else rule.delay = { min: min.ms, max: max.ms };
  }
  if (r.fault) {
    rule.fault = r.fault;
    if (r.respond && !ANSWERING_FAULTS.has(r.fault)) {
      fail(at('respond'), `has no effect: fault ${r.fault} never sends the service's answer`);
    }
  }
  if (r.hangFor !== undefined) {
    const h = boundedDuration(r.hangFor, LIMITS.delay);
    if (r.fault !== 'hang') fail(at('hangFor'), 'only applies with fault: hang');
    else if ('problem' in h) fail(at('hangFor'), h.problem);
    else rule.hangMs = h.ms;
  }
  if (!r.respond && r.delay === undefined && !r.fault)
    fail(at(), 'does nothing: give it `respond`, `delay` or `fault`');
  if (r.every !== undefined && r.times !== undefined && r.every > r.times) {
    fail(at('every'), `impossible: every ${r.every}th request within only ${r.times}`);
  }
  return rule;
}
