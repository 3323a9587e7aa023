import { jsonText } from '../output/json.js';
import { mustCode } from './codes.js';

// The response envelope (docs/behaviour.md#responses).

/** `document`: `utctime` as the interface document spells it; `sdk`: `utcTime` as the published clients parse it. */
export type ResponseStyle = 'document' | 'sdk';

/** The response envelope, as JSON text (docs/behaviour.md#responses). */
export function envelopeJson(
  style: ResponseStyle,
  id: string,
  now: number,
  code: number,
  message: string,
  baseUrl: string,
): string {
  const status = mustCode(code).http;
  // Only the id, the message and the base URL can hold what a client sent: each goes through jsonText.
  const timeKey = style === 'sdk' ? 'utcTime' : 'utctime';
  return `{"id":${jsonText(id)},"${timeKey}":"${isoTime(now)}","status":${status},"code":${code},"message":${jsonText(message)},"moreInfo":${jsonText(`${baseUrl}/status?code=${code}`)}}`;
}

/** `now` (epoch ms) as ISO 8601 with milliseconds and Z; never throws (out of range shows the nearest end). */
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

/** What a check decided: a code of the table and the `message` text of the envelope. */
export interface Answer {
  code: number;
  message: string;
}

/** An error's message is cut to this many characters once secrets are hidden (cut first, half a secret shows). */
export const MAX_MESSAGE_CHARS = 512;

/** An answer whose message is the code's title, with an optional detail: "Title: detail." */
export function answer(code: number, detail?: string): Answer {
  const title = mustCode(code).title;
  if (!detail) return { code, message: title };
  return { code, message: `${title}: ${detail}` };
}

/** Text cut to `max` characters, marked with an ellipsis when cut. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : detached(`${text.slice(0, max)}…`);
}

/** A copy sharing no memory with the text it was cut from (V8 keeps a slice as a view of the whole). */
export function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/** A caller's value quoted whole when short, else only its length, so no secret shows in part. */
export function quoted(value: string, max = 60): string {
  return value.length <= max ? `\`${value}\`` : `a value of ${value.length} characters`;
}

/** The value of an own property, never one inherited from a prototype (`constructor`, `__proto__`, ...). */
export function own(o: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/** Whether a value is a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The simulator's clock stays within these instants: 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z. */
export const EARLIEST = 0;
export const LATEST = 253_402_300_799_999;

/** The instants range in words, for messages. */
export const INSTANT_WORDS = 'from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

/** Whether an instant (epoch ms) is one the simulator's clock may show. */
export function isInstantInRange(t: number): boolean {
  return Number.isFinite(t) && t >= EARLIEST && t <= LATEST;
}

/** An instant brought into range: the nearest end for one outside it (NaN reads as the earliest). */
export function clampInstant(t: number): number {
  if (!(t >= EARLIEST)) return EARLIEST;
  return t > LATEST ? LATEST : t;
}
