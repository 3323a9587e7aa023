import type { JournalEntry } from './journal.js';
import { lazy } from '../world/lazy.js';
import { HINT_JOIN } from '../doctor/hint.js';
import { NOT_DIAGNOSED } from '../doctor/doctor.js';
import { NO_KNOWN_MISTAKE } from '../doctor/signature.js';

/**
 * The command line's request log: one text line per request for a person, or JSON lines (pino); both from sealed
 * records.
 */

/** A value in a log line is at most this long; a longer one is cut, with its size. */
export const MAX_LOGGED_VALUE = 160;

/**
 * A value as a log line shows it: a data URL (the QR image of a new challenge) as its kind and size, anything
 * longer than a line cut to MAX_LOGGED_VALUE characters with its size; never more than one line.
 */
export function loggable(text: string, max = MAX_LOGGED_VALUE): string {
  // Most values (a path, a short message) need nothing done: a look says so, where the replacements take two scans
  // (always replacing gives the same text, only slower).
  if (text.length <= max && !needsShortening(text)) return text;
  const short = text
    .replace(
      /data:([\w/+.-]+);base64,[A-Za-z0-9+/=]+/g,
      (url, type: string) => `data:${type};base64,… (${url.length} characters)`,
    )
    .replace(/[\r\n]+/g, ' ');
  return short.length <= max ? short : `${short.slice(0, max)}… (${short.length} characters)`;
}

/**
 * What `loggable` shortens: a data URL, a line break. Every request's path and message are asked: three searches for
 * a string (each one fast scan) take a third of the time of one regular expression with a choice in it.
 */
function needsShortening(text: string): boolean {
  return text.includes('data:') || text.includes('\n') || text.includes('\r');
}

/** A hint is the line's point for a client author: it gets a longer line of its own. */
const MAX_LOGGED_HINT = 240;

/** Hints that only point at the string to sign, which the line shows whole after them: left out of the line. */
const POINT_AT_THE_STRING_TO_SIGN = new Set([NO_KNOWN_MISTAKE, NOT_DIAGNOSED.id]);

/** The message without the hint the answer carries at its end (the log line shows the hint on its own). */
function withoutHint(message: string, hint: JournalEntry['hint']): string {
  if (!hint) return message;
  // Compared in place: the hint is often longer than the rest of the line, and not copied to be looked for.
  const cut = message.length - hint.text.length - HINT_JOIN.length;
  // Without `cut >= 0`, only a message that itself begins with the join would read otherwise: no code's message does.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: see the line above
  return cut >= 0 && message.endsWith(hint.text) && message.startsWith(HINT_JOIN, cut)
    ? message.slice(0, cut)
    : message;
}

/**
 * One line per request, for a person reading a terminal: time (the simulator's clock, UTC), method, path, API user,
 * HTTP status, code, message, rule, latency. For -4037 it adds the exact string the simulator expected to be signed,
 * so a wrongly signing client can see why (never the secret).
 */
export function formatLine(e: JournalEntry): string {
  const time = e.at.slice(11, 23);
  const who = `${e.apiUser ? ` ${e.apiUser}` : ''}${e.by ? ` (${e.by})` : ''}`;
  let line = `${time} ${e.method} ${loggable(e.path)}${who} -> ${outcomeOf(e)}${e.rule ? ` [${e.rule}]` : ''} (${e.latencyMs} ms)`;
  if (e.hint && !POINT_AT_THE_STRING_TO_SIGN.has(e.hint.id))
    line += `; hint: ${loggable(e.hint.text, MAX_LOGGED_HINT)}`;
  if (e.expectedStringToSign !== undefined) {
    line += `; expected HMAC-SHA512 over ${JSON.stringify(e.expectedStringToSign)} with API user ${e.apiUser}'s secret, as 128 hexadecimal characters`;
  }
  if (e.wouldFail?.length)
    line += `; auth: log, would fail: ${e.wouldFail.map((w) => `${w.code} (${w.reason}${w.hint ? `; hint: ${loggable(w.hint.text, MAX_LOGGED_HINT)}` : ''})`).join(', ')}`;
  if (e.internalError) line += `; internal error: ${loggable(e.internalError)}`;
  return line;
}

