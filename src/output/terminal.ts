// Text for a terminal: what the command line writes to its standard output and error.

/** Characters a terminal acts on besides C0 controls, which JSON holds raw. */
export const RAW_CONTROLS = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';

/** Every C0 control but the line break the output's lines end with, and the rest. */
const ACTED_ON = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f${RAW_CONTROLS}]`, 'g');

/** A character written as JSON and JavaScript write it: `\u001b`. */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Text fit for a terminal: each character a terminal acts on. */
export function terminalText(text: string): string {
  return text.replace(ACTED_ON, unicodeEscape);
}
