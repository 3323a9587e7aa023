import { closeSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as YAML from 'yaml';
import { parseAuthorization } from '../auth/signature.js';
import { codeInfo } from '../contract/codes.js';
import { API_USER_ID } from '../contract/api-user.js';
import { CHALLENGE_TYPES, endpointOf, endpointTypes, peek, peekedUser } from '../contract/envelope.js';
import { OptionsError } from '../contract/errors.js';
import { makeFolders } from '../files/folders.js';
import { compileScenario, type CompiledScenario } from '../scenario/compile.js';
import { MAX_SCENARIO_BYTES } from '../scenario/files.js';
import type { RuleInput, ScenarioInput } from '../scenario/schema.js';
import { lazy } from '../files/lazy.js';
import { clip } from '../run/journal.js';
import type { Simulator } from '../simulator/simulator.js';
import { addTo, openToAdd, writeProblem, writeWhole } from '../files/write-file.js';
import { answerText, type SeenAnswer } from './judge.js';
import { rawHeader } from './upstream.js';

// The recorder of proxy mode (`--record <dir>`, docs/proxy.md).

const yaml = lazy<typeof YAML>('yaml');

const MAX_RULES = 1000;
/** Raw exchanges written at most, and the bytes of their file; each body is cut to BODY_CHARS. */
const MAX_EXCHANGES = 10_000;
const MAX_EXCHANGE_BYTES = 64 * 1024 * 1024;
const BODY_CHARS = 16 * 1024;
/** What the description may add once the recording stopped growing, besides the numbers in it (bytes). */
const STOPPED_MARGIN = 64;
/** The scenario is written this long after a change (and at close), not on every request. */
const WRITE_DELAY_MS = 200;
const REMOVED = '[removed]';
/** Each string on one line; each rule an item of `rules` at the left margin, so that its text stands alone. */
const YAML_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false, indentSeq: false } as const;

type When = NonNullable<RuleInput['when']>;
type Outcome = Pick<RuleInput, 'respond' | 'fault' | 'delay'>;

/** A rule of the recording, its text made when it is added. */
type Rule = { outcome: Outcome; times: number; label: string; text: string };

/** One forwarded request: the upstream's answer. */
export interface RecordedExchange {
  seq: number;
  request: { method: string; url: string; headers: string[]; body: string };
  answer: (SeenAnswer & { headers: string[] }) | { failure: string };
  http: number;
  code?: number;
}

export class Recorder {
  /** The scenario in force at start: its token, names, strictness and response style are the recording's. */
  private readonly of: CompiledScenario;
  private readonly scenarioFile: string;
  private readonly exchangesFile: string;
  private exchangesFd: number | undefined;
  /** The rules of each kind of request (its `when` as JSON), in the order they came. */
  private readonly kinds = new Map<string, { when: When; rules: Rule[] }>();
  private rules = 0;
  private ruleBytes = 0;
  /** The bytes the rules may take: the file's bound less its header and top keys at their longest. */
  private readonly room: number;
  private exchanges = 0;
  private exchangeBytes = 0;
  private stopped: string | undefined;
  private lastSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private broken = false;

  /** Refuses a folder that holds a recording already, or cannot be written: at start, not at the first request. */
  constructor(
    dir: string,
    private readonly upstream: string,
    private readonly sim: Simulator,
  ) {
    this.of = sim.scenario;
    this.scenarioFile = join(dir, 'scenario.yaml');
    this.exchangesFile = join(dir, 'exchanges.jsonl');
    const refused = (message: string) => new OptionsError([{ path: ['record'], message }]);
    for (const file of [this.scenarioFile, this.exchangesFile])
      if (lstatSync(file, { throwIfNoEntry: false }))
        throw refused(`${file} exists: a recording is never written over; remove it or choose another folder`);
    const longest = this.text(this.stoppedAt(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
    this.room = MAX_SCENARIO_BYTES - Buffer.byteLength(longest) - STOPPED_MARGIN;
    try {
      makeFolders(dir);
      this.exchangesFd = openToAdd(this.exchangesFile, true);
      writeWhole(this.scenarioFile, this.text());
    } catch (e) {
      if (this.exchangesFd !== undefined) closeSync(this.exchangesFd);
      throw refused(`${dir} cannot be written (${(e as NodeJS.ErrnoException).code ?? writeProblem(e)})`);
    }
  }

  /** Records one exchange: a line of the raw file, and a rule (or one more time of the last) in the scenario. */
  add(x: RecordedExchange): void {
    this.lastSeq = x.seq;
    const scrub = this.scrubber(x);
    if (this.exchanges < MAX_EXCHANGES && this.exchangeBytes < MAX_EXCHANGE_BYTES) {
      const line = `${JSON.stringify(rawExchange(x, scrub, this.of.token))}\n`;
      // After close (a request still on its way), the file is opened again, without following a link.
      const fd = this.exchangesFd;
      this.attempt(() => (fd === undefined ? addTo(this.exchangesFile, line) : writeFileSync(fd, line)));
      this.exchanges++;
      this.exchangeBytes += Buffer.byteLength(line);
    }
    const when = whenOf(x.request, this.of);
    if (!when || this.stopped) return;
    const outcome = this.replayable(when, outcomeOf(x, scrub));
    const label = `recorded #${x.seq}: ${x.request.method} ${when.endpoint} -> ${describe(outcome, x.code)}`;
    if (!this.addRule(when, outcome, label)) this.stopped = this.stoppedAt(x.seq, this.rules);
    if (this.closed) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), WRITE_DELAY_MS).unref();
  }

