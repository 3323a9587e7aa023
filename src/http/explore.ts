import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { authorizationValue, headerNames, sign, userKeyOf } from '../auth/signature.js';
import { clipText, own } from '../contract/answer.js';
import { ControlError } from '../errors.js';
import { envelopeOf, typeName } from '../proxy/judge.js';
import { BoundedMap } from '../world/bounded-map.js';
import type { Simulator } from '../simulator.js';

/**
 * The dashboard's explorer: correctly signed (or deliberately broken) requests sent to the simulator's own port, signed
 * on the server so that the page never holds a secret.
 */

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
} as const;

export type ExploreKind = keyof typeof EXPLORE_KINDS;

/** What the person filled in; every field but `kind` is optional. */
export interface ExploreInput {
  kind: ExploreKind;
  apiUser?: string;
  user?: string;
  challengeId?: string;
  authCode?: string;
  ipAddress?: string;
  challengeType?: string;
  challengeExpiry?: string;
  enableQRcode?: boolean;
  enableAutoVerify?: boolean;
  /** Sign with the simulator's clock (default, always inside the drift window) or this machine's, as a real client. */
  clock?: 'simulator' | 'machine';
}

/** One request as sent and its answer, with the new challenge the answer names (2025). */
export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response: { status: number; body: string };
  challenge?: NewChallenge;
}

/**
 * A new challenge as the dashboard may show it. Whoever answered chose its parts (in proxy mode, the upstream): only
 * an http: or https: URL is a link and only a PNG data URL an image; anything else is text, cut to a line.
 */
export interface NewChallenge {
  challengeId: string;
  /** challengeQRcodeUrl. */
  phonePage?: { link: string } | { text: string };
  /** challengeQRcode. */
  qrCode?: { image: string } | { text: string };
}

export interface ExploreResult {
  kind: ExploreKind;
  label: string;
  expect: string;
  exchanges: Exchange[];
}

const STRING_FIELDS = [
  'apiUser',
  'user',
  'challengeId',
  'authCode',
  'ipAddress',
  'challengeType',
  'challengeExpiry',
] as const;

/** Checks the explorer's JSON body; a mistake is a ControlError (400) that says what is wrong. */
export function exploreInput(body: unknown): ExploreInput {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ControlError(400, `send { "kind": "<${Object.keys(EXPLORE_KINDS).join('|')}>", ... }`);
  const b = body as Record<string, unknown>;
  if (typeof b.kind !== 'string' || !Object.hasOwn(EXPLORE_KINDS, b.kind))
    throw new ControlError(400, `kind must be one of ${Object.keys(EXPLORE_KINDS).join(', ')}`);
  for (const k of STRING_FIELDS) {
    if (b[k] !== undefined && (typeof b[k] !== 'string' || b[k].length > 500))
      throw new ControlError(400, `${k} must be a string of at most 500 characters`);
  }
  for (const k of ['enableQRcode', 'enableAutoVerify'] as const)
    if (b[k] !== undefined && typeof b[k] !== 'boolean') throw new ControlError(400, `${k} must be true or false`);
  if (b.clock !== undefined && b.clock !== 'simulator' && b.clock !== 'machine')
    throw new ControlError(400, 'clock must be "simulator" or "machine"');
  return b as unknown as ExploreInput;
}

/**
 * Sends correctly signed (or deliberately broken) requests to the simulator's own HTTP port, as a client
 * would, and returns what went and what came back. The signing happens here, on the server: the page that
 * asks never sees a secret. One per simulator; it keeps signing times unique (two requests signed in the same
 * millisecond would be -4035), whether it signs with the simulator's clock or this machine's.
 */
export class Explorer {
  private readonly used = new BoundedMap<number, true>(10_000);
  private seq = 0;

  constructor(private readonly sim: Simulator) {}

  /** @param target where the simulator listens (host and port of the connection the page came by). */
  async explore(
    input: ExploreInput,
    target: { host: string; port: number; hostHeader?: string },
  ): Promise<ExploreResult> {
    const sim = this.sim;
    const kind = EXPLORE_KINDS[input.kind];
    const users = sim.apiUsers();
    const who = input.apiUser ? users.find((u) => u.id === input.apiUser) : users[0];
    if (!who)
      throw new ControlError(
        400,
        `API user ${sim.echo(String(input.apiUser), 20)} is not one of this scenario's: ${users.map((u) => u.id).join(', ')}`,
      );
    const token = sim.token;
    const names = headerNames(token);
    const time = this.time(input.clock === 'machine' ? Date.now() : sim.now());
    const body = this.envelope(input, who.id, time);
    const exchange = (utctime: number, nonce: string, secret: string) => {
      sim.doctor.sendsItself(nonce);
      const headers: Record<string, string> = {
        authorization: authorizationValue(who.id, sign(secret, String(utctime), nonce, token), token),
        [names.apiUser]: who.id,
        [names.utctime]: String(utctime),
        [names.nonce]: nonce,
      };
      return send(
        target,
        kind.path === 'time' ? 'GET' : 'POST',
        `/v1/svc/${kind.path}`,
        headers,
        kind.path === 'time' ? undefined : body,
      );
    };
    const exchanges: Exchange[] = [];
    switch (input.kind) {
      case 'bad-signature':
        // Signed with a secret that is not the API user's: the simulator's journal shows the string it expected.
        exchanges.push(await exchange(time, randomUUID(), `not-the-secret-${randomUUID()}`));
        break;
      case 'replay': {
        const nonce = randomUUID();
        exchanges.push(await exchange(time, nonce, who.secret));
        exchanges.push(await exchange(this.time(time), nonce, who.secret));
        break;
      }
      case 'drift':
        // A minute past the allowed drift, behind the clock it would otherwise sign with.
        exchanges.push(await exchange(time - sim.scenario.maxDrift - 60_000, randomUUID(), who.secret));
        break;
      default:
        exchanges.push(await exchange(time, randomUUID(), who.secret));
    }
    for (const x of exchanges) {
      const challenge = newChallengeIn(x.response.body);
      if (challenge) x.challenge = challenge;
    }
    return JSON.parse(
      sim.redact(JSON.stringify({ kind: input.kind, label: kind.label, expect: kind.expect, exchanges })),
    ) as ExploreResult;
  }

