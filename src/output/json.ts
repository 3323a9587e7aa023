import { RAW_CONTROLS, unicodeEscape } from './terminal.js';

/** What JSON.stringify leaves raw that a terminal or a line-based reader acts on (terminal.ts). */
const RAW = new RegExp(`[${RAW_CONTROLS}]`, 'g');

/** JSON as the simulator writes it everywhere (API envelopes, the control API's answers, the event stream, files). */
export function jsonText(
  value: unknown,
  replacer?: (this: unknown, key: string, value: unknown) => unknown,
  space?: number,
): string {
  // JSON.stringify gives nothing for a value JSON has no text for (undefined, a function): written as null.
  return (JSON.stringify(value, replacer, space) ?? 'null').replace(RAW, unicodeEscape);
}
