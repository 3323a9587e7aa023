import type { Static } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Request, Response } from 'express';
import { signedHeaders, userKeyOf } from '../auth/signature.js';
import { codeInfo, type Operation } from '../contract/codes.js';
import { clipText, own } from '../contract/response.js';
import { ControlError } from '../contract/errors.js';
import { envelopeOf, typeName } from '../proxy/judge.js';
import { SCENARIO_HEADER } from '../scenario/registry.js';
import type { Simulator } from '../simulator/simulator.js';
import { Type } from '@sinclair/typebox';
import { BoundedMap } from '../world/bounded-map.js';

/** What the explorer can send, with one click each: every operation, and three deliberately broken requests. */
export const EXPLORE_KINDS = {
  challenge: { label: 'New challenge', expect: '2025', path: 'challenge', type: 150 },
  cancel: { label: 'Cancel challenge', expect: '2028', path: 'challenge', type: 151 },
  time: { label: 'Server time', expect: '15000', path: 'time', type: 990 },
  status: { label: 'Challenge status', expect: '-3091, 3080 or -3092', path: 'status', type: 171 },
  verify: { label: 'Verify auth code', expect: '3080 or -3087', path: 'verify', type: 170 },
  blocked: { label: 'Blocked check', expect: '6020', path: 'blocked', type: 950 },
  'bad-signature': { label: 'Bad signature', expect: '-4037', path: 'time', type: 990 },
  replay: { label: 'Replayed nonce', expect: '15000 then -4034', path: 'time', type: 990 },
  drift: { label: 'Clock drift', expect: '-4036', path: 'time', type: 990 },
  // Any code of the table, on the first operation it belongs to (docs/dashboard.md, "Any code of the table, forced").
  force: { label: 'Force code', expect: 'the code chosen', path: 'time', type: 990 },
} as const;
export type ExploreKind = keyof typeof EXPLORE_KINDS;
const KINDS = Object.keys(EXPLORE_KINDS) as ExploreKind[];

const optionalText = (key: string) =>
  Type.Optional(Type.String({ maxLength: 500, errorMessage: `${key} must be a string of at most 500 characters` }));
const optionalFlag = (key: string) => Type.Optional(Type.Boolean({ errorMessage: `${key} must be true or false` }));

/** What the person filled in; every field but `kind` is optional. Checked before the route runs (control.ts). */
export const ExploreBody = Type.Object(
  {
    kind: Type.Union(
      KINDS.map((k) => Type.Literal(k)),
      { errorMessage: `kind must be one of ${KINDS.join(', ')}` },
    ),
    apiUser: optionalText('apiUser'),
    user: optionalText('user'),
    challengeId: optionalText('challengeId'),
    authCode: optionalText('authCode'),
    ipAddress: optionalText('ipAddress'),
    challengeType: optionalText('challengeType'),
    challengeExpiry: optionalText('challengeExpiry'),
    enableQRcode: optionalFlag('enableQRcode'),
    enableAutoVerify: optionalFlag('enableAutoVerify'),
    // `force`: the code of the code table to meet (src/contract/codes.ts).
    code: Type.Optional(Type.Integer({ errorMessage: 'code must be a whole number: a code of the code table' })),
    // The simulator's clock (default: always inside the drift window), or this machine's, as a real client.
    clock: Type.Optional(
      Type.Union([Type.Literal('simulator'), Type.Literal('machine')], {
        errorMessage: 'clock must be "simulator" or "machine"',
      }),
    ),
  },
  { errorMessage: `send { "kind": "<${KINDS.join('|')}>", ... }` },
);
type ExploreInput = Static<typeof ExploreBody>;

/** One request as sent and its answer, with the new challenge a 2025 names. */
const Exchange = Type.Object({
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    headers: Type.Record(Type.String(), Type.String()),
    body: Type.Optional(Type.String()),
  }),
  response: Type.Object({ status: Type.Integer(), body: Type.String() }),
  challenge: Type.Optional(
    Type.Object(
      {
        challengeId: Type.String(),
        phonePage: Type.Optional(
          Type.Union([Type.Object({ link: Type.String() }), Type.Object({ text: Type.String() })], {
            description: 'challengeQRcodeUrl: a link only when it is an http: or https: URL, else its text',
          }),
        ),
        qrCode: Type.Optional(
          Type.Union([Type.Object({ image: Type.String() }), Type.Object({ text: Type.String() })], {
            description: 'challengeQRcode: an image only when it is a PNG data URL, else its text',
          }),
        ),
      },
      { description: 'the new challenge a 2025 answer names, as the dashboard shows it' },
    ),
  ),
});
type Exchange = Static<typeof Exchange>;
export const ExploreAnswer = Type.Object({
  kind: Type.String(),
  label: Type.String(),
  expect: Type.String(),
  exchanges: Type.Array(Exchange),
});
export type ExploreResult = Static<typeof ExploreAnswer>;

