import { terminalText } from './terminal.js';

/**
 * Text for Markdown (the report a CI job shows as its summary, which GitHub renders with GFM): what a client sent (a
 * scenario name, a hint quoting a value) never becomes markup.
 */

/**
 * The characters that can start markup within a line of GFM (a paragraph after other text, a table cell), each ASCII
 * punctuation that CommonMark lets a backslash escape: escapes and code (`\\` and a backtick), emphasis and
 * strikethrough, links and images, HTML and entities, table cells, math, GitHub's references and mentions, and the
 * autolinks of `scheme:`, e-mail addresses and `www.` (its dot). Marks that start a block (`-`, `+`, `>`, `1.`) do so
 * only at the start of a line, which a line break never gives this text.
 */
const STARTS_MARKUP = /[\\`*_~[\]!<>&|$:@#]|(?<=www)\./gi;

/**
 * Text shown as itself in Markdown, within a line or a table cell: see STARTS_MARKUP; line breaks as spaces, controls
 * shown escaped.
 */
export function markdownText(text: string): string {
  return terminalText(text.replace(/[\r\n]+/g, ' ')).replace(STARTS_MARKUP, '\\$&');
}

/**
 * A code span that holds any text (CommonMark): fenced by one backtick more than the longest run of backticks in it,
 * with a space inside each fence when the text starts or ends with a backtick (or with a space, which the renderer
 * would take off); line breaks as spaces.
 */
export function codeSpan(text: string): string {
  const value = text.replace(/[\r\n]+/g, ' ');
  // No code span is empty: two backticks are a run of its own, shown as they are.
  if (value === '') return '';
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(value) && value.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/**
 * A code span in a Markdown table cell: a GFM table splits its rows at pipes before reading code spans, so each is
 * escaped.
 */
export function markdownCode(text: string): string {
  return codeSpan(terminalText(text)).replace(/\|/g, '\\|');
}
