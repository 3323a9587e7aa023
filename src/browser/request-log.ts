import type { JournalEntry } from '../observers/answered.js';
import { $, codeClass, el, prettyJson } from './page.js';

/** The dashboard's request log: a row per answered request, newest first, each with its request and answer. */

const log = $('#log');

/**
 * A message as its row shows it: whole up to 160 characters, else its start and a sign that the rest is in the row's
 * details.
 */
function preview(message: string): string {
  return message.length <= 160 ? message : `${message.slice(0, 160)}… (the whole answer below)`;
}

function logRow(e: JournalEntry): HTMLElement {
  const c = codeClass(e.code);
  const who = [e.apiUser, e.by].filter((x) => x != null).join(' · ');
  const sum = el(
    'summary',
    {},
    el('span', { class: 'muted seq', text: `#${e.seq}` }),
    el('span', { text: e.at.slice(11, 23) }),
    el('span', { class: `pill ${c}`, text: e.code == null ? 'none' : String(e.code) }),
    el('span', { class: 'what', text: `${e.method} ${e.path}${who ? ` · ${who}` : ''}` }),
    el('span', { class: 'ms', text: `${e.latencyMs} ms` }),
    el('span', { class: 'msg', text: preview(e.message ?? e.fault ?? '') }),
  );
  const d = el('details', { class: 'entry', 'data-tone': c, 'data-code': String(e.code) }, sum);
  const headers = e.request?.headers ?? {};
  if (e.hint)
    d.append(
      el('h4', { text: e.by ? 'What a client sending this is told' : 'What the client likely did wrong' }),
      el('p', { class: 'hint', text: e.hint.text }),
    );
  d.append(
    el('h4', { text: 'Request' }),
    el('pre', {
      text: `${e.method} ${e.path}\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n')}${e.request?.body ? `\n\n${prettyJson(e.request.body)}` : ''}`,
    }),
  );
  d.append(
    el('h4', { text: 'Response' }),
    el('pre', {
      text: e.response
        ? `HTTP ${e.http}\n\n${prettyJson(e.response.body)}`
        : `(no answer: the connection was ${e.fault ?? 'broken'})`,
    }),
  );
  if (e.expectedStringToSign)
    d.append(
      el('h4', { text: 'The string the simulator expected to be signed' }),
      el('pre', { text: e.expectedStringToSign }),
    );
  const facts: [string, unknown][] = [
    ['operation', e.operation],
    ['type', e.type],
    ['user', e.user],
    ['challenge', e.challengeId],
    ['scenario', e.scenario],
    ['rule', e.rule],
    ['sent by', e.by ?? 'a client'],
    ['internal error', e.internalError],
  ];
  if (e.wouldFail)
    facts.push([
      'would also fail',
      e.wouldFail.map((w) => `${w.code} ${w.reason}${w.hint ? ` (hint: ${w.hint.text})` : ''}`).join('; '),
    ]);
  d.append(
    el('h4', { text: 'Details' }),
    el('pre', {
      text: facts
        .filter((f) => f[1] != null)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n'),
    }),
  );
  return el('li', {}, d);
}

export function addToLog(e: JournalEntry): void {
  log.prepend(logRow(e));
  while (log.children.length > 500) log.lastChild!.remove();
}

export function clearLog(): void {
  log.replaceChildren();
}
