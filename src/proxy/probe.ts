import { randomUUID } from 'node:crypto';
import { version } from '../../package.json';
import { headerNames, signedHeaders, userKeyOf } from '../auth/signature.js';
import type { ResponseStyle } from '../contract/response.js';
import type { StartOptions } from '../simulator/options.js';
import { Simulator } from '../simulator/simulator.js';
import { answerText, compareAnswers, judgeAnswer, seenAnswer, type SeenAnswer } from './judge.js';
import { rawHeader, Upstream } from './upstream.js';
import { terminalText } from '../output/terminal.js';

// `mfa-sim probe`: a short run of requests that create nothing on the service (docs/proxy.md).

interface Signing {
  token: string;
  apiUser: string;
  secret: string;
  /** Signing times: this machine's clock, never the same millisecond twice (-4035). */
  time(): number;
  /** The nonce the first step signed with, which the replay step sends again. */
  firstNonce?: string;
}

/** What one step sends, made from the probe's settings and the steps before it. */
type Sent = { path: string; headers: Record<string, string>; body: string };

/** One step: its name, what it sends in words (docs/proxy.md), the code a faithful service answers, the request. */
type ProbeStep = { name: string; sends: string; expect: number; request(s: Signing): Sent };

type Signed = { time?: number; nonce?: string; edit?: (h: Record<string, string>) => void };

/** A correctly signed POST of an envelope (its time and nonce as given), then changed by `edit`. */
function signed(s: Signing, path: string, type: number, body: Record<string, unknown>, opts: Signed = {}): Sent {
  const { apiUser, secret, token } = s;
  const envelope = JSON.stringify({ id: 'mfa-sim-probe', utctime: String(s.time()), apiUser, type, body });
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    Accept: 'application/json; charset=utf-8',
    ...signedHeaders({ apiUser, secret, token, time: opts.time ?? s.time(), nonce: opts.nonce }),
  };
  opts.edit?.(headers);
  return { path, headers, body: envelope };
}

const timeRequest = (s: Signing, opts?: Signed) => signed(s, '/v1/svc/time', 990, {}, opts);
const flip = (digit: string) => (digit === '0' ? '1' : '0');

/** The steps, in the order they are sent. None creates a challenge or changes anything on the service. */
export const STEPS: readonly ProbeStep[] = [
  {
    name: 'time',
    sends: 'POST /v1/svc/time, correctly signed, envelope type 990 with an empty body',
    expect: 15000,
    request: (s) => timeRequest(s, { nonce: (s.firstNonce = randomUUID()) }),
  },
  {
    name: 'bad signature',
    sends: "the same time request with its own time and nonce, the signature's first hexadecimal digit changed",
    expect: -4037,
    request: (s) =>
      timeRequest(s, { edit: (h) => (h.Authorization = h.Authorization.replace(/(?<=signature=)[0-9a-f]/, flip)) }),
  },
  {
    name: 'replayed nonce',
    sends: 'the same time request, correctly signed with a new time and the nonce of step 1',
    expect: -4034,
    request: (s) => timeRequest(s, { nonce: s.firstNonce }),
  },
  {
    name: 'time outside the drift window',
    sends: "the same time request, correctly signed with a time one hour behind this machine's clock",
    expect: -4036,
    request: (s) => timeRequest(s, { time: s.time() - 3_600_000 }),
  },
  {
    name: 'no Authorization header',
    sends: 'the same time request without its Authorization header',
    expect: -4000,
    request: (s) => timeRequest(s, { edit: (h) => delete h.Authorization }),
  },
  {
    name: 'malformed utctime header',
    sends: 'the same time request with `x-<token>-utctime` set to `not-a-time`',
    expect: -4005,
    request: (s) => timeRequest(s, { edit: (h) => (h[headerNames(s.token).utctime] = 'not-a-time') }),
  },
  {
    name: 'malformed nonce header',
    sends: 'the same time request with `x-<token>-cnonce` set to `short`',
    expect: -4007,
    request: (s) => timeRequest(s, { edit: (h) => (h[headerNames(s.token).nonce] = 'short') }),
  },
  {
    name: 'invalid e-mail address',
    sends:
      'POST /v1/svc/challenge, correctly signed, type 150 for the user `not-an-e-mail-address` (challengeType UserKeyAndPattern, enableQRcode false): refused before anything is sent',
    expect: -5079,
    request: (s) =>
      signed(s, '/v1/svc/challenge', 150, {
        [userKeyOf(s.token)]: 'not-an-e-mail-address',
        challengeType: 'UserKeyAndPattern',
        enableQRcode: false,
      }),
  },
  {
    name: 'cancel of an unknown challenge',
    sends:
      'POST /v1/svc/challenge, correctly signed, type 151 cancelling a random challengeId (a new UUID) of the user `probe@example.com`',
    expect: -2035,
    request: (s) =>
      signed(s, '/v1/svc/challenge', 151, {
        challengeId: randomUUID(),
        [userKeyOf(s.token)]: 'probe@example.com',
        status: 'CANCEL',
      }),
  },
];

/** The probe's help, which src/cli/probe.ts prints with its flags. */
export const DESCRIPTION =
  'Sends a short run of requests that create nothing on the service (the time, a bad signature, a replayed nonce, a time outside the drift window, malformed headers, an invalid e-mail address on a new challenge, a cancel of a challenge that does not exist) to the upstream and to an in-process mfa-sim, and prints where they agree. docs/proxy.md lists exactly what each step sends.';
