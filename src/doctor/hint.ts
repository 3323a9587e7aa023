/**
 * What the client doctor says about one refused request: the likely mistake, in plain words, with its fix.
 */

/** A diagnosis: a stable id (for reports and tests) and a sentence that names the mistake and the fix. */
export interface Hint {
  id: string;
  text: string;
}

/** What joins an answer's message and the hint after it. */
export const HINT_JOIN = '. Hint: ';

/** The answer's message with the hint after it: "Signature error. Hint: signed with HMAC-SHA256: ...". */
export function withHint(message: string, hint: Hint | undefined): string {
  return hint ? `${message}${HINT_JOIN}${hint.text}` : message;
}

/** A string as a hint quotes it: JSON-escaped, so a line break shows as \n and a carriage return as \r. */
export function shownExactly(text: string): string {
  return JSON.stringify(text);
}
