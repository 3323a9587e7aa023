import { mustCode } from '../codes.js';

/** What the pipeline decided: a code of the table and the `message` text of the envelope. */
export interface Answer {
  code: number;
  message: string;
}

/** A detail is cut to this many characters: it may quote what the caller sent (a path, an address), which can be up to the body or header limit. */
export const MAX_DETAIL_CHARS = 300;

/** An answer whose message is the code's title, with an optional detail: "Title: detail." */
export function answer(code: number, detail?: string): Answer {
  const title = mustCode(code).title;
  if (!detail) return { code, message: title };
  return { code, message: `${title}: ${detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}…` : detail}` };
}

/** The value of an own property, never one inherited from a prototype (`constructor`, `__proto__`, ...). */
export function own(o: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/** Whether a value is a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
