import { jsonText } from '../output/json.js';
import { mustCode } from '../codes.js';
import { clampInstant } from '../world/time-limits.js';

/**
 * The response envelope (docs/behaviour.md#responses) as JSON text, the ISO time in it, and the last-resort -5000
 * envelope.
 */

/**
 * `document`: the envelope as the interface document spells it (`utctime`); `sdk`: as the published clients parse it
 * (`utcTime`).
 */
export type ResponseStyle = 'document' | 'sdk';

/**
 * The response envelope, as JSON text: exactly `{id, utctime, status, code, message, moreInfo}`
 * (docs/behaviour.md#responses), `status` equal to the HTTP status, `message` always a string, `moreInfo` the
 * simulator's page for the code.
 */
export function envelopeJson(
  style: ResponseStyle,
  id: string,
  now: number,
  code: number,
  message: string,
  baseUrl: string,
): string {
  const status = mustCode(code).http;
  // Written out rather than stringified as an object, on every answer: only the id, the message and the base URL can
  // hold what a client sent, and they are escaped as every JSON text is (jsonText); the rest are numbers and ISO time.
  const timeKey = style === 'sdk' ? 'utcTime' : 'utctime';
  return `{"id":${jsonText(id)},"${timeKey}":"${isoTime(now)}","status":${status},"code":${code},"message":${lastJson(message)},"moreInfo":${moreInfoJson(baseUrl, code)}}`;
}

/**
 * The message as JSON text. Remembers the last one: every answer to a time request within a second has the same
 * message, and escaping it again for each is a measurable part of the answer.
 */
function lastJson(message: string): string {
  // Stryker disable next-line ConditionalExpression: made again every time, the text is the same (a memo for speed)
  if (message !== lastMessage.text) lastMessage = { text: message, json: jsonText(message) };
  return lastMessage.json;
}
let lastMessage = { text: '', json: '""' };

/** `moreInfo` as JSON text; the last one remembered, as a simulator answers one base URL and a few codes. */
function moreInfoJson(baseUrl: string, code: number): string {
  // Stryker disable next-line ConditionalExpression: made again every time, the text is the same (a memo for speed)
  if (baseUrl !== lastMoreInfo.baseUrl || code !== lastMoreInfo.code)
    lastMoreInfo = { baseUrl, code, json: jsonText(`${baseUrl}/status?code=${code}`) };
  return lastMoreInfo.json;
}
let lastMoreInfo = { baseUrl: '', code: NaN, json: '' };

let lastMs = NaN;
let lastIso = '';

/**
 * `now` (epoch ms) as ISO 8601 with milliseconds and Z. Remembers the last one: many answers share a millisecond.
 * Never throws: an instant outside the clock's range (which the clock never reaches) shows as the nearest end.
 */
export function isoTime(now: number): string {
  // Stryker disable next-line ConditionalExpression: made again every time, the text is the same (a memo for speed)
  if (now !== lastMs) {
    lastIso = new Date(clampInstant(now)).toISOString();
    lastMs = now;
  }
  return lastIso;
}

/** The last-resort -5000 envelope when even building one fails: constants only, so it cannot fail in turn. */
const STATIC_INTERNAL_ERROR = JSON.stringify({
  id: 'sim-internal',
  utctime: '1970-01-01T00:00:00.000Z',
  status: 500,
  code: -5000,
  message: 'Internal error',
  moreInfo: '/status?code=-5000',
});

/** A -5000 envelope. Whatever the values given, it returns an envelope and never throws. */
export function internalErrorJson(
  style: ResponseStyle,
  id: string,
  now: number,
  baseUrl: string,
  message = 'Internal error',
): string {
  try {
    return envelopeJson(style, id, now, -5000, message, baseUrl);
  } catch {
    return STATIC_INTERNAL_ERROR;
  }
}
