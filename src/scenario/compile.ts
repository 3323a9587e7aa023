import { ACCOUNT_STATES, codeInfo } from '../codes.js';
import { closest } from '../closest.js';
import { isEmail } from '../contract/envelope.js';
import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import { AccountBook, isGlob, type AccountEntry } from '../world/accounts.js';
import { IpRules, parseRange } from '../world/ip.js';
import type { ScenarioIssue } from '../errors.js';
import { PERMISSIONS, type AuthMode, type Permission, type ScenarioInput } from './schema.js';
import { compileRule, matcherOf, type CompiledRule, type Fail } from './compile-rule.js';
import { mend } from './mend.js';
import { shadowedRules } from './shadows.js';
import { checkShape, MAX_ISSUES } from './validate.js';
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
  state: string;
  permissions: ReadonlySet<Permission>;
  ipRules?: IpRules;
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
    const matches = isGlob(email) ? matcherOf(email, ['accounts', email], fail) : undefined;
    // An exact e-mail the service would refuse (-5079) is an account no request can reach: said now, not never.
    if (!isGlob(email) && !isEmail(email))
      fail(
        ['accounts', email],
        'must be an e-mail address a request can carry (ASCII, name@domain.tld, as -5079 checks) or a glob such as "*@example.com"',
      );
    return { key: email, code: stateCode(ref, ['accounts', email]), matches };
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
