import { codeApplies, codeInfo, type Operation } from '../contract/codes.js';
import { parseJson } from '../contract/envelope.js';
import { isObject, own } from '../contract/response.js';
import type { ResponseStyle } from '../contract/response.js';
import type { Deviation } from '../run/answered.js';

/** An answer as judged: its status, Content-Type and body, and the body read as a JSON object. */
export interface SeenAnswer {
  status: number;
  contentType?: string;
  body: string;
  envelope?: Record<string, unknown>;
}

/** One thing found in an answer: its kind, and what exactly. */
export type Found = { kind: Deviation['kind']; what: string };

/** What the judge read in an answer (its envelope, its integer code), and what it found wrong. */
export type Judged = { envelope?: Record<string, unknown>; code?: number; problems: Found[] };

/** An answer, its body read once. */
export function seenAnswer(status: number, contentType: string | undefined, body: string): SeenAnswer {
  return { status, contentType, body, envelope: envelopeOf(body) };
}

/** The body as a JSON object, or undefined when it is not one. */
export function envelopeOf(body: string): Record<string, unknown> | undefined {
  const json = parseJson(body, false);
  return json.kind === 'value' && isObject(json.value) ? json.value : undefined;
}

/** Whether a `utctime` is ISO 8601 in UTC with fractional seconds and `Z`, as the interface document describes it. */
export function isIsoUtc(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/.test(text) && !Number.isNaN(Date.parse(text));
}

/** Judges one answer; `operation` (when known) is what the request asked for, for the code table's scope. */
export function judgeAnswer(a: SeenAnswer, style: ResponseStyle, operation?: Operation): Judged {
  const envelope = a.envelope;
  if (!envelope) return { problems: [{ kind: 'service-not-json', what: 'the body is not a JSON object' }] };
  const problems: Found[] = [];
  const add = (kind: Found['kind'], what: string) => problems.push({ kind, what });
  if (!/^application\/json\b/i.test(a.contentType ?? ''))
    add('service-not-json', `the body is JSON but its Content-Type is ${JSON.stringify(a.contentType ?? '(none)')}`);
  const keys = ['id', style === 'sdk' ? 'utcTime' : 'utctime', 'status', 'code', 'message', 'moreInfo'];
  const keyProblems = keyDifference(Object.keys(envelope), keys);
  if (keyProblems.length) add('service-envelope-keys', keyProblems.join('; '));
  const kindOf = (k: string) => (k === 'status' || k === 'code' ? 'an integer' : 'a string');
  const wrong = keys.filter((k) => Object.hasOwn(envelope, k) && typeName(envelope[k]) !== kindOf(k));
  if (wrong.length)
    add('service-envelope-types', wrong.map((k) => `${k} is ${typeName(envelope[k])}, not ${kindOf(k)}`).join('; '));
  const time = own(envelope, keys[1]);
  const iso = 'ISO 8601 UTC with fractional seconds and Z';
  if (typeof time === 'string' && !isIsoUtc(time))
    add('service-utctime-format', `${keys[1]} is ${JSON.stringify(time.slice(0, 40))}, not ${iso}`);
  const written = own(envelope, 'code');
  if (!Number.isInteger(written)) return { envelope, problems };
  const code = written as number;
  const info = codeInfo(code);
  const http = a.status;
  if (!info) add('service-code-unknown', `code ${code} is not in the code table`);
  else if (info.http !== http)
    add('service-status-mismatch', `code ${code} is HTTP ${info.http} in the code table, and came with HTTP ${http}`);
  if (info && operation !== undefined && !codeApplies(info, operation))
    add('service-code-scope', `code ${code} is not an answer to ${operation} in the code table`);
  const status = own(envelope, 'status');
  if (Number.isInteger(status) && status !== http)
    add('service-status-mismatch', `the envelope's status ${status as number} differs from the HTTP status ${http}`);
  const moreInfo = own(envelope, 'moreInfo');
  if (typeof moreInfo === 'string' && !linksToCode(moreInfo, code))
    add(
      'service-more-info',
      `moreInfo ${JSON.stringify(moreInfo.slice(0, 120))} is not an http(s) URL with code=${code}`,
    );
  return { envelope, code, problems };
}

