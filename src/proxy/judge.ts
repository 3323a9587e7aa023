import { codeApplies, codeInfo, type Operation } from '../codes.js';
import { isObject, own } from '../contract/answer.js';
import type { ResponseStyle } from '../contract/response.js';
import type { ContractKind } from './deviation.js';

/**
 * Judging an answer of the service against the contract: the envelope's keys and their types, `utctime`, the HTTP
 * status and code as a pair of the code table (src/codes.ts), a code outside the table or outside its operations,
 * `moreInfo`, and a body that is not JSON. The envelope is the one mfa-sim answers (contract/response.ts): exactly
 * `id, utctime, status, code, message, moreInfo`, with `utcTime` in the sdk response style.
 */

/** An answer as judged: the status and body, with the Content-Type it came with. */
export interface SeenAnswer {
  status: number;
  contentType?: string;
  body: string;
}

/** What the judge read in an answer, and what it found wrong. */
export interface Judged {
  /** The envelope, when the body is a JSON object. */
  envelope?: Record<string, unknown>;
  /** The code, when the envelope has an integer one. */
  code?: number;
  problems: { kind: ContractKind; what: string }[];
}

/** The keys of the envelope, in the order mfa-sim writes them. */
function envelopeKeys(style: ResponseStyle): string[] {
  return ['id', style === 'sdk' ? 'utcTime' : 'utctime', 'status', 'code', 'message', 'moreInfo'];
}

/** ISO 8601 in UTC, with fractional seconds and the `Z` suffix, as the interface document describes `utctime`. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;

/** Whether a `utctime` is an instant written as the interface document describes it. */
export function isIsoUtc(text: string): boolean {
  return ISO_UTC.test(text) && !Number.isNaN(Date.parse(text));
}

/** The body as a JSON object, or undefined when it is not one. */
export function envelopeOf(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Judges one answer; `operation` (when known) is what the request asked for, for the code table's scope. */
export function judgeAnswer(answer: SeenAnswer, style: ResponseStyle, operation?: Operation): Judged {
  const envelope = envelopeOf(answer.body);
  if (!envelope) return { problems: [{ kind: 'service-not-json', what: 'the body is not a JSON object' }] };
  const problems: Judged['problems'] = [];
  const add = (kind: ContractKind, what: string) => problems.push({ kind, what });
  if (!/^application\/json\b/i.test(answer.contentType ?? ''))
    add(
      'service-not-json',
      `the body is JSON but its Content-Type is ${JSON.stringify(answer.contentType ?? '(none)')}`,
    );

  const expected = envelopeKeys(style);
  const missing = expected.filter((k) => !Object.hasOwn(envelope, k));
  const extra = Object.keys(envelope).filter((k) => !expected.includes(k));
  if (missing.length || extra.length)
    add(
      'service-envelope-keys',
      [
        missing.length ? `missing ${missing.join(', ')}` : '',
        extra.length ? `extra ${extra.map((k) => JSON.stringify(k)).join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; '),
    );

  const wrongTypes = expected.filter((k) => Object.hasOwn(envelope, k) && !hasType(k, envelope[k]));
  if (wrongTypes.length)
    add(
      'service-envelope-types',
      wrongTypes
        .map(
          (k) => `${k} is ${typeName(envelope[k])}, not ${k === 'status' || k === 'code' ? 'an integer' : 'a string'}`,
        )
        .join('; '),
    );

  const time = own(envelope, expected[1]);
  if (typeof time === 'string' && !isIsoUtc(time))
    add(
      'service-utctime-format',
      `${expected[1]} is ${JSON.stringify(time.slice(0, 40))}, not ISO 8601 UTC with fractional seconds and Z`,
    );

  const written = own(envelope, 'code');
  if (!Number.isInteger(written)) return { envelope, problems };
  const code = written as number;
  const info = codeInfo(code);
  if (!info) {
    add('service-code-unknown', `code ${code} is not in the code table`);
  } else {
    if (info.http !== answer.status)
      add(
        'service-status-mismatch',
        `code ${code} is HTTP ${info.http} in the code table, and came with HTTP ${answer.status}`,
      );
    if (operation !== undefined && !codeApplies(info, operation))
      add('service-code-scope', `code ${code} is not an answer to ${operation} in the code table`);
  }
  const status = own(envelope, 'status');
  if (Number.isInteger(status) && status !== answer.status)
    add(
      'service-status-mismatch',
      `the envelope's status ${status as number} differs from the HTTP status ${answer.status}`,
    );
  const moreInfo = own(envelope, 'moreInfo');
  if (typeof moreInfo === 'string' && !linksToCode(moreInfo, code))
    add(
      'service-more-info',
      `moreInfo ${JSON.stringify(moreInfo.slice(0, 120))} is not an http(s) URL with code=${code}`,
    );
  return { envelope, code, problems };
}

function hasType(key: string, value: unknown): boolean {
  return key === 'status' || key === 'code' ? Number.isInteger(value) : typeof value === 'string';
}

/** A JSON value's kind, in words: "a number", "null", "an object"... */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fraction';
  return (
    { string: 'a string', number: 'an integer', boolean: 'a boolean', object: 'an object' }[typeof value as string] ??
    typeof value
  );
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
