import { ACCOUNT_STATES, codeInfo, type Operation } from '../codes.js';
import { closest } from '../closest.js';
import { isEmail } from '../contract/envelope.js';
import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import { CHALLENGE_TYPES, TYPE_OPERATION, endpointTypes, type Endpoint } from '../contract/operations.js';
import { AccountBook, foldedValueMatcher, isGlob, type AccountEntry } from '../world/accounts.js';
import { GlobError } from '../world/glob.js';
import { IpRules, parseRange } from '../world/ip.js';
import type { ScenarioIssue } from '../errors.js';
import {
  ANSWERING_FAULTS,
  PERMISSIONS,
  type AuthMode,
  type Fault,
  type Permission,
  type RuleInput,
  type ScenarioInput,
} from './schema.js';
import { mend } from './mend.js';
import { shadowedRules } from './shadows.js';
import { checkShape, MAX_ISSUES } from './validate.js';
import { HmacKey } from '../auth/hmac-key.js';
import { tokenNames, type TokenNames } from '../auth/signature.js';
import {
  boundedDuration,
  boundedInstant,
  INSTANT_WORDS,
  isInstantInRange,
  LIMITS,
  type DurationLimit,
} from '../world/time-limits.js';

/**
 * Compiling a scenario (docs/behaviour.md#scenarios-and-forced-codes): checked against the schema, then every value
 * given its meaning (durations, accounts, API users, rules that could never match), into the typed object the simulator
 * runs.
 */

/** An API user as the simulator uses it. */
export interface ApiUser {
  id: string;
  secret: string;
  /** The secret (UTF-8) as an HMAC key, its pads hashed once. */
  key: HmacKey;
  state: string;
  permissions: ReadonlySet<Permission>;
  ipRules?: IpRules;
}

