import { mustCode } from './codes.js';

/**
 * What a check or an operation decides (a code and the message text), and how text a caller sent is quoted or cut.
 */

/** What a check decided: a code of the table and the `message` text of the envelope. */
export interface Answer {
  code: number;
  message: string;
}

/**
 * An error's message is cut to this many characters once secrets are hidden in it (cut first, a secret could be
 * left half shown): it may quote what the caller sent (a path, an address), up to the body or header limit, and
 * carries the doctor's hint.
 */
export const MAX_MESSAGE_CHARS = 512;

/** An answer whose message is the code's title, with an optional detail: "Title: detail." */
export function answer(code: number, detail?: string): Answer {
  const title = mustCode(code).title;
  if (!detail) return { code, message: title };
  return { code, message: `${title}: ${detail}` };
}

/**
 * Text cut to `max` characters, marked with an ellipsis when cut. Cut only text whose secrets are hidden already.
 * What is cut off is let go: the result shares no memory with the text (see `detached`).
 */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : detached(`${text.slice(0, max)}…`);
}

/**
 * A copy of a text that shares no memory with the one it was cut from. V8 keeps a slice of a long string as a view
 * of the whole: a few characters kept from a request would hold all of it (an 8 KB value cut to 32 characters still
 * costs 8 KB for as long as it is kept).
 */
export function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * A caller's value quoted in a message where no secret can be hidden: whole when short, else only its length, so a
 * secret is never shown in part (whole, the redactor that shows the message outside hides it).
 */
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
