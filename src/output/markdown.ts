import { terminalText } from './terminal.js';

// Text for Markdown (the report a CI job shows as its summary, which GitHub renders with GFM).

/** The characters that can start markup within a line of GFM. */
const STARTS_MARKUP = /[\\`*_~[\]!<>&|$:@#]|(?<=www)\./gi;

/** Text shown as itself in Markdown, within a line or a table cell. */
export function markdownText(text: string): string {
  return terminalText(text.replace(/[\r\n]+/g, ' ')).replace(STARTS_MARKUP, '\\$&');
}

/** A code span that holds any text (CommonMark). */
export function codeSpan(text: string): string {
  const value = text.replace(/[\r\n]+/g, ' ');
  // No code span is empty: two backticks are a run of its own, shown as they are.
  if (value === '') return '';
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(value) && value.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** A code span in a Markdown table cell. */
export function markdownCode(text: string): string {
  return codeSpan(terminalText(text)).replace(/\|/g, '\\|');
}