/** A rule ready to match requests. */
export interface CompiledRule {
  index: number;
  /** `name`, or "rule N" (1-based). */
  label: string;
  endpoint?: Endpoint;
  type?: number;
  apiUser?: string;
  /** Takes the user folded (fold-case.ts), as `headers` take their values. */
  user?: (folded: string) => boolean;
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

/** A scenario with defaults applied and every value parsed: what the simulator runs. */
export interface CompiledScenario {
  name: string;
  description?: string;
  /** The scenario as given (for listing and for the dashboard). */
  input: ScenarioInput;
  token: string;
  /** The header names and Authorization values the token makes, made once here for every request. */
  names: TokenNames;
  strict: boolean;
  responseStyle: 'document' | 'sdk';
  /** A refusal's message carries the client doctor's hint. */
  hints: boolean;
  auth: AuthMode;
  offset: number;
  maxDrift: number;
  frozenAt?: number;
  replayNonces: boolean;
  replayTimestamps: boolean;
  /** Undefined: the simulator's default API user. */
  apiUsers?: ReadonlyMap<string, ApiUser>;
  accounts: AccountBook;
  autoVerifyDelay: number;
  rules: CompiledRule[];
}

const DEFAULT_MAX_DRIFT = 300_000;
const DEFAULT_AUTO_VERIFY_DELAY = 2_000;
const TOKEN = /^[a-z][a-z0-9]{0,31}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** An API user record from its parts. */
export function makeApiUser(
  id: string,
  secret: string,
  state = 'active',
  permissions: Iterable<Permission> = PERMISSIONS,
  ipRules?: IpRules,
): ApiUser {
  return {
    id,
    secret,
    key: new HmacKey(Buffer.from(secret, 'utf8')),
    state,
    permissions: new Set(permissions),
    ipRules,
  };
}

/**
 * Checks a scenario (shape, then meaning: durations, codes, ids, address blocks, rules that could never
 * match) and compiles it. Problems come back as issues with key paths; nothing is half-applied.
 */
export function compileScenario(value: unknown): { scenario?: CompiledScenario; issues: ScenarioIssue[] } {
  const shape = checkShape(value);
  if (shape.length === 0) return compileChecked(value as ScenarioInput);
  // Every problem in one pass: those of shape, and those of meaning in the parts of the scenario that were read whole.
  const { issues, mended } = mend(value, shape);
  const all = mended ? [...issues, ...mended.keep(compileChecked(mended.value, mended.rulesWhole).issues)] : issues;
  return { issues: all.slice(0, MAX_ISSUES) };
}

/**
 * Gives the values of a scenario of the right shape their meaning. `rulesWhole`: no rule had a value set aside, so
 * which rule shadows which can be told.
 */
function compileChecked(
  input: ScenarioInput,
  rulesWhole = true,
): { scenario?: CompiledScenario; issues: ScenarioIssue[] } {
  const issues: ScenarioIssue[] = [];
  const fail = (path: (string | number)[], message: string) => {
    issues.push({ path, message });
  };

  const token = input.token ?? 'svc';
  if (!TOKEN.test(token))
    fail(['token'], 'must be lower-case letters and digits, starting with a letter (it becomes part of header names)');

  const offset = duration(input.clock?.offset, 0, ['clock', 'offset'], LIMITS.offset, fail);
  const maxDrift = duration(input.clock?.maxDrift, DEFAULT_MAX_DRIFT, ['clock', 'maxDrift'], LIMITS.maxDrift, fail);
  let frozenAt: number | undefined;
  if (input.clock?.frozenAt !== undefined) {
    const read = boundedInstant(input.clock.frozenAt);
    if ('problem' in read) fail(['clock', 'frozenAt'], read.problem);
    else if (!isInstantInRange(read.ms + offset))
      fail(
        ['clock', 'frozenAt'],
        `with clock.offset added, the clock would start outside its range (${INSTANT_WORDS})`,
      );
    else frozenAt = read.ms;
  }

  let apiUsers: Map<string, ApiUser> | undefined;
  if (input.apiUsers) {
    apiUsers = new Map();
    input.apiUsers.forEach((u, i) => {
      if (!API_USER_ID.test(u.id)) fail(['apiUsers', i, 'id'], API_USER_ID_RULE);
      else if (apiUsers!.has(u.id)) fail(['apiUsers', i, 'id'], `API user ${u.id} is listed twice`);
      let ipRules: IpRules | undefined;
      if (u.ipRules) {
        const ranges = (list: string[] | undefined, key: 'block' | 'allow') =>
          (list ?? []).flatMap((text, j) => {
            const r = parseRange(text);
            if (!r) fail(['apiUsers', i, 'ipRules', key, j], `\`${text}\` is not an IPv4 address or CIDR block`);
            return r ? [r] : [];
          });
        ipRules = new IpRules(ranges(u.ipRules.block, 'block'), ranges(u.ipRules.allow, 'allow'));
      }
      apiUsers!.set(u.id, makeApiUser(u.id, u.secret, u.state ?? 'active', u.permissions ?? PERMISSIONS, ipRules));
    });
  }

  const stateCode = (ref: string | number, path: (string | number)[]): number => {
    if (typeof ref === 'number') {
      if (codeInfo(ref)?.check === 'account') return ref;
      fail(path, `${ref} is not an account code (${[...ACCOUNT_STATES.values()].join(', ')})`);
      return 0;
    }
    if (ref === 'active') return 0;
    const code = ACCOUNT_STATES.get(ref);
    if (code !== undefined) return code;
    if (/^-2\d{3}$/.test(ref) && codeInfo(Number(ref))?.check === 'account') return Number(ref);
    const near = closest(ref, ['active', ...ACCOUNT_STATES.keys()]);
    fail(
      path,
      `unknown account state \`${ref}\` (${near ? `did you mean "${near}"? ` : ''}one of: active, ${[...ACCOUNT_STATES.keys()].join(', ')})`,
    );
    return 0;
  };
  const accountEntries: AccountEntry[] = Object.entries(input.accounts ?? {}).map(([email, ref]) => {
    // The key first, then its state, as the problems are read: a glob compiled once, here, for the account book.
    const matchFolded = isGlob(email) ? matcherOf(email, ['accounts', email], fail) : undefined;
    // An exact e-mail the service would refuse (-5079) is an account no request can reach: said now, not never.
    if (!isGlob(email) && !isEmail(email))
      fail(
        ['accounts', email],
        'must be an e-mail address a request can carry (ASCII, name@domain.tld, as -5079 checks) or a glob such as "*@example.com"',
      );
    return { key: email, code: stateCode(ref, ['accounts', email]), matchFolded };
  });
  const fallback = stateCode(input.defaultAccountState ?? 'active', ['defaultAccountState']);

  const autoVerifyDelay = duration(
    input.autoVerify?.delay,
    DEFAULT_AUTO_VERIFY_DELAY,
    ['autoVerify', 'delay'],
    LIMITS.autoVerifyDelay,
    fail,
  );

  const rules = (input.rules ?? []).map((r, i) => compileRule(r, i, apiUsers, fail));
  if (rulesWhole) {
    const broken = new Set(issues.filter((i) => i.path[0] === 'rules').map((i) => i.path[1]));
    issues.push(...shadowedRules(rules, input.rules ?? [], (i) => broken.has(i)));
  }

  if (issues.length) return { issues };
  return {
    issues,
    scenario: {
      name: input.name,
      description: input.description,
      input,
      token,
      names: tokenNames(token),
      strict: input.strict ?? false,
      responseStyle: input.responseStyle ?? 'document',
      hints: input.hints ?? true,
      auth: input.auth ?? 'verify',
      offset,
      maxDrift,
      frozenAt,
      replayNonces: input.replay?.nonces ?? true,
      replayTimestamps: input.replay?.timestamps ?? true,
      apiUsers,
      accounts: new AccountBook(accountEntries, fallback),
      autoVerifyDelay,
      rules,
    },
  };
}

type Fail = (path: (string | number)[], message: string) => void;

/**
 * A duration key: its value in ms within its limit, or the fallback when absent; a problem names the key and the range.
 */
function duration(
  v: number | string | undefined,
  fallback: number,
  path: (string | number)[],
  bound: DurationLimit,
  fail: Fail,
): number {
  if (v === undefined) return fallback;
  const read = boundedDuration(v, bound);
  if ('problem' in read) {
    fail(path, read.problem);
    return fallback;
  }
  return read.ms;
}

/**
 * The matcher of a value that is exact or a glob (taking values folded); a glob that cannot be used (too long, too
 * many alternatives) is reported as a problem of its key, and has none.
 */
function matcherOf(pattern: string, path: (string | number)[], fail: Fail): ((folded: string) => boolean) | undefined {
  try {
    return foldedValueMatcher(pattern);
  } catch (e) {
    if (!(e instanceof GlobError)) throw e;
    fail(path, e.message);
    return undefined;
  }
}

function compileRule(
  r: RuleInput,
  index: number,
  apiUsers: Map<string, ApiUser> | undefined,
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
