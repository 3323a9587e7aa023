import type { JournalEntry } from './journal.js';

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
