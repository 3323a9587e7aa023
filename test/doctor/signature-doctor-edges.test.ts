import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { DIAGNOSES_PER_SECOND, Doctor } from '../../src/doctor/doctor.js';
import { stringToSign } from '../../src/index.js';
import { clientTime, send, simulator } from '../helpers.js';

/**
 * The signature doctor at its edges: each mistake it knows named word for word, and the near misses it must not
 * name (a body one character past what it tries, a fourth token, a secret that only looks hexadecimal or Base64, a
 * digest with something after it). A wrong hint sends a team after the wrong bug: these are as much its contract.
 */

const MAIN = { apiUser: '123456789', secret: 'edges-secret' };
const HEXLIKE = { apiUser: '200000001', secret: 'ab-not-hex-cd' };
const ODD_HEX = { apiUser: '200000002', secret: 'abcdef0' };
const BASE64 = { apiUser: '200000003', secret: 'c2VjcmV0LWtleQ==' };
const BASE64_UNPADDED = { apiUser: '200000004', secret: 'c2VjcmV0LWtleQ' };
const BASE64_AFTER = { apiUser: '200000005', secret: 'one secret; c2Vj' };
const BASE64_BEFORE = { apiUser: '200000006', secret: 'c2Vj; one secret' };
const USERS = [MAIN, HEXLIKE, ODD_HEX, BASE64, BASE64_UNPADDED, BASE64_AFTER, BASE64_BEFORE];

/** The body is tried as part of what was signed up to this many characters (src/doctor/signature.ts). */
const BODY_TRIED_UP_TO = 8192;

type Who = { apiUser: string; secret: string };
type Sign = (toSign: string, parts: { time: string; nonce: string }) => string;
const hmac = (algorithm: string, key: string | Buffer, text: string, encoding: 'hex' | 'base64' = 'hex') =>
  createHmac(algorithm, key).update(text).digest(encoding);

describe('the signature doctor at its edges', async () => {
  const sim = await simulator({
    name: 'doctor edges',
    apiUsers: USERS.map((u) => ({ id: u.apiUser, secret: u.secret })),
  });

  /** Sends a request signed by `sign` (as `who`, to `path` with `body`) and returns the journal's hint for it. */
  async function hintFor(sign: Sign, opts: { who?: Who; path?: string; body?: string } = {}) {
    const who = opts.who ?? MAIN;
    const time = String(clientTime(sim));
    const nonce = randomUUID();
    const signature = sign(stringToSign(time, nonce), { time, nonce });
    const r = await send(sim, opts.path ?? '/v1/svc/time', {
      method: opts.body === undefined ? 'GET' : 'POST',
      as: who,
      time: Number(time),
      nonce,
      body: opts.body,
      mutate: (h) => (h.Authorization = h.Authorization.replace(/signature=[0-9a-f]+/, `signature=${signature}`)),
    });
    expect(r.status).toBe(400);
    const [entry] = sim.journal({ limit: 1 });
    // -4037 always has a hint (the mistake, or what to sign); -4027 one only when its shape is one the doctor knows.
    if (entry.code === -4037) expect(entry.hint).toBeDefined();
    return { code: entry.code, id: entry.hint?.id, text: entry.hint?.text, message: r.json.message };
  }

  /** A JSON body of exactly `length` characters, naming `keys` (each `<key>: 1`) first. */
  function bodyOf(length: number, keys: string[] = []): string {
    const head = `{${keys.map((k) => `"${k}":1,`).join('')}"pad":"`;
    const text = `${head}${'p'.repeat(length - head.length - 2)}"}`;
    expect(text.length).toBe(length);
    return text;
  }

  it('the method and path, or the path alone, signed as well: each named word for word', async () => {
    const before = await hintFor((s) => hmac('sha512', MAIN.secret, `GET /v1/svc/time\n${s}`));
    expect(before).toMatchObject({
      code: -4037,
      id: 'path-signed',
      text: 'the method and path were signed as well: sign only the two header lines',
    });
    const after = await hintFor((s) => hmac('sha512', MAIN.secret, `${s}\n/v1/svc/time`));
    expect(after).toMatchObject({
      code: -4037,
      id: 'path-signed',
      text: 'the path was signed as well: sign only the two header lines',
    });
    expect(after.message).toBe('Signature error. Hint: the path was signed as well: sign only the two header lines');
  });

  it('the body signed after a line break or right after the nonce, up to 8,192 characters and not one more', async () => {
    const text = 'the body was signed as well: sign only the two header lines';
    for (const join of ['\n', '']) {
      const body = bodyOf(200);
      expect(await hintFor((s) => hmac('sha512', MAIN.secret, `${s}${join}${body}`), { body })).toMatchObject({
        id: 'body-signed',
        text,
      });
    }
    const longest = bodyOf(BODY_TRIED_UP_TO);
    expect(await hintFor((s) => hmac('sha512', MAIN.secret, `${s}\n${longest}`), { body: longest })).toMatchObject({
      id: 'body-signed',
      text,
    });
    const tooLong = bodyOf(BODY_TRIED_UP_TO + 1);
    expect((await hintFor((s) => hmac('sha512', MAIN.secret, `${s}\n${tooLong}`), { body: tooLong })).id).toBe(
      'no-known-mistake',
    );
  });

  it('other tokens: up to three named by the body are tried, not a fourth, and none past the characters tried', async () => {
    const body = bodyOf(300, ['aaUser', 'bbUser', 'ccUser', 'ddUser']);
    const third = await hintFor((_s, { time, nonce }) => hmac('sha512', MAIN.secret, stringToSign(time, nonce, 'cc')), {
      body,
    });
    expect(third).toMatchObject({
      id: 'other-token',
      text: 'signed with the token cc (x-cc-utctime), but this simulator runs with svc: sign x-svc-utctime and x-svc-cnonce',
    });
    expect(
      (await hintFor((_s, { time, nonce }) => hmac('sha512', MAIN.secret, stringToSign(time, nonce, 'dd')), { body }))
        .id,
    ).toBe('no-known-mistake');
    // A key that begins past the characters tried is not read.
    const late = `{"pad":"${'p'.repeat(BODY_TRIED_UP_TO)}","eeUser":1}`;
    expect(
      (
        await hintFor((_s, { time, nonce }) => hmac('sha512', MAIN.secret, stringToSign(time, nonce, 'ee')), {
          body: late,
        })
      ).id,
    ).toBe('no-known-mistake');
  });

  it('a secret decoded from Base64 by the client is named; one that only looks like Base64 or hexadecimal is not', async () => {
    const decoded = await hintFor((s) => hmac('sha512', Buffer.from(BASE64.secret, 'base64'), s), { who: BASE64 });
    expect(decoded).toMatchObject({
      id: 'secret-decoded',
      text: "keyed with the secret decoded from Base64: key it with the secret's UTF-8 text as it is",
    });
    // What Node's lenient decoders make of secrets that are not Base64 (or hexadecimal) is no mistake to name.
    for (const who of [BASE64_UNPADDED, BASE64_AFTER, BASE64_BEFORE]) {
      expect((await hintFor((s) => hmac('sha512', Buffer.from(who.secret, 'base64'), s), { who })).id, who.secret).toBe(
        'no-known-mistake',
      );
    }
    for (const who of [HEXLIKE, ODD_HEX]) {
      expect((await hintFor((s) => hmac('sha512', Buffer.from(who.secret, 'hex'), s), { who })).id, who.secret).toBe(
        'no-known-mistake',
      );
    }
  });

  it('the right HMAC in Base64 is named for its encoding alone', async () => {
    const r = await hintFor((s) => hmac('sha512', MAIN.secret, s, 'base64'));
    expect(r).toMatchObject({
      code: -4027,
      id: 'base64',
      text: 'the digest is written in Base64: write its bytes as hexadecimal, 128 characters',
    });
  });

  it('a digest with something before or after it is not read as that digest', async () => {
    for (const sign of [
      (s: string) => `${hmac('sha256', MAIN.secret, s)}zz`,
      (s: string) => `${hmac('sha256', MAIN.secret, s)}0`,
      (s: string) => `${hmac('sha256', MAIN.secret, s, 'base64')}!!`,
      (s: string) => `!!${hmac('sha256', MAIN.secret, s, 'base64')}`,
    ]) {
      const r = await hintFor(sign);
      expect(r.code).toBe(-4027);
      expect(r.id ?? 'none').not.toMatch(/sha256/);
    }
  });
});