/** The parts in which the service's answer differs from mfa-sim's; none when they agree. */
export function compareAnswers(theirs: SeenAnswer, mine: SeenAnswer): Found[] {
  const a = theirs.envelope;
  const b = mine.envelope;
  if (theirs.status !== mine.status || a?.code !== b?.code) {
    const what = `HTTP ${theirs.status} ${codeWords(a?.code)} where mfa-sim answers HTTP ${mine.status} ${codeWords(b?.code)}`;
    return [{ kind: 'service-differs-status', what }];
  }
  if (!a || !b) {
    const what = a ? 'mfa-sim answers no JSON envelope' : 'the body is not a JSON envelope';
    return a === b ? [] : [{ kind: 'service-differs-envelope', what }];
  }
  const out: Found[] = [];
  const shape = shapeDifference(a, b);
  if (shape) out.push({ kind: 'service-differs-envelope', what: shape });
  if (!sameMessage(a.message, b.message, a.code))
    out.push({ kind: 'service-differs-message', what: `the message differs from mfa-sim's` });
  return out;
}

/** An answer in a few words, for a finding's detail and the probe. */
export function answerText(a: SeenAnswer, max = 120): string {
  const quote = (text: string) => JSON.stringify(text.length <= max ? text : `${text.slice(0, max)}…`);
  const code = a.envelope?.code;
  if (typeof code === 'number' || typeof code === 'string') {
    const message = a.envelope!.message;
    return `HTTP ${a.status} ${code}${typeof message === 'string' ? ` ${quote(message)}` : ''}`;
  }
  // A header value may hold any byte but a line break: only its printable ASCII is quoted.
  const type =
    a.contentType === undefined ? '(no Content-Type)' : a.contentType.slice(0, 60).replace(/[^\x20-\x7e]/g, '?');
  return `HTTP ${a.status} ${type} ${a.body === '' ? '(empty)' : quote(a.body)}`;
}

/** A JSON value's kind, in words: "a string", "an integer", "a fraction", "null", "an object"... */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a fraction';
  return { string: 'a string', boolean: 'a boolean', object: 'an object' }[typeof value as string] ?? typeof value;
}

/** The keys `want` has and `have` lacks, and those `have` has besides, in words. */
function keyDifference(have: string[], want: string[]): string[] {
  const missing = want.filter((k) => !have.includes(k));
  const extra = have.filter((k) => !want.includes(k));
  return [
    ...(missing.length ? [`missing ${missing.join(', ')}`] : []),
    ...(extra.length ? [`extra ${extra.map((k) => JSON.stringify(k)).join(', ')}`] : []),
  ];
}

/** Whether `moreInfo` is an absolute http(s) URL of a page that takes this code as its `code` parameter. */
function linksToCode(moreInfo: string, code: number): boolean {
  try {
    const url = new URL(moreInfo);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.searchParams.get('code') === String(code);
  } catch {
    return false;
  }
}

function codeWords(code: unknown): string {
  return code === undefined ? '(no code)' : JSON.stringify(code);
}

/** How two envelopes' shapes differ (keys present, the kind of each value), or undefined when they are the same. */
function shapeDifference(a: Record<string, unknown>, b: Record<string, unknown>): string | undefined {
  const kinds = Object.keys(b).filter((k) => Object.hasOwn(a, k) && typeName(a[k]) !== typeName(b[k]));
  const parts = [
    ...keyDifference(Object.keys(a), Object.keys(b)),
    ...kinds.map((k) => `${k} is ${typeName(a[k])} where mfa-sim's is ${typeName(b[k])}`),
  ];
  return parts.length ? parts.join('; ') : undefined;
}

/** Whether two messages of one code say the same, as far as the document fixes it (see compareAnswers). */
function sameMessage(theirs: unknown, mine: unknown, code: unknown): boolean {
  if (theirs === mine) return true;
  if (typeof theirs !== 'string' || typeof mine !== 'string') return false;
  const b = envelopeOf(mine);
  if (b) {
    const a = envelopeOf(theirs);
    return a !== undefined && shapeDifference(a, b) === undefined;
  }
  const title = typeof code === 'number' ? codeInfo(code)?.title : undefined;
  return title !== undefined && theirs.startsWith(title) && mine.startsWith(title);
}
