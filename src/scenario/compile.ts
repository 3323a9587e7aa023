import { BlockList, isIPv4 } from 'node:net';
import { tokenNames, type TokenNames } from '../auth/signature.js';
import { closest } from '../output/closest.js';
import { ACCOUNT_STATES, codeInfo } from '../contract/codes.js';
import { API_USER_ID, API_USER_ID_RULE } from '../contract/api-user.js';
import { isEmail } from '../contract/envelope.js';
import type { ScenarioIssue } from '../contract/errors.js';
import { isGlob } from './glob.js';
import { INSTANT_WORDS, isInstantInRange } from '../contract/response.js';
import { boundedDuration, boundedInstant, LIMITS, type DurationLimit } from '../contract/time-limits.js';
import { accountBook, personBook, wordScript, type AccountBook, type PersonBook } from './accounts.js';
import type { PersonScript, ScriptedPress } from './accounts.js';
import { mend } from './mend.js';
import { compileRule, matcherOf, shadowedRules, type CompiledRule, type Fail } from './rules.js';
import { PERMISSIONS, type AuthMode, type Permission, type ScenarioInput } from './schema.js';
import { checkShape, MAX_ISSUES } from './validate.js';

/** An API user as the simulator uses it. */
export interface ApiUser {
  id: string;
  secret: string;
  state: string;
  permissions: ReadonlySet<Permission>;
  ipRules?: IpRules;
}

/** A scenario checked (shape, then meaning), defaults applied: what the simulator runs (docs/behaviour.md). */
export interface CompiledScenario {
  name: string;
  description?: string;
  /** The scenario as given (for listing and for the dashboard). */
  input: ScenarioInput;
  token: string;
  /** The header names and Authorization values the token makes. */
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
  /** What each person does with a challenge made for them (`people:`, then the magic addresses). */
  people: PersonBook;
  autoVerifyDelay: number;
  rules: CompiledRule[];
}

type Range = { address: string; prefix: number };

/** Parses an IPv4 address or CIDR block (`a.b.c.d/n`); undefined when it is neither. */
function parseRange(text: string): Range | undefined {
  const [address, bits, ...more] = text.split('/');
  if (more.length > 0 || !isIPv4(address)) return undefined;
  if (bits === undefined) return { address, prefix: 32 };
  if (!/^\d{1,2}$/.test(bits) || Number(bits) > 32) return undefined;
  return { address, prefix: Number(bits) };
}

/** An API user's IPv4 rules (docs/behaviour.md#accounts-and-api-users): blocked unless allowed. */
export class IpRules {
  private readonly block = new BlockList();
  private readonly allow = new BlockList();
  private readonly allowList: boolean;

  constructor(block: Range[], allow: Range[]) {
    for (const r of block) this.block.addSubnet(r.address, r.prefix, 'ipv4');
    for (const r of allow) this.allow.addSubnet(r.address, r.prefix, 'ipv4');
    this.allowList = allow.length > 0;
  }

  blocks(address: string): boolean {
    if (this.allow.check(address, 'ipv4')) return false;
    return this.allowList || this.block.check(address, 'ipv4');
  }
}

type Compiled = { scenario?: CompiledScenario; issues: ScenarioIssue[] };
const TOKEN = /^[a-z][a-z0-9]{0,31}$/;
const NOT_AN_EMAIL =
  'must be an e-mail address a request can carry (ASCII, name@domain.tld, as -5079 checks) or a glob such as "*@example.com"';

/** An API user record from its parts. */
export function makeApiUser(
  id: string,
  secret: string,
  state = 'active',
  permissions: Iterable<Permission> = PERMISSIONS,
  ipRules?: IpRules,
): ApiUser {
  return { id, secret, state, permissions: new Set(permissions), ipRules };
}

/** Compiles a scenario, or gives every problem in one pass: of shape, and of meaning in the parts read whole. */
export function compileScenario(value: unknown): Compiled {
  const shape = checkShape(value);
  if (shape.length === 0) return compileChecked(value as ScenarioInput);
  const issues = mend(value, shape, (mended, rulesWhole) => compileChecked(mended, rulesWhole).issues);
  return { issues: issues.slice(0, MAX_ISSUES) };
}

