import type { JournalEntry } from '../run/answered.js';
import { $, codeClass, el, prettyJson } from './page.js';

/** The dashboard's request log: a row per answered request, newest first, each with its request and answer. */

const log = $('#log');

function logRow(e: JournalEntry): HTMLElement {
  const c = codeClass(e.code);
  const who = [e.apiUser, e.by].filter((x) => x != null).join(' · ');
  // A long message: its start, and a sign that the rest is in the row's details.
  const message = e.message ?? e.fault ?? '';
  const summary = el(
    'summary',
    {},
    el('span', { class: 'muted seq', text: `#${e.seq}` }),
    el('span', { text: e.at.slice(11, 23) }),
    el('span', { class: `pill ${c}`, text: e.code == null ? 'none' : String(e.code) }),
    el('span', { class: 'what', text: `${e.method} ${e.path}${who ? ` · ${who}` : ''}` }),
    el('span', { class: 'ms', text: `${e.latencyMs} ms` }),
    el('span', {
      class: 'msg',
      text: message.length <= 160 ? message : `${message.slice(0, 160)}… (the whole answer below)`,
    }),
  );
  const d = el('details', { class: 'entry', 'data-tone': c, 'data-code': String(e.code) }, summary);
  const part = (title: string, text: string) => d.append(el('h4', { text: title }), el('pre', { text }));
  if (e.hint) {
    const title = e.by ? 'What a client sending this is told' : 'What the client likely did wrong';
    d.append(el('h4', { text: title }), el('p', { class: 'hint', text: e.hint.text }));
  }
  const headers = Object.entries(e.request?.headers ?? {}).map(([k, v]) => `${k}: ${String(v)}`);
  const body = e.request?.body ? `\n\n${prettyJson(e.request.body)}` : '';
  part('Request', `${e.method} ${e.path}\n${headers.join('\n')}${body}`);
  part(
    'Response',
    e.response
      ? `HTTP ${e.http}\n\n${prettyJson(e.response.body)}`
      : `(no answer: the connection was ${e.fault ?? 'broken'})`,
  );
  if (e.expectedStringToSign) part('The string the simulator expected to be signed', e.expectedStringToSign);
  const wouldFail = e.wouldFail?.map((w) => `${w.code} ${w.reason}${w.hint ? ` (hint: ${w.hint.text})` : ''}`);
  const facts: [string, string | number | undefined][] = [
    ['operation', e.operation],
    ['type', e.type],
    ['user', e.user],
    ['challenge', e.challengeId],
    ['scenario', e.scenario],
    ['rule', e.rule],
    ['sent by', e.by ?? 'a client'],
    ['internal error', e.internalError],
    ['would also fail', wouldFail?.join('; ')],
  ];
  part('Details', facts.flatMap(([k, v]) => (v == null ? [] : [`${k}: ${String(v)}`])).join('\n'));
  return el('li', {}, d);
}

export function addToLog(e: JournalEntry): void {
  log.prepend(logRow(e));
  while (log.children.length > 500) log.lastChild!.remove();
}

export function clearLog(): void {
  log.replaceChildren();
}