export const AFTER =
  'Exit status: 0 every step agrees (a message worded otherwise is shown, and agrees), 1 a step differs\nor the service could not be reached, 2 bad flags.';

/** Where the probe writes its table and its errors. */
export type ProbeOutput = Record<'out' | 'err', (text: string) => void>;

/** What the probe is given (src/cli/probe.ts reads it from the command line). */
export type ProbeSettings = Pick<
  StartOptions,
  'upstreamCa' | 'upstreamTimeout' | 'token' | 'strict' | 'responseStyle'
> & {
  upstream: string;
  apiUser: string;
  secret: string;
};

/** One step's outcome: both answers, and how they compare. */
interface Outcome {
  step: ProbeStep;
  theirs?: SeenAnswer;
  failure?: string;
  mine: SeenAnswer;
  differences: string[];
  verdict: 'agrees' | 'message differs' | 'differs';
}

/** Runs the steps against the upstream and an in-process mfa-sim; resolves to the exit status. */
export async function probeService(o: ProbeSettings, io: ProbeOutput): Promise<number> {
  const { token, strict, responseStyle, apiUser, secret } = o;
  const given = { token, strict, responseStyle, apiUser, secret };
  const sim = new Simulator(Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)));
  const upstream = new Upstream({ upstream: o.upstream, upstreamCa: o.upstreamCa, upstreamTimeout: o.upstreamTimeout });
  let last = 0;
  const signing: Signing = { token: sim.token, apiUser, secret, time: () => (last = Math.max(Date.now(), last + 1)) };
  const print = (text: string) => io.out(terminalText(text));
  const outcomes: Outcome[] = [];
  try {
    print(
      `mfa-sim probe of ${upstream.url}: API user ${apiUser}, token ${sim.token}; mfa-sim ${version} in process\n\n`,
    );
    for (const step of STEPS) {
      const outcome = await run(step, step.request(signing), upstream, sim);
      outcomes.push(outcome);
      // The service cannot be reached: every other step would wait as long for nothing.
      if (outcome.failure) break;
    }
  } finally {
    upstream.close();
  }
  const cell = (a?: SeenAnswer) =>
    !a ? 'no answer' : `${a.status} ${typeof a.envelope?.code === 'number' ? a.envelope.code : '(no envelope)'}`;
  const rows = outcomes.map((o, i) => [String(i + 1), o.step.name, cell(o.theirs), cell(o.mine), o.verdict]);
  const head = ['#', 'step', 'the service', 'mfa-sim', ''];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (row: string[]) => row.map((text, c) => text.padEnd(widths[c])).join('  ');
  for (const row of [head, ...rows]) print(`${line(row).trimEnd()}\n`);
  const unlike = outcomes.filter((o) => o.verdict !== 'agrees');
  if (unlike.length) io.out('\nWhere they differ:\n');
  for (const o of unlike) {
    print(`\n${outcomes.indexOf(o) + 1}. ${o.step.name}: ${o.step.sends}\n`);
    for (const d of o.differences) print(`   - ${d}\n`);
    print(`   the service: ${o.theirs ? answerText(o.theirs, 400) : o.failure}\n`);
    print(`   mfa-sim:     ${answerText(o.mine, 400)}\n`);
  }
  const style = styleOf(outcomes[0]?.theirs);
  if (style) {
    const flag = style === sim.scenario.responseStyle ? '' : ` (give --response-style ${style})`;
    io.out(`\nThe service answers in the ${style} response style${flag}.\n`);
  }
  const failing = outcomes.filter((o) => o.verdict === 'differs').length;
  const skipped = STEPS.length - outcomes.length;
  const notSent = skipped ? ` (${skipped} not sent: the service could not be reached)` : '';
  io.out(`\n${outcomes.length - failing} of ${STEPS.length} steps agree${notSent}.\n`);
  return failing || skipped ? 1 : 0;
}

/** Sends one step to both, and compares the answers. */
async function run(step: ProbeStep, sent: Sent, upstream: Upstream, sim: Simulator): Promise<Outcome> {
  const headers = Object.entries(sent.headers).flat();
  const answer = await upstream.send({ method: 'POST', target: sent.path, headers, body: Buffer.from(sent.body) });
  const lower = Object.fromEntries(Object.entries(sent.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const result = await sim.path.handle({ method: 'POST', url: sent.path, headers: lower, body: sent.body });
  const mine = seenAnswer(result.status, result.contentType, result.body);
  if (answer.kind === 'failure')
    return { step, failure: answer.reason, mine, differences: [answer.reason], verdict: 'differs' };
  const theirs = seenAnswer(answer.status, rawHeader(answer.headers, 'content-type'), answer.body.toString('utf8'));
  const found = [...judgeAnswer(theirs, sim.scenario.responseStyle).problems, ...compareAnswers(theirs, mine)];
  const onlyMessage = found.every((f) => f.kind === 'service-differs-message');
  const verdict = found.length === 0 ? 'agrees' : onlyMessage ? 'message differs' : 'differs';
  return { step, theirs, mine, differences: found.map((f) => f.what), verdict };
}

/** The response style an answer's envelope is written in: `utcTime` is the sdk style's, `utctime` the document's. */
function styleOf(a: SeenAnswer | undefined): ResponseStyle | undefined {
  if (!a?.envelope) return undefined;
  if (Object.hasOwn(a.envelope, 'utcTime')) return 'sdk';
  return Object.hasOwn(a.envelope, 'utctime') ? 'document' : undefined;
}