  /** Writes the scenario a last time and lets go of the exchanges' file. */
  close(): void {
    this.flush();
    this.closed = true;
    if (this.exchangesFd !== undefined) closeSync(this.exchangesFd);
    this.exchangesFd = undefined;
  }

  /** Writes the scenario as it stands: beside its file, then renamed over it, never over anything else. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.attempt(() => writeWhole(this.scenarioFile, this.text()));
  }

  /** Runs a write, unless one failed already; a failure stops the recording and is reported once, never thrown. */
  private attempt(write: () => void): void {
    if (this.broken) return;
    try {
      write();
    } catch (e) {
      this.broken = true;
      const error = new Error(`the recording in ${this.scenarioFile} stopped: ${writeProblem(e)}`);
      this.sim.run.failures.record('recorder', error, this.lastSeq);
    }
  }

  private stoppedAt(seq: number, rules: number): string {
    return `Recording stopped growing at request ${seq}: ${rules} rules, as much as one scenario file holds. The exchanges after it are in ${this.exchangesFile}.`;
  }

  /** The file's text: a header, the top keys, and the rules, the most specific kinds of request first. */
  private text(stopped = this.stopped): string {
    const { upstream, of } = this;
    const header = `# Recorded by mfa-sim in proxy mode from ${upstream}: the service's answers, every secret, signature and nonce removed.\n`;
    const recorded = `What ${upstream} answered, recorded by mfa-sim (${this.exchanges} request${this.exchanges === 1 ? '' : 's'}). Run it with the API user's id and secret: mfa-sim --scenario ${this.scenarioFile} --api-user <id> --secret <secret>.`;
    const description = stopped ? `${recorded} ${stopped}` : recorded;
    const { token, strict, responseStyle } = of;
    const top: Omit<ScenarioInput, 'rules'> = { name: 'recorded', description, token, strict, responseStyle };
    const kinds = [...this.kinds.values()].sort((a, b) => Object.keys(b.when).length - Object.keys(a.when).length);
    const rules = kinds.flatMap((k) => k.rules.map((r) => r.text)).join('');
    return `${header}${yaml().stringify(top, YAML_OPTIONS)}${rules ? `rules:\n${rules}` : 'rules: []\n'}`;
  }

  /** One more answer to a kind of request. */
  private addRule(when: When, outcome: Outcome, label: string): boolean {
    const key = JSON.stringify(when);
    const kind = this.kinds.get(key);
    const last = kind?.rules.at(-1);
    if (last && JSON.stringify(last.outcome) === JSON.stringify(outcome)) {
      last.times++;
      return true;
    }
    const rule = { outcome, times: 1, label, text: ruleText(when, outcome, label) };
    // The rule before it now says how many times it answers.
    const before = last && ruleText(when, last.outcome, last.label, last.times);
    const more = Buffer.byteLength(rule.text) + (before ? Buffer.byteLength(before) - Buffer.byteLength(last.text) : 0);
    if (this.rules >= MAX_RULES || this.ruleBytes + more > this.room) return false;
    if (before) last.text = before;
    if (kind) kind.rules.push(rule);
    else this.kinds.set(key, { when, rules: [rule] });
    this.rules++;
    this.ruleBytes += more;
    return true;
  }

  /** The outcome as a rule can give it for these requests, or -5000 saying what the service did. */
  private replayable(when: When, outcome: Outcome): Outcome {
    const rule = { when, ...outcome };
    if (compileScenario({ name: 'check', token: this.of.token, rules: [rule] }).issues.length === 0) return outcome;
    const message = `Internal error: the service answered code ${outcome.respond?.code}, which the code table does not give to these requests`;
    return { respond: { code: -5000, message } };
  }

