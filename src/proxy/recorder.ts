import type * as YAML from 'yaml';
import { parseAuthorization } from '../auth/authorization.js';
import type { TokenNames } from '../auth/signature.js';
import { codeInfo } from '../codes.js';
import { API_USER_ID } from '../contract/api-user.js';
import { peek, peekedUser } from '../contract/envelope.js';
import { CHALLENGE_TYPES, endpointOf, endpointTypes, type Endpoint } from '../contract/operations.js';
import { compileScenario } from '../scenario/compile.js';
import { MAX_SCENARIO_BYTES } from '../scenario/files.js';
import type { RuleInput, ScenarioInput } from '../scenario/schema.js';
import { lazy } from '../world/lazy.js';
import { RecordedRules, YAML_OPTIONS, type Outcome, type When } from './recorded-rules.js';
import { RecordingFiles } from './recording-files.js';
import { answerText } from './answer-text.js';
import { rawHeader } from './headers.js';
import type { UpstreamAnswer } from './upstream.js';

/**
 * The recorder of proxy mode (`--record <dir>`): what the upstream answered, written as a scenario a fresh simulator
 * replays (`scenario.yaml`) and as the raw exchanges (`exchanges.jsonl`, one JSON object a line), with every secret,
 * signature and nonce removed.
 *
 * The scenario has a rule for each kind of request (endpoint, type, API user, user, challenge type) and each answer
 * it got, in the order they came: a kind of request answered the same way three times, then otherwise, is two rules,
 * the first with `times: 3`; the last answer of a kind goes on being answered. Requests of one kind are told apart by
 * these keys only: a replay that sends them in another order gets the recorded answers in the recorded order.
 * An answer a rule cannot give is written as the nearest one it can: an HTML 502, 503 or 504 as `fault: proxy-50x`;
 * no answer, another page, or a code outside the code table or its operations as -5000 with a message that says what
 * the service did. The time's 15000 is written without its message, so that the replay tells its own time. An answer
 * whose message quoted the request's nonce or signature (a -4037's string to sign) is left to the replay's own checks.
 *
 * The rules and their text are recorded-rules.ts's; the files, recording-files.ts's.
 */

const yaml = lazy<typeof YAML>('yaml');

/** Raw exchanges written at most, and the bytes of the file; each body is cut to BODY_CHARS. */
const MAX_RECORDED_EXCHANGES = 10_000;
const MAX_EXCHANGE_BYTES = 64 * 1024 * 1024;
const BODY_CHARS = 16 * 1024;
const REMOVED = '[removed]';
/** What the stopped scenario's description may add besides the numbers in it (bytes). */
const STOPPED_MARGIN = 64;

/** One forwarded request and what became of it. */
export interface RecordedExchange {
  seq: number;
  at: string;
  request: { method: string; url: string; headers: string[]; body: string };
  answer: UpstreamAnswer;
  /** What the client got: the upstream's answer, or -5000 with the reason there was none. */
  sent: { http: number; body: string; code?: number; message?: string };
}

/**
 * What the scenario's top keys say: the upstream, and the token, strictness and response style it was recorded with.
 */
export interface RecordingOf {
  upstream: string;
  token: string;
  /** The header names and body field the token makes: the compiled scenario's, made once. */
  names: TokenNames;
  strict: boolean;
  responseStyle: 'document' | 'sdk';
}

export class Recorder {
  readonly scenarioFile: string;
  readonly exchangesFile: string;
  private readonly rules = new RecordedRules();
  private readonly files: RecordingFiles;
  /** The bytes the rules may take: the file's bound less its header and top keys at their longest. */
  private readonly room: number;
  private exchanges = 0;
  private exchangeBytes = 0;
  private stopped: string | undefined;
  private lastSeq = 0;

