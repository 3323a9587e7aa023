import type { Logger } from 'pino';
import type { JournalEntry } from '../run/journal.js';
import { HINT_JOIN, NOT_DIAGNOSED } from '../doctor/doctor.js';
import { NO_KNOWN_MISTAKE } from '../doctor/signature.js';

// The request log: one text line per request for a person, or JSON lines (pino), from the journal's entries.

/** A value in a log line is at most this long; a longer one is cut, with its size. */
export const MAX_LOGGED_VALUE = 160;
const MAX_LOGGED_HINT = 240; // a hint is the line's point for a client author
const DATA_URL = /data:([\w/+.-]+);base64,[A-Za-z0-9+/=]+/g;

/** A value on one line: a data URL (a new challenge's QR image) as kind and size, a long value cut with its size. */
export function loggable(text: string, max = MAX_LOGGED_VALUE): string {
  const short = text
    .replace(DATA_URL, (url, type: string) => `data:${type};base64,… (${url.length} characters)`)
    .replace(/[\r\n]+/g, ' ');
  return short.length <= max ? short : `${short.slice(0, max)}… (${short.length} characters)`;
}

/** Hints that only point at the string to sign, which the line shows whole after them: left out of the line. */
const POINT_AT_THE_STRING_TO_SIGN = new Set([NO_KNOWN_MISTAKE, NOT_DIAGNOSED.id]);

/** The message without the hint the answer put at its end (the line shows the hint on its own). */
function withoutHint(message: string, hint: JournalEntry['hint']): string {
  const ending = hint && `${HINT_JOIN}${hint.text}`;
  return ending && message.endsWith(ending) ? message.slice(0, -ending.length) : message;
}

/** A request's line; for -4037 with the exact string the simulator expected to be signed (never the secret). */
export function formatLine(e: JournalEntry): string {
  const who = `${e.apiUser ? ` ${e.apiUser}` : ''}${e.by ? ` (${e.by})` : ''}`;
  let line = `${e.at.slice(11, 23)} ${e.method} ${loggable(e.path)}${who} -> ${outcomeOf(e)}${e.rule ? ` [${e.rule}]` : ''} (${e.latencyMs} ms)`;
  if (e.hint && !POINT_AT_THE_STRING_TO_SIGN.has(e.hint.id))
    line += `; hint: ${loggable(e.hint.text, MAX_LOGGED_HINT)}`;
  if (e.expectedStringToSign !== undefined)
    line += `; expected HMAC-SHA512 over ${JSON.stringify(e.expectedStringToSign)} with API user ${e.apiUser}'s secret, as 128 hexadecimal characters`;
  if (e.wouldFail?.length)
    line += `; auth: log, would fail: ${e.wouldFail.map((w) => `${w.code} (${w.reason}${w.hint ? `; hint: ${loggable(w.hint.text, MAX_LOGGED_HINT)}` : ''})`).join(', ')}`;
  if (e.internalError) line += `; internal error: ${loggable(e.internalError)}`;
  return line;
}

/** An envelope's status, code and message; a fault (why, in proxy mode); or the status of an answer with no code. */
function outcomeOf(e: JournalEntry): string {
  if (e.code !== undefined) return `${e.http} ${e.code} ${loggable(withoutHint(e.message ?? '', e.hint))}`;
  if (e.fault !== undefined) return `fault ${e.fault}${e.message === undefined ? '' : `: ${loggable(e.message)}`}`;
  return `${e.http ?? '(no answer)'} (no code)`;
}

/** The fields of a journal entry a JSON line keeps (docs/command-line.md lists them): never headers or bodies. */
const JSON_FIELDS = [
  ...['seq', 'at', 'method', 'path', 'apiUser', 'user', 'operation', 'http', 'code', 'message', 'scenario', 'rule'],
  ...['fault', 'challengeId', 'latencyMs', 'expectedStringToSign', 'hint', 'wouldFail', 'internalError'],
] as const;

/** The JSON log (`--log json`), written by pino into `write`. pino is loaded only here: most runs never ask for it. */
export async function jsonLog(write: (line: string) => void): Promise<Logger> {
  const { default: pino } = await import('pino');
  return pino({ base: { name: 'mfa-sim' }, timestamp: pino.stdTimeFunctions.isoTime }, { write });
}

/** A request's JSON line: its journal entry's summary, each value at most a line. */
export function logRequest(logger: Logger, e: JournalEntry): void {
  const fields: Record<string, unknown> = Object.fromEntries(JSON_FIELDS.map((k) => [k, e[k]]));
  for (const k of ['path', 'message', 'internalError'] as const) if (e[k] !== undefined) fields[k] = loggable(e[k]);
  logger[e.internalError || e.code === -5000 ? 'error' : 'info'](fields, 'request');
}
