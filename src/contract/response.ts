import { mustCode } from '../codes.js';

/** `document`: the envelope as the interface document spells it (`utctime`); `sdk`: as the published clients parse it (`utcTime`). */
export type ResponseStyle = 'document' | 'sdk';

/**
 * The response envelope, as JSON text: exactly `{id, utctime, status, code, message, moreInfo}` (decisions §6),
 * `status` equal to the HTTP status, `message` always a string, `moreInfo` the simulator's page for the code.
 */
export function envelopeJson(style: ResponseStyle, id: string, now: number, code: number, message: string, baseUrl: string): string {
  const status = mustCode(code).http;
  const utc = isoTime(now);
  const moreInfo = `${baseUrl}/status?code=${code}`;
  return style === 'sdk'
    ? JSON.stringify({ id, utcTime: utc, status, code, message, moreInfo })
    : JSON.stringify({ id, utctime: utc, status, code, message, moreInfo });
}

let lastMs = NaN;
let lastIso = '';

/** `now` (epoch ms) as ISO 8601 with milliseconds and Z. Remembers the last one: many answers share a millisecond. */
export function isoTime(now: number): string {
  if (now !== lastMs) {
    lastIso = new Date(now).toISOString();
    lastMs = now;
  }
  return lastIso;
}