  /** Refuses a folder that holds a recording already, or cannot be written: at start, not at the first request. */
  constructor(
    dir: string,
    private readonly of: RecordingOf,
    /** Hides every secret the simulator holds. */
    private readonly hide: (text: string) => string,
    /** Told once when a file can no longer be written, with the request recorded last. */
    failed: (error: Error, seq: number) => void = () => undefined,
  ) {
    ({ scenarioFile: this.scenarioFile, exchangesFile: this.exchangesFile } = RecordingFiles.in(dir));
    this.files = new RecordingFiles(
      dir,
      () => this.text(),
      (e) => failed(e, this.lastSeq),
    );
    const longest = this.text(this.stoppedAt(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
    this.room = MAX_SCENARIO_BYTES - Buffer.byteLength(longest) - STOPPED_MARGIN;
  }

  /** Records one exchange: a line of the raw file, and a rule (or one more time of the last) in the scenario. */
  add(x: RecordedExchange): void {
    this.lastSeq = x.seq;
    const scrub = this.scrubber(x);
    this.writeExchange(x, scrub);
    const when = whenOf(x.request, this.of);
    if (!when || this.stopped) return;
    const outcome = this.replayable(when, outcomeOf(x, scrub));
    const label = `recorded #${x.seq}: ${x.request.method} ${endpointOf(x.request.url, this.of.token)} -> ${describe(outcome, x.sent.code)}`;
    if (!this.rules.add(when, outcome, label, this.room)) this.stopped = this.stoppedAt(x.seq, this.rules.size);
    this.files.changed();
  }

  /** Writes the scenario as it stands now. */
  flush(): void {
    this.files.flush();
  }

  /** Writes the scenario a last time and lets go of the exchanges' file. */
  close(): void {
    this.files.close();
  }

  /** What the description says once the scenario stopped growing. */
  private stoppedAt(seq: number, rules: number): string {
    return `Recording stopped growing at request ${seq}: ${rules} rules, as much as one scenario file holds. The exchanges after it are in ${this.exchangesFile}.`;
  }

  /** The scenario's keys but its rules. */
  private top(stopped: string | undefined): Omit<ScenarioInput, 'rules'> {
    const recorded = `What ${this.of.upstream} answered, recorded by mfa-sim (${this.exchanges} request${this.exchanges === 1 ? '' : 's'}). Run it with the API user's id and secret: mfa-sim --scenario ${this.scenarioFile} --api-user <id> --secret <secret>.`;
    return {
      name: 'recorded',
      description: stopped ? `${recorded} ${stopped}` : recorded,
      token: this.of.token,
      strict: this.of.strict,
      responseStyle: this.of.responseStyle,
    };
  }

  /** The file's text: its header, its top keys, and each rule's text as made when it was added. */
  private text(stopped = this.stopped): string {
    const header = `# Recorded by mfa-sim in proxy mode from ${this.of.upstream}: the service's answers, every secret, signature and nonce removed.\n`;
    return `${header}${yaml().stringify(this.top(stopped), YAML_OPTIONS)}${this.rules.text()}`;
  }

  /** The outcome as a rule can give it for these requests, or -5000 saying what the service did. */
  private replayable(when: When, outcome: Outcome): Outcome {
    const fits = (o: Outcome) =>
      compileScenario({ name: 'check', token: this.of.token, rules: [{ when, ...o }] }).issues.length === 0;
    if (fits(outcome)) return outcome;
    const code = outcome.respond?.code;
    return {
      respond: {
        code: -5000,
        message: `Internal error: the service answered code ${code}, which the code table does not give to these requests`,
      },
    };
  }

  private writeExchange(x: RecordedExchange, scrub: (text: string) => string): void {
    if (this.exchanges >= MAX_RECORDED_EXCHANGES || this.exchangeBytes >= MAX_EXCHANGE_BYTES) return;
    const line = `${JSON.stringify(rawExchange(x, scrub, this.of.token))}\n`;
    this.files.addExchange(line);
    this.exchanges++;
    this.exchangeBytes += Buffer.byteLength(line);
  }

  /**
   * Text of this exchange as the files keep it: every secret the simulator holds hidden, and the request's signature
   * and nonce removed wherever they show (a refusal's message quotes the string to sign, nonce and all).
   */
  private scrubber(x: RecordedExchange): (text: string) => string {
    const signature = parseAuthorization(rawHeader(x.request.headers, 'authorization') ?? '', this.of.token)?.signature;
    const nonce = rawHeader(x.request.headers, this.of.names.nonce);
    const removed = [signature, nonce].filter((v): v is string => v !== undefined && v.length >= 4);
    return (text) => removed.reduce((out, value) => out.split(value).join(REMOVED), this.hide(text));
  }
}

/**
 * The exchange as the raw file keeps it, scrubbed (header names too: a client chooses them), each body cut to
 * BODY_CHARS; credentials and nonces removed from the headers.
 */
function rawExchange(x: RecordedExchange, scrub: (text: string) => string, token: string): Record<string, unknown> {
  const cut = (text: string) => {
    const out = scrub(text);
    return out.length <= BODY_CHARS ? out : `${out.slice(0, BODY_CHARS)}… (${out.length - BODY_CHARS} more characters)`;
  };
  const headers = (raw: readonly string[]) => {
    const out: [string, string][] = [];
    for (let i = 0; i + 1 < raw.length; i += 2)
      out.push([scrub(raw[i]), removedValue(raw[i].toLowerCase(), raw[i + 1], token) ?? cut(raw[i + 1])]);
    return out;
  };
  const a = x.answer;
  return {
    seq: x.seq,
    at: x.at,
    request: {
      method: x.request.method,
      path: cut(x.request.url),
      headers: headers(x.request.headers),
      body: cut(x.request.body),
    },
    ...(a.kind === 'answer'
      ? { response: { status: a.status, headers: headers(a.headers), body: cut(a.body.toString('utf8')) } }
      : { failure: a.reason }),
    sent: { http: x.sent.http, code: x.sent.code },
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
  if (
    name.endsWith('-cnonce') ||
    name.endsWith('-nonce') ||
    name === 'cookie' ||
    name === 'set-cookie' ||
    name === 'x-sim-control-token' ||
    name === 'proxy-authorization'
  )
    return REMOVED;
  return undefined;
}

/**
 * The keys that tell one kind of request from another, as a rule's `when`: undefined for a request no rule can match.
 */
function whenOf(req: RecordedExchange['request'], of: RecordingOf): When | undefined {
  const endpoint = endpointOf(req.url, of.token);
  if (!endpoint) return undefined;
  // Read as a replay reads it when it picks a rule, before authentication: JSON, and a short body string as relaxed
  // JSON.
  const looked = peek(req.body, of.names.userKey, false);
  const when: When = { endpoint };
  if (looked.type !== undefined && endpointTypes(endpoint, of.strict).includes(looked.type)) when.type = looked.type;
  const apiUser = rawHeader(req.headers, of.names.apiUser);
  if (apiUser !== undefined && API_USER_ID.test(apiUser)) when.apiUser = apiUser;
  const user = peekedUser(looked);
  if (user !== undefined && carriesUser(endpoint, when.type)) when.svcUser = user.replace(/[\\*?[\]{}]/g, '\\$&');
  if (
    looked.challengeType !== undefined &&
    when.type === 150 &&
    (CHALLENGE_TYPES as readonly string[]).includes(looked.challengeType)
  )
    when.challengeType = looked.challengeType;
  return when;
}

function carriesUser(endpoint: Endpoint, type: number | undefined): boolean {
  return endpoint !== 'time' && type !== 990;
}

/** What a rule answers for this exchange, before it is checked against what rules can do. */
function outcomeOf(x: RecordedExchange, scrub: (text: string) => string): Outcome {
  const { answer: a, sent } = x;
  if (a.kind === 'failure') return { respond: { code: -5000, message: `Internal error: ${a.reason}` } };
  if (sent.code !== undefined && codeInfo(sent.code) && codeInfo(sent.code)!.http === a.status) {
    // The time is told live by the replay: a recorded one would be stale at once.
    if (sent.code === 15000 || sent.message === undefined) return { respond: { code: sent.code } };
    // A message that quotes the request's nonce or signature (a -4037's string to sign) cannot be written: the replay's
    // own checks answer such a request (a rule of no delay takes its turn in the order), and word it for the request
    // they get. Any other message is kept, its secrets hidden.
    const message = scrub(sent.message);
    return message.includes(REMOVED) ? { delay: 0 } : { respond: { code: sent.code, message } };
  }
  if (sent.code === undefined && (a.status === 502 || a.status === 503 || a.status === 504))
    return { fault: `proxy-${a.status}` as RuleInput['fault'] };
  const seen = answerText({
    status: a.status,
    contentType: rawHeader(a.headers, 'content-type'),
    body: a.body.toString('utf8'),
  });
  return { respond: { code: -5000, message: `Internal error: the service answered ${scrub(seen)}` } };
}

function describe(o: Outcome, code: number | undefined): string {
  return o.fault ?? (o.respond ? String(o.respond.code) : `${code}, left to mfa-sim's own checks`);
}
