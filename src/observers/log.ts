import type { JournalEntry } from './journal.js';
import { lazy } from '../world/lazy.js';

/**
 * The command line's request log: one text line per request for a person, or JSON lines (pino); both from sealed records.
 */

/**
 * One line per request, for a person reading a terminal: time, method, path, API user, HTTP status, code,
 * message, rule, latency. For -4037 it adds the exact string the simulator expected to be signed, so a
 * wrongly signing client can see why (never the secret).
 */
export function formatLine(e: JournalEntry): string {
  const time = e.at.slice(11, 23);
  const who = e.apiUser ? ` ${e.apiUser}` : '';
  const outcome = e.code === undefined ? `fault ${e.fault}` : `${e.http} ${e.code} ${e.message}`;
  let line = `${time} ${e.method} ${e.path}${who} -> ${outcome}${e.rule ? ` [${e.rule}]` : ''} (${e.latencyMs} ms)`;
  if (e.expectedStringToSign !== undefined) {
    line += `; expected HMAC-SHA512 over ${JSON.stringify(e.expectedStringToSign)} with API user ${e.apiUser}'s secret, as lower-case hex`;
  }
  if (e.wouldFail?.length) line += `; auth: log, would fail: ${e.wouldFail.map((w) => `${w.code} (${w.reason})`).join(', ')}`;
  if (e.internalError) line += `; internal error: ${e.internalError}`;
  return line;
}

/**
 * JSON lines (`--log json`): one object per request, written by pino. pino is loaded only when asked for.
 * The fields are the journal entry's summary; never headers, bodies or secrets.
 */
export function jsonLog(): { request(e: JournalEntry): void; info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void } {
  const pino = lazy<typeof import('pino')>('pino')();
  // Written synchronously, as the text lines are: every line is out, in order, when the process exits.
  const logger = pino.pino({ base: { name: 'mfa-sim' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 1, sync: true }));
  return {
    request(e) {
      const fields = {
        seq: e.seq,
        at: e.at,
        method: e.method,
        path: e.path,
        apiUser: e.apiUser,
        user: e.user,
        operation: e.operation,
        http: e.http,
        code: e.code,
        message: e.message,
        scenario: e.scenario,
        rule: e.rule,
        fault: e.fault,
        challengeId: e.challengeId,
        latencyMs: e.latencyMs,
        expectedStringToSign: e.expectedStringToSign,
        wouldFail: e.wouldFail,
        internalError: e.internalError,
      };
      if (e.internalError || e.code === -5000) logger.error(fields, 'request');
      else logger.info(fields, 'request');
    },
    info: (msg, fields = {}) => logger.info(fields, msg),
    warn: (msg, fields = {}) => logger.warn(fields, msg),
  };
}
