import { jsonText } from '../output/json.js';
import { mustCode } from './codes.js';
import { clampInstant } from './time-limits.js';

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
  return `{"id":${jsonText(id)},"${timeKey}":"${isoTime(now)}","status":${status},"code":${code},"message":${jsonText(message)},"moreInfo":${jsonText(`${baseUrl}/status?code=${code}`)}}`;
}

/**
 * `now` (epoch ms) as ISO 8601 with milliseconds and Z. Never throws: an instant outside the clock's range (which the
 * clock never reaches) shows as the nearest end.
 */
export const isoTime = (now: number): string => new Date(clampInstant(now)).toISOString();

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
