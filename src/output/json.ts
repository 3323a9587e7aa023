import { RAW_CONTROLS, unicodeEscape } from './terminal.js';

/** What JSON.stringify leaves raw that a terminal or a line-based reader acts on (terminal.ts). */
const RAW = new RegExp(`[${RAW_CONTROLS}]`, 'g');

/** A string JSON writes as it is, in quotes: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** A string with nothing RAW in it: printable ASCII. */
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * JSON as the simulator writes it everywhere (API envelopes, the control API's answers, the event stream, files):
 * JSON.stringify's text, with the characters it leaves raw that a terminal acts on (DEL, C1 and bidi controls, line
 * and paragraph separators) escaped as `\u009b`. The values are the same; a `curl` of the journal printed to a
 * terminal writes no escape sequence.
 */
export function jsonText(
  value: unknown,
  replacer?: (this: unknown, key: string, value: unknown) => unknown,
  space?: number,
): string {
  // Most strings (an id, a base URL, a message) are printable ASCII: nothing in them is RAW, and with no quote or
  // backslash either their JSON text is the string in quotes. One scan says so, where stringifying and escaping take
  // two and a copy (every API answer writes three such strings).
  if (typeof value === 'string' && replacer === undefined) {
    if (PLAIN.test(value)) return `"${value}"`;
    if (PRINTABLE.test(value)) return JSON.stringify(value);
  }
  // JSON.stringify gives nothing for a value JSON has no text for (undefined, a function): written as null.
  return (JSON.stringify(value, replacer, space) ?? 'null').replace(RAW, unicodeEscape);
}