describe('the diagnoses budget is by the second', () => {
  it('spent, it stays spent for the rest of the second, and comes back with the next', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const doctor = new Doctor();
      const r = {
        secret: MAIN.secret,
        apiUser: MAIN.apiUser,
        token: 'svc',
        utctime: '1795000000000',
        nonce: 'nonce-1234',
        method: 'GET',
        path: '/v1/svc/time',
        body: '',
      };
      const mistaken = hmac('sha512', MAIN.secret, `${stringToSign(r.utctime, r.nonce)}\n`);
      // At the start of a second, so that the steps below stay inside it.
      vi.advanceTimersByTime(1000 - (Math.floor(performance.now()) % 1000));
      for (let i = 0; i < DIAGNOSES_PER_SECOND; i++)
        expect(doctor.refusedSignature(r, mistaken).id).toBe('trailing-newline');
      for (const step of [1, 500, 498]) {
        vi.advanceTimersByTime(step);
        expect(doctor.refusedSignature(r, mistaken).id, `${step} ms on`).toBe('not-diagnosed');
      }
      vi.advanceTimersByTime(1);
      expect(doctor.refusedSignature(r, mistaken).id).toBe('trailing-newline');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the doctor on a signature of the wrong shape', () => {
  const r = {
    secret: MAIN.secret,
    apiUser: MAIN.apiUser,
    token: 'svc',
    utctime: '1795000000000',
    nonce: 'nonce-1234',
    method: 'GET',
    path: '/v1/svc/time',
    body: '',
  };
  const right = hmac('sha512', MAIN.secret, stringToSign(r.utctime, r.nonce));

  it('the right digest with spaces around it gets the hint for its shape, not an empty one', () => {
    const hint = new Doctor().misshapenSignature(` ${right} `, r);
    expect(hint?.id).toBeTruthy();
    expect(hint?.text).toBeTruthy();
  });

  it('a known API user lets the doctor name the algorithm; an unknown one, the shape alone', () => {
    const sha256 = hmac('sha256', MAIN.secret, stringToSign(r.utctime, r.nonce));
    expect(new Doctor().misshapenSignature(sha256, r)?.id).toBe('sha256');
    // As the header's parser would not: spaces around the digest are not taken for part of it.
    expect(new Doctor().misshapenSignature(` ${sha256}\t`, r)?.id).toBe('sha256');
    expect(new Doctor().misshapenSignature(sha256, undefined)?.id).not.toBe('sha256');
  });
});