/**
 * What the request came to: the status, code and message of an envelope; a fault (with why, in proxy mode when the
 * upstream gave no answer); or the status of an answer with no code (an upstream's page, plain text, nothing).
 */
function outcomeOf(e: JournalEntry): string {
  if (e.code !== undefined) return `${e.http} ${e.code} ${loggable(withoutHint(e.message ?? '', e.hint))}`;
  if (e.fault !== undefined) return `fault ${e.fault}${e.message === undefined ? '' : `: ${loggable(e.message)}`}`;
  return `${e.http ?? '(no answer)'} (no code)`;
}

/**
 * How long a log line may wait to be written with the lines after it. Under load a turn of the event loop answers a
 * dozen requests or so: a write per turn is still a system call, and a wake-up of the reader, every dozen requests.
 * A person reading the log cannot see 20 ms; the reader of a pipe sees ten times fewer writes.
 */
export const LOG_BATCH_MS = 20;

/**
 * Log output written in batches: the lines of the last LOG_BATCH_MS leave in one write, not one write per request
 * (under load, a write per line costs more than the request). A request's line is made when its batch is written,
 * from its journal entry (sealed as far as a line shows it): the batch's lines are made together, while the code
 * that makes them is hot. Everything is out once `flush` returns: call it before the process exits.
 */
export class LogSink {
  private pending: (string | JournalEntry)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** Takes the text of the batch and its number of lines. */
    private readonly write: (text: string, lines: number) => void,
    /** Told of a request whose line could not be made (a bug of the simulator's): the line is left out. */
    private readonly failed: (error: unknown, seq: number) => void = () => {},
  ) {}

  /** Text that ends with its line break. */
  push(text: string): void {
    this.add(text);
  }

  /** A request's line (formatLine), made when its batch is written. */
  request(e: JournalEntry): void {
    this.add(e);
  }

  private add(item: string | JournalEntry): void {
    this.pending.push(item);
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), LOG_BATCH_MS);
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    let text = '';
    let lines = 0;
    for (const item of batch) {
      if (typeof item === 'string') text += item;
      else {
        try {
          text += `${formatLine(item)}\n`;
        } catch (e) {
          this.failed(e, item.seq);
          continue;
        }
      }
      lines++;
    }
    if (lines > 0) this.write(text, lines);
  }
}

/**
 * JSON lines (`--log json`): one object per request, written by pino into `sink`. pino is loaded only when asked
 * for. The fields are the journal entry's summary, each value at most a line; never headers, bodies or secrets.
 */
export function jsonLog(sink: LogSink): {
  request(e: JournalEntry): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
} {
  const pino = lazy<typeof import('pino')>('pino')();
  const logger = pino.pino(
    { base: { name: 'mfa-sim' }, timestamp: pino.stdTimeFunctions.isoTime },
    { write: (line: string) => sink.push(line) },
  );
  return {
    request(e) {
      const fields = {
        seq: e.seq,
        at: e.at,
        method: e.method,
        path: loggable(e.path),
        apiUser: e.apiUser,
        user: e.user,
        operation: e.operation,
        http: e.http,
        code: e.code,
        message: e.message === undefined ? undefined : loggable(e.message),
        scenario: e.scenario,
        rule: e.rule,
        fault: e.fault,
        challengeId: e.challengeId,
        latencyMs: e.latencyMs,
        expectedStringToSign: e.expectedStringToSign,
        hint: e.hint,
        wouldFail: e.wouldFail,
        internalError: e.internalError === undefined ? undefined : loggable(e.internalError),
      };
      if (e.internalError || e.code === -5000) logger.error(fields, 'request');
      else logger.info(fields, 'request');
    },
    info: (msg, fields = {}) => logger.info(fields, msg),
    warn: (msg, fields = {}) => logger.warn(fields, msg),
  };
}