  /** A signing time at or just after `t` that this explorer has not signed with yet (whichever clock it reads). */
  private time(t: number): number {
    let time = Math.trunc(t);
    while (this.used.has(time)) time++;
    this.used.set(time, true);
    return time;
  }

  /** The JSON envelope for the kind, as the interface document shows it. */
  private envelope(input: ExploreInput, apiUser: string, time: number): string {
    const kind = EXPLORE_KINDS[input.kind];
    const userKey = userKeyOf(this.sim.token);
    const user = input.user || 'user@example.com';
    let body: Record<string, unknown>;
    switch (input.kind) {
      case 'challenge':
        body = {
          [userKey]: user,
          challengeType: input.challengeType || 'UserKeyAndPattern',
          challengeExpiry: input.challengeExpiry || 'FiveMins',
          enableQRcode: input.enableQRcode ?? false,
          status: 'NEW',
        };
        if (input.enableAutoVerify) body.enableAutoVerify = true;
        if (input.ipAddress) body.ipAddress = input.ipAddress;
        break;
      case 'cancel':
        body = { challengeId: input.challengeId ?? '', [userKey]: user, status: 'CANCEL' };
        break;
      case 'status':
        body = { challengeId: input.challengeId ?? '', [userKey]: user };
        break;
      case 'verify':
        body = {
          challengeId: input.challengeId ?? '',
          [userKey]: user,
          authCode: input.authCode ?? '',
          verifyType: 'Manual',
        };
        break;
      case 'blocked':
        body = { [userKey]: user, ipAddress: input.ipAddress || '198.51.100.7' };
        break;
      default:
        body = {};
    }
    return JSON.stringify({ id: `explore-${++this.seq}`, utctime: String(time), apiUser, type: kind.type, body });
  }
}

/** How long the explorer waits for an answer (a scenario rule may hold the connection on purpose). */
const EXPLORE_TIMEOUT_MS = 5000;
const MAX_ANSWER_BYTES = 256 * 1024;

function send(
  target: { host: string; port: number; hostHeader?: string },
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Exchange> {
  const sent: Exchange['request'] = { method, url: path, headers: { ...headers }, body };
  const all: Record<string, string | number> = { ...headers, accept: 'application/json' };
  if (target.hostHeader) all.host = target.hostHeader;
  if (body !== undefined) {
    all['content-type'] = 'application/json; charset=utf-8';
    all['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve) => {
    const answer = (status: number, text: string) => resolve({ request: sent, response: { status, body: text } });
    const req = httpRequest(
      { host: target.host, port: target.port, method, path, headers: all, agent: false, timeout: EXPLORE_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(c);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          answer(
            res.statusCode ?? 0,
            size > MAX_ANSWER_BYTES ? `${text}… (${size - MAX_ANSWER_BYTES} more bytes)` : text,
          );
        });
        res.on('error', (e) => answer(0, `(the answer broke off: ${e.message})`));
      },
    );
    req.on('timeout', () =>
      req.destroy(
        new Error(`no answer within ${EXPLORE_TIMEOUT_MS / 1000} s (a scenario rule may hold the connection)`),
      ),
    );
    req.on('error', (e) => answer(0, `(no answer: ${e.message})`));
    req.end(body);
  });
}

/** A value the page shows as text: a string cut to a line, or what kind of value it is. */
const SHOWN_CHARS = 200;

/** The new challenge a 2025 answer names, its link and image only when they are what they should be. */
function newChallengeIn(body: string): NewChallenge | undefined {
  const envelope = envelopeOf(body);
  const message = envelope && own(envelope, 'code') === 2025 ? own(envelope, 'message') : undefined;
  const parts = typeof message === 'string' ? envelopeOf(message) : undefined;
  const id = parts && own(parts, 'challengeId');
  if (!parts || typeof id !== 'string') return undefined;
  const url = own(parts, 'challengeQRcodeUrl');
  const qr = own(parts, 'challengeQRcode');
  const text = (v: unknown) => ({ text: typeof v === 'string' ? clipText(v, SHOWN_CHARS) : `(${typeName(v)})` });
  const out: NewChallenge = { challengeId: id };
  if (url !== undefined) out.phonePage = webUrl(url) ?? text(url);
  if (qr !== undefined && qr !== '')
    out.qrCode = typeof qr === 'string' && PNG_DATA_URL.test(qr) ? { image: qr } : text(qr);
  return out;
}

const PNG_DATA_URL = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;

/** An http: or https: URL as a link (written as the URL parser reads it), or undefined for anything else. */
function webUrl(value: unknown): { link: string } | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? { link: url.href } : undefined;
  } catch {
    return undefined;
  }
}