/** The explorer of one simulator, as a route's handler. */
export function exploreHandler(sim: Simulator) {
  const used = new BoundedMap<number, true>(10_000);
  let seq = 0;
  const unusedTime = (t: number) => {
    let time = Math.trunc(t);
    while (used.has(time)) time++;
    used.set(time, true);
    return time;
  };
  return async (req: Request, res: Response) => {
    const input = req.body as ExploreInput;
    const kind = EXPLORE_KINDS[input.kind];
    const users = sim.apiUsers();
    const who = input.apiUser ? users.find((u) => u.id === input.apiUser) : users[0];
    if (!who) {
      const listed = users.map((u) => u.id).join(', ');
      const error = `API user ${sim.echo(String(input.apiUser), 20)} is not one of this scenario's: ${listed}`;
      throw new ControlError(400, error);
    }
    const { token } = sim;
    const clockTime = () => unusedTime(input.clock === 'machine' ? Date.now() : sim.now());
    const time = clockTime();
    /** A request of one operation (`as`: its kind, by default the one asked), signed with `secret`. */
    const exchange = async (
      utctime: number,
      nonce: string,
      secret: string,
      as: { kind: ExploreKind; input: ExploreInput; headers?: Record<string, string> } = { kind: input.kind, input },
    ): Promise<Exchange> => {
      sim.doctor.sendsItself(nonce);
      const path = EXPLORE_KINDS[as.kind].path;
      const get = path === 'time';
      const body = get ? undefined : envelope(as.input, as.kind, who.id, utctime, `explore-${++seq}`, userKeyOf(token));
      const { Authorization: authorization, ...signed } = signedHeaders({
        apiUser: who.id,
        secret,
        token,
        time: utctime,
        nonce,
      });
      const headers = { authorization, ...signed, ...as.headers };
      const request = { method: get ? 'GET' : 'POST', url: `/v1/svc/${path}`, headers, body };
      const response = await send(req, request);
      return { request, response, challenge: newChallengeIn(response.body) };
    };
    const exchanges: Exchange[] = [];
    if (input.kind === 'force') {
      const { code, operation } = forcedCode(sim, input.code);
      // The catalog scenario, picked for this request alone, answers the code asked (docs/scenarios.md).
      const forcing = (c: number) => ({ [SCENARIO_HEADER]: 'catalog', 'x-sim-code': String(c) });
      // A verify needs some auth code; the forced code answers whichever.
      let forced: ExploreInput = { ...input, authCode: input.authCode || '0' };
      if (needsChallenge(operation) && !input.challengeId) {
        // A challenge to name first: made with a forced 2025, which creates it whatever the world says.
        const made = await exchange(time, randomUUID(), who.secret, {
          kind: 'challenge',
          input,
          headers: forcing(2025),
        });
        exchanges.push(made);
        forced = { ...forced, challengeId: made.challenge?.challengeId ?? '' };
      }
      const at = exchanges.length === 0 ? time : clockTime();
      const as = { kind: operation, input: forced, headers: forcing(code) };
      exchanges.push(await exchange(at, randomUUID(), who.secret, as));
      const answer = { kind: input.kind, label: `Force ${code}`, expect: String(code), exchanges };
      return void res.json(JSON.parse(sim.redact(JSON.stringify(answer))));
    }
    if (input.kind === 'bad-signature') {
      // Signed with a secret that is not the API user's: the simulator's journal shows the string it expected.
      exchanges.push(await exchange(time, randomUUID(), `not-the-secret-${randomUUID()}`));
    } else if (input.kind === 'replay') {
      const nonce = randomUUID();
      exchanges.push(await exchange(time, nonce, who.secret), await exchange(unusedTime(time), nonce, who.secret));
    } else {
      // Drift: a minute past the allowed drift, behind the clock it would otherwise sign with.
      const at = input.kind === 'drift' ? time - sim.scenario.maxDrift - 60_000 : time;
      exchanges.push(await exchange(at, randomUUID(), who.secret));
    }
    const answer = { kind: input.kind, label: kind.label, expect: kind.expect, exchanges };
    res.json(JSON.parse(sim.redact(JSON.stringify(answer))));
  };
}

/** The operations whose request names a challenge. */
const needsChallenge = (op: Operation) => op === 'cancel' || op === 'status' || op === 'verify';

