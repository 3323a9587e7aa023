/**
 * Text for a terminal: what the command line writes to its standard output and error (banner, request log as text or
 * JSON lines, errors) holds no character a terminal acts on.
 */

/**
 * Characters a terminal acts on besides C0 controls, which JSON holds raw: DEL, the C1 controls (U+009B alone is CSI,
 * the start of an escape sequence), the bidi controls that reorder what follows, and the line and paragraph
 * separators some viewers break lines at.
 */
export const RAW_CONTROLS = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';

/** Every C0 control but the line break the output's lines end with, and the rest. */
const ACTED_ON = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f${RAW_CONTROLS}]`, 'g');

/** A character written as JSON and JavaScript write it: `\u001b`. */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Text fit for a terminal: each character a terminal acts on (an ESC starting a sequence that sets the window's title
 * or clears the screen, a C1 control, a bidi control) shown escaped, `\u001b`; line breaks kept. A JSON line stays
 * JSON with the same values: in JSON text such characters can only stand inside strings, where `\u` is an escape.
 */
export function terminalText(text: string): string {
  return text.replace(ACTED_ON, unicodeEscape);
}
