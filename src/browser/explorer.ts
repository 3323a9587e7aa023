import type { ExploreResult } from '../http/explore.js';
import { $, callControlApi, codeClass, el, prettyJson } from './page.js';

/** The dashboard's explorer: a form whose buttons send a client's requests and show what the simulator answered. */

const form = $<HTMLFormElement>('#explorer');
const result = $('#result');
export const explorerField = (name: string) => form.elements.namedItem(name) as HTMLInputElement;

export function setExplorerField(name: string, value: string): void {
  explorerField(name).value = value;
  if (name === 'challengeId') showPhoneLink();
}

export function showPhoneLink(): void {
  const id = explorerField('challengeId').value.trim();
  const a = $<HTMLAnchorElement>('#phone-link');
  a.hidden = !id;
  a.href = `/phone/${encodeURIComponent(id)}`;
}

/** What a click asked for, in words: the heading of its answer. */
function asked(kind: string, label: string, v: (name: string) => string): string {
  const user = v('user') || 'user@example.com';
  const challenge = v('challengeId') ? `challenge ${v('challengeId').slice(0, 8)}…` : 'no challenge id';
  switch (kind) {
    case 'challenge':
      return `${label} for ${user} (${v('challengeType')}, ${v('challengeExpiry')})`;
    case 'cancel':
    case 'status':
      return `${label}: ${challenge} of ${user}`;
    case 'verify':
      return `${label}: ${challenge} of ${user}, code ${v('authCode') || '(none)'}`;
    case 'blocked':
      return `${label}: ${user} at ${v('ipAddress') || '198.51.100.7'}`;
    case 'force': {
      const code = $<HTMLSelectElement>('#force-code');
      return `Force ${code.selectedOptions[0]?.textContent ?? code.value}`;
    }
    default:
      return label;
  }
}

export async function explore(kind: string): Promise<void> {
  const v = (name: string) => explorerField(name).value.trim();
  const fields = ['apiUser', 'user', 'challengeId', 'authCode', 'ipAddress', 'challengeType', 'challengeExpiry'];
  const body = {
    kind,
    ...Object.fromEntries(fields.map((f) => [f, v(f)])),
    enableQRcode: explorerField('enableQRcode').checked,
    enableAutoVerify: explorerField('enableAutoVerify').checked,
    clock: v('clock'),
    ...(kind === 'force' ? { code: Number(v('code')) } : {}),
  };
  result.replaceChildren(el('p', { class: 'muted', text: 'Sending…' }));
  let r: ExploreResult;
  try {
    r = await callControlApi<ExploreResult>('POST', '/__sim/explore', body);
  } catch (err) {
    return void result.replaceChildren(el('p', { class: 'pill err', text: (err as Error).message }));
  }
  // The heading says what was asked; the answers say what the simulator made of it.
  result.replaceChildren(el('h3', { text: asked(kind, r.label, v) }));
  let last: number | undefined;
  for (const x of r.exchanges) {
    let env: { code?: unknown; message?: unknown } | undefined;
    try {
      env = JSON.parse(x.response.body) as typeof env;
    } catch {
      env = undefined;
    }
    const code = typeof env?.code === 'number' ? env.code : undefined;
    last = code;
    const box = el('div', { class: 'answer' });
    const c = x.challenge;
    if (code === 2025 && c) {
      setExplorerField('challengeId', c.challengeId);
      setExplorerField('authCode', '');
      // In proxy mode the upstream wrote these: what is not a web link or a PNG is written as text, never followed.
      const page = c.phonePage;
      const where =
        page === undefined
          ? 'the phone page'
          : 'link' in page
            ? el('a', { href: page.link, target: '_blank', rel: 'noopener', text: 'the phone page' })
            : `the phone page at ${page.text} (not an http or https URL, so not a link)`;
      const sent = ' Challenge sent. Its id is in the form; the user answers on ';
      box.append(el('p', {}, el('span', { class: 'pill ok', text: '2025' }), sent, where, '.'));
      const qr = c.qrCode;
      if (qr && 'image' in qr)
        box.append(el('img', { src: qr.image, alt: 'QR code of the phone page', width: '120', height: '120' }));
      else if (qr)
        box.append(el('p', { class: 'muted small', text: `QR code not shown (not a PNG data URL): ${qr.text}` }));
    } else {
      const said = typeof env?.message === 'string' ? env.message : x.response.body.slice(0, 200);
      const pill = el('span', {
        class: `pill ${codeClass(code)}`,
        text: code == null ? `HTTP ${x.response.status}` : String(code),
      });
      // The HTTP status too: a forced code is met with the status the code table gives it.
      const http = kind === 'force' ? ` HTTP ${x.response.status}:` : '';
      box.append(el('p', {}, pill, `${http} ${said}`));
    }
    const headers = Object.entries(x.request.headers).map(([k, val]) => `${k}: ${val}`);
    const sent = `${x.request.method} ${x.request.url}\n${headers.join('\n')}${x.request.body ? `\n\n${prettyJson(x.request.body)}` : ''}`;
    const answer = `Answer (HTTP ${x.response.status})`;
    box.append(el('details', {}, el('summary', { text: 'Request sent' }), el('pre', { text: sent })));
    box.append(el('details', {}, el('summary', { text: answer }), el('pre', { text: prettyJson(x.response.body) })));
    result.append(box);
  }
  const usual = (r.expect.match(/-?\d+/g) ?? []).map(Number);
  const text =
    last !== undefined && !usual.includes(last)
      ? `This button usually gets ${r.expect}: this answer came from what was asked or from the scenario (its message says why).`
      : `The usual answer for this button: ${r.expect}.`;
  result.append(el('p', { class: 'muted small usual', text }));
}
