import { envelopeOf, type SeenAnswer } from './judge.js';

/**
 * An answer in a few words, for a finding's detail and the probe's table: `HTTP 400 -4037 "Signature error"`, or
 * `HTTP 502 text/html "<html>…"` for one that is no envelope. Quoted as JSON, so a line break or a control character
 * shows as an escape; each output escapes the rest its own way (Markdown, XML, HTML, the terminal).
 */

/** Quoted text is cut to this many characters. */
const QUOTED_CHARS = 120;

export function answerText(a: SeenAnswer, max = QUOTED_CHARS): string {
  const envelope = envelopeOf(a.body);
  const code = envelope?.code;
  if (envelope && (typeof code === 'number' || typeof code === 'string')) {
    const message = envelope.message;
    return `HTTP ${a.status} ${code}${typeof message === 'string' ? ` ${quote(message, max)}` : ''}`;
  }
  // A header value may hold any byte but a line break: only printable ASCII of it is shown.
  const type =
    a.contentType === undefined ? '(no Content-Type)' : a.contentType.slice(0, 60).replace(/[^\x20-\x7e]/g, '?');
  return `HTTP ${a.status} ${type} ${a.body === '' ? '(empty)' : quote(a.body, max)}`;
}

/** Text as JSON quotes it, cut to `max` characters. */
function quote(text: string, max = QUOTED_CHARS): string {
  return JSON.stringify(text.length <= max ? text : `${text.slice(0, max)}…`);
}