/** Gives a scenario of the right shape its meaning; `rulesWhole`: no rule was set aside, so shadows are judged. */
function compileChecked(input: ScenarioInput, rulesWhole = true): Compiled {
  const issues: ScenarioIssue[] = [];
  const fail: Fail = (path, message) => issues.push({ path, message });
  const duration = (
    v: number | string | undefined,
    fallback: number,
    path: (string | number)[],
    limit: DurationLimit,
  ) => {
    const read = v === undefined ? { ms: fallback } : boundedDuration(v, limit);
    if ('problem' in read) fail(path, read.problem);
    return 'ms' in read ? read.ms : fallback;
  };
  const token = input.token ?? 'svc';
  if (!TOKEN.test(token))
    fail(['token'], 'must be lower-case letters and digits, starting with a letter (it becomes part of header names)');
  const offset = duration(input.clock?.offset, 0, ['clock', 'offset'], LIMITS.offset);
  const maxDrift = duration(input.clock?.maxDrift, 300_000, ['clock', 'maxDrift'], LIMITS.maxDrift);
  const frozen = input.clock?.frozenAt === undefined ? undefined : boundedInstant(input.clock.frozenAt);
  const frozenAt = frozen && 'ms' in frozen && isInstantInRange(frozen.ms + offset) ? frozen.ms : undefined;
  const outside = `with clock.offset added, the clock would start outside its range (${INSTANT_WORDS})`;
  if (frozen && frozenAt === undefined) fail(['clock', 'frozenAt'], 'problem' in frozen ? frozen.problem : outside);
  let apiUsers: Map<string, ApiUser> | undefined;
  if (input.apiUsers) {
    const users = (apiUsers = new Map());
    input.apiUsers.forEach((u, i) => {
      if (!API_USER_ID.test(u.id)) fail(['apiUsers', i, 'id'], API_USER_ID_RULE);
      else if (users.has(u.id)) fail(['apiUsers', i, 'id'], `API user ${u.id} is listed twice`);
      const ranges = (key: 'block' | 'allow') =>
        (u.ipRules?.[key] ?? []).flatMap((text, j) => {
          const range = parseRange(text);
          if (!range) fail(['apiUsers', i, 'ipRules', key, j], `\`${text}\` is not an IPv4 address or CIDR block`);
          return range ? [range] : [];
        });
      const ipRules = u.ipRules && new IpRules(ranges('block'), ranges('allow'));
      users.set(u.id, makeApiUser(u.id, u.secret, u.state, u.permissions, ipRules));
    });
  }
  const states = ['active', ...ACCOUNT_STATES.keys()];
  const stateCode = (ref: string | number, path: string[]): number => {
    if (typeof ref === 'number') {
      if (codeInfo(ref)?.check === 'account') return ref;
      fail(path, `${ref} is not an account code (${[...ACCOUNT_STATES.values()].join(', ')})`);
      return 0;
    }
    if (ref === 'active') return 0;
    const code = ACCOUNT_STATES.get(ref) ?? (/^-2\d{3}$/.test(ref) ? Number(ref) : undefined);
    if (code !== undefined && codeInfo(code)?.check === 'account') return code;
    const near = closest(ref, states);
    const hint = `${near ? `did you mean "${near}"? ` : ''}one of: ${states.join(', ')}`;
    fail(path, `unknown account state \`${ref}\` (${hint})`);
    return 0;
  };
  const accountEntries = Object.entries(input.accounts ?? {}).map(([email, ref]) => {
    // The key first, then its state, as the problems are read.
    const matches = isGlob(email) ? matcherOf(email, ['accounts', email], fail) : undefined;
    // An exact e-mail the service would refuse (-5079) is an account no request can reach: said now, not never.
    if (!isGlob(email) && !isEmail(email)) fail(['accounts', email], NOT_AN_EMAIL);
    return { key: email, value: stateCode(ref, ['accounts', email]), matches };
  });
  const people = Object.entries(input.people ?? {}).map(([email, person]) => {
    const path: (string | number)[] = ['people', email];
    const matches = isGlob(email) ? matcherOf(email, path, fail) : undefined;
    if (!isGlob(email) && !isEmail(email)) fail(path, NOT_AN_EMAIL);
    if (typeof person === 'string') return { key: email, value: wordScript(person), matches };
    const presses = person.map((press, i): ScriptedPress => {
      const action = 'approve' in press ? 'approve' : 'deny';
      const afterMs = duration(
        (press as Record<string, string | number>)[action],
        0,
        [...path, i, action],
        LIMITS.press,
      );
      return { action, afterMs };
    });
    // In time order whatever order they are written in: they are pressed in time order.
    const value: PersonScript = presses.sort((a, b) => a.afterMs - b.afterMs);
    return { key: email, value, matches };
  });
  const fallback = stateCode(input.defaultAccountState ?? 'active', ['defaultAccountState']);
  const autoVerifyDelay = duration(input.autoVerify?.delay, 2_000, ['autoVerify', 'delay'], LIMITS.autoVerifyDelay);
  const rules = (input.rules ?? []).map((r, i) => compileRule(r, i, fail, apiUsers));
  if (rulesWhole) {
    const broken = new Set(issues.filter((i) => i.path[0] === 'rules').map((i) => i.path[1]));
    issues.push(...shadowedRules(rules, (i) => broken.has(i)));
  }
  if (issues.length) return { issues };
  const scenario: CompiledScenario = {
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
    accounts: accountBook(accountEntries, fallback),
    people: personBook(people, input.magicAddresses ?? true),
    autoVerifyDelay,
    rules,
  };
  return { issues, scenario };
}
