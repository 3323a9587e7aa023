import { mustCode } from '../codes.js';

/** `document`: the envelope as the interface document spells it (`utctime`); `sdk`: as the published clients parse it (`utcTime`). */
export type ResponseStyle = 'document' | 'sdk';

/**
 * The response envelope, as JSON text: exactly `{id, utctime, status, code, message, moreInfo}` (decisions §6),
 * `status` equal to the HTTP status, `message` always a string, `moreInfo` the simulator's page for the code.
 */
export function envelopeJson(style: ResponseStyle, id: string, now: number, code: number, message: string, baseUrl: string): string {
  const status = mustCode(code).http;
  const utc = new Date(now).toISOString();
  const moreInfo = `${baseUrl}/status?code=${code}`;
  return style === 'sdk'
    ? JSON.stringify({ id, utcTime: utc, status, code, message, moreInfo })
    : JSON.stringify({ id, utctime: utc, status, code, message, moreInfo });
}