  /** This exchange's text as the files keep it. */
  private scrubber(x: RecordedExchange): (text: string) => string {
    const signature = parseAuthorization(rawHeader(x.request.headers, 'authorization') ?? '', this.of.token)?.signature;
    const nonce = rawHeader(x.request.headers, this.of.names.nonce);
    const removed = [signature, nonce].filter((v): v is string => v !== undefined && v.length >= 4);
    return (text) => removed.reduce((out, value) => out.split(value).join(REMOVED), this.sim.redact(text));
  }
}

/** A rule's text as an item of the file's `rules` (`times` said once it is no longer the last of its kind). */
function ruleText(when: When, outcome: Outcome, label: string, times?: number): string {
  return yaml().stringify([{ name: label, when, ...(times ? { times } : {}), ...outcome }], YAML_OPTIONS);
}

/** The exchange as the raw file keeps it: scrubbed (header names too: a client chooses them), bodies cut. */
function rawExchange(x: RecordedExchange, scrub: (text: string) => string, token: string): Record<string, unknown> {
  const cut = (text: string) => clip(scrub(text), BODY_CHARS);
  const headers = (raw: readonly string[]) => {
    const out: [string, string][] = [];
    for (let i = 0; i + 1 < raw.length; i += 2)
      out.push([scrub(raw[i]), removedValue(raw[i].toLowerCase(), raw[i + 1], token) ?? cut(raw[i + 1])]);
    return out;
  };
  const { request: r, answer: a } = x;
  return {
    seq: x.seq,
    at: new Date().toISOString(),
    request: { method: r.method, path: cut(r.url), headers: headers(r.headers), body: cut(r.body) },
    ...('failure' in a
      ? { failure: a.failure }
      : { response: { status: a.status, headers: headers(a.headers), body: cut(a.body) } }),
    sent: { http: x.http, code: x.code },
  };
}

/** A header whose value is a credential, a signature or a nonce: what the raw file keeps of it. */
function removedValue(name: string, value: string, token: string): string | undefined {
  if (name === 'authorization') {
    const parts = parseAuthorization(value, token);
    if (!parts) return REMOVED;
    const kept = Object.entries(parts).map(([k, v]) => `${k}=${k === 'signature' ? REMOVED : v}`);
    return `${token}-hmac: ${kept.join(',')}`;
  }
  const secret = ['cookie', 'set-cookie', 'x-sim-control-token', 'proxy-authorization'];
  return name.endsWith('-cnonce') || name.endsWith('-nonce') || secret.includes(name) ? REMOVED : undefined;
}

/** The keys that tell one kind of request from another, as a rule's `when`: undefined when no rule can match it. */
function whenOf(req: RecordedExchange['request'], of: CompiledScenario): When | undefined {
  const endpoint = endpointOf(req.url, of.token);
  if (!endpoint) return undefined;
  // Read as a replay reads it when it picks a rule, before authentication.
  const looked = peek(req.body, of.names.userKey, false);
  const when: When = { endpoint };
  if (looked.type !== undefined && endpointTypes(endpoint, of.strict).includes(looked.type)) when.type = looked.type;
  const apiUser = rawHeader(req.headers, of.names.apiUser);
  if (apiUser !== undefined && API_USER_ID.test(apiUser)) when.apiUser = apiUser;
  const user = peekedUser(looked);
  if (user !== undefined && endpoint !== 'time' && when.type !== 990)
    when.svcUser = user.replace(/[\\*?[\]{}]/g, '\\$&');
  const challengeType = looked.challengeType ?? '';
  if (when.type === 150 && (CHALLENGE_TYPES as readonly string[]).includes(challengeType))
    when.challengeType = challengeType;
  return when;
}

/** What a rule answers for this exchange, before it is checked against what rules can do. */
function outcomeOf(x: RecordedExchange, scrub: (text: string) => string): Outcome {
  const { answer: a, code } = x;
  if ('failure' in a) return { respond: { code: -5000, message: `Internal error: ${a.failure}` } };
  const said = a.envelope?.message;
  if (code !== undefined && codeInfo(code)?.http === a.status) {
    // The replay answers the time live: a recorded one would be stale at once.
    if (code === 15000 || typeof said !== 'string') return { respond: { code } };
    // A message that quotes the request's nonce or signature (a -4037's string to sign) cannot be written.
    const message = scrub(said);
    return message.includes(REMOVED) ? { delay: 0 } : { respond: { code, message } };
  }
  if (code === undefined && (a.status === 502 || a.status === 503 || a.status === 504))
    return { fault: `proxy-${a.status}` as RuleInput['fault'] };
  return { respond: { code: -5000, message: `Internal error: the service answered ${scrub(answerText(a))}` } };
}

function describe(o: Outcome, code: number | undefined): string {
  return o.fault ?? (o.respond ? String(o.respond.code) : `${code}, left to mfa-sim's own checks`);
}