/** The code asked to force, if the code table has it, with the operation to send it on (the first it belongs to). */
function forcedCode(sim: Simulator, code: number | undefined): { code: number; operation: Operation } {
  if (code === undefined) throw new ControlError(400, 'force needs a code: { "kind": "force", "code": -4036 }');
  const info = codeInfo(code);
  if (!info) throw new ControlError(400, `${sim.echo(String(code), 20)} is not a code of the code table (see /status)`);
  return { code, operation: info.scope?.[0] ?? 'time' };
}

/** The request's envelope for an operation (`kind`), with its body, as the interface document shows them. */
function envelope(
  input: ExploreInput,
  kindName: ExploreKind,
  apiUser: string,
  time: number,
  id: string,
  userKey: string,
): string {
  const kind = EXPLORE_KINDS[kindName];
  const user = input.user || 'user@example.com';
  const challengeId = input.challengeId ?? '';
  const bodies: Partial<Record<ExploreKind, Record<string, unknown>>> = {
    challenge: {
      [userKey]: user,
      challengeType: input.challengeType || 'UserKeyAndPattern',
      challengeExpiry: input.challengeExpiry || 'FiveMins',
      enableQRcode: input.enableQRcode ?? false,
      status: 'NEW',
      ...(input.enableAutoVerify ? { enableAutoVerify: true } : {}),
      ...(input.ipAddress ? { ipAddress: input.ipAddress } : {}),
    },
    cancel: { challengeId, [userKey]: user, status: 'CANCEL' },
    status: { challengeId, [userKey]: user },
    verify: { challengeId, [userKey]: user, authCode: input.authCode ?? '', verifyType: 'Manual' },
    blocked: { [userKey]: user, ipAddress: input.ipAddress || '198.51.100.7' },
  };
  return JSON.stringify({ id, utctime: String(time), apiUser, type: kind.type, body: bodies[kindName] ?? {} });
}

/** How long the explorer waits for an answer (a scenario rule may hold the connection on purpose). */
const EXPLORE_TIMEOUT_MS = 5000;
const MAX_ANSWER_BYTES = 256 * 1024;

/** Sends a request to the simulator's own port, by the Host the page came by; the answer, or why there is none. */
function send(page: Request, request: Exchange['request']): Promise<Exchange['response']> {
  const { method, url: path, body } = request;
  const headers: Record<string, string | number> = { ...request.headers, accept: 'application/json' };
  if (page.headers.host) headers.host = page.headers.host;
  if (body !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(body);
  }
  const { localAddress: host = '127.0.0.1', localPort: port = 0 } = page.socket;
  const options = { host, port, method, path, headers, agent: false, timeout: EXPLORE_TIMEOUT_MS };
  return new Promise((resolve) => {
    const answer = (status: number, text: string) => resolve({ status, body: text });
    const req = httpRequest(options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(c);
      });
      res.on('end', () => {
        const more = size > MAX_ANSWER_BYTES ? `… (${size - MAX_ANSWER_BYTES} more bytes)` : '';
        answer(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8') + more);
      });
      res.on('error', (e) => answer(0, `(the answer broke off: ${e.message})`));
    });
    const late = `no answer within ${EXPLORE_TIMEOUT_MS / 1000} s (a scenario rule may hold the connection)`;
    req.on('timeout', () => req.destroy(new Error(late)));
    req.on('error', (e) => answer(0, `(no answer: ${e.message})`));
    req.end(body);
  });
}

/** A value the page shows as text is cut to a line. */
const TEXT_CHARS = 200;
const PNG_DATA_URL = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;

/** The new challenge a 2025 answer names, its link and image only when they are what they should be. */
function newChallengeIn(body: string): Exchange['challenge'] {
  const envelope = envelopeOf(body);
  const message = envelope && own(envelope, 'code') === 2025 ? own(envelope, 'message') : undefined;
  const parts = typeof message === 'string' ? envelopeOf(message) : undefined;
  const challengeId = parts && own(parts, 'challengeId');
  if (!parts || typeof challengeId !== 'string') return undefined;
  const url = own(parts, 'challengeQRcodeUrl');
  const qr = own(parts, 'challengeQRcode');
  const text = (v: unknown) => ({ text: typeof v === 'string' ? clipText(v, TEXT_CHARS) : `(${typeName(v)})` });
  return {
    challengeId,
    ...(url === undefined ? {} : { phonePage: webUrl(url) ?? text(url) }),
    ...(qr === undefined || qr === ''
      ? {}
      : { qrCode: typeof qr === 'string' && PNG_DATA_URL.test(qr) ? { image: qr } : text(qr) }),
  };
}

/** An http: or https: URL as a link (written as the URL parser reads it), or undefined for anything else. */
function webUrl(value: unknown): { link: string } | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === 'http:' || url.protocol === 'https:' ? { link: url.href } : undefined;
}
