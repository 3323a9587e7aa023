import type { JournalEntry } from '../observers/answered.js';
import { duration } from '../http/html.js';
import { stepWords, type Actor, type ChallengeState } from '../world/steps.js';

/**
 * The dashboard's script (`/__sim/ui`): the live request log and the challenges, both following the event stream
 * (`/__sim/events`: a `request` event per answered request, a `challenge` event per step of a challenge), the time
 * left of each waiting challenge counted down on the simulator's clock, the explorer and the buttons. Everything from
 * the journal or a client is put in the page as text (textContent), never as HTML.
 */

/** What the page hands its script (#dashboard-config). */
interface Config {
  /** The colour class of each code. */
  classes: Record<string, string>;
  /** How many journal entries the log loads at first. */
  logRows: number;
}

/** A challenge as the event stream's `challenge` event carries it (the control API's view). */
interface ChallengeView {
  id: string;
  user: string;
  state: ChallengeState;
  trail: { state: ChallengeState; at: string; by: Actor }[];
}

/** What the explorer answers (`POST /__sim/explore`). */
interface Explored {
  label: string;
  expect: string;
  exchanges: {
    request: { method: string; url: string; headers: Record<string, string>; body?: string };
    response: { status: number; body: string };
  }[];
}

/**
 * A finding as `GET /__sim/findings` answers it (doctor/finding-types.ts's Finding, the part the page shows).
 */
interface Finding {
  id: string;
  severity: 'info' | 'warning' | 'error';
  apiUser: string;
  explanation: string;
  detail?: string;
  firstSeq: number;
  lastSeq: number;
  count: number;
}

const config = JSON.parse(document.getElementById('dashboard-config')!.textContent) as Config;
const $ = <T extends HTMLElement = HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
const cls = (code: number | undefined) => (code == null ? 'warn' : (config.classes[code] ?? 'err'));

type Kid = Node | string | null | undefined;
function el(tag: string, attrs: Record<string, string> = {}, ...kids: Kid[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) e.append(kid);
  return e;
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = (await r.json().catch(() => ({ error: `HTTP ${r.status}` }))) as T & { error?: string };
  if (!r.ok) throw new Error(j.error ?? `HTTP ${r.status}`);
  return j;
}

let flashTimer: ReturnType<typeof setTimeout> | undefined;
function flash(message: string, bad = false): void {
  const f = $('#flash');
  f.textContent = message;
  f.className = `pill ${bad ? 'err' : 'info'}`;
  f.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => (f.hidden = true), 6000);
}

// ---- The simulator's clock, as this page follows it between the times it reads it.

const clockEl = $('#clock');
let clockNow = Number(clockEl.dataset.now);
// The page was rendered at about the time its navigation started.
let clockAt = performance.timeOrigin;
let frozen = clockEl.dataset.frozen === 'true';
const simulatorNow = () => (frozen ? clockNow : clockNow + Date.now() - clockAt);

function showClock(c?: { now: number; frozen: boolean }): void {
  if (c) {
    clockNow = c.now;
    clockAt = Date.now();
    frozen = c.frozen;
    const s = $('#clock-state');
    s.textContent = frozen ? 'frozen' : 'running';
    s.className = `pill ${frozen ? 'warn' : 'ok'}`;
  }
  clockEl.textContent = new Date(simulatorNow()).toISOString().replace('T', ' ').slice(0, 19);
}

// ---- The challenges: the table the simulator renders, fetched again at each step of a challenge.

let fetching: Promise<void> | undefined;
let again = false;
/** Fetches the table; a step that comes while it is on its way fetches it once more after. */
function refreshChallenges(): Promise<void> {
  if (fetching) {
    again = true;
    return fetching;
  }
  fetching = (async () => {
    const r = await fetch('/__sim/ui/challenges');
    if (r.ok) {
      const box = $('#challenges');
      box.innerHTML = await r.text();
      // The time left counts from the simulator's clock as the table was made: a challenge the page saw run out
      // and the simulator did not (its clock moved or frozen by someone else) is not asked for again and again.
      const clock = box.querySelector<HTMLElement>('[data-now]');
      if (clock) showClock({ now: Number(clock.dataset.now), frozen: clock.dataset.frozen === 'true' });
    }
    countDown();
  })().finally(() => {
    fetching = undefined;
    if (again) {
      again = false;
      void refreshChallenges();
    }
  });
  return fetching;
}

/**
 * The time left of each waiting challenge on the simulator's clock; one that runs out is fetched as the simulator now
 * says.
 */
function countDown(): void {
  let ranOut = false;
  for (const cell of document.querySelectorAll<HTMLElement>('#challenges td[data-expires]')) {
    const left = Number(cell.dataset.expires) - simulatorNow();
    cell.textContent = duration(left);
    if (left <= 0) ranOut = true;
  }
  if (ranOut) void refreshChallenges();
}

function challengeStep(c: ChallengeView): void {
  const step = c.trail[c.trail.length - 1];
  // What this page did itself it already says; what someone else did is told.
  if (step && step.by !== 'control' && step.by !== 'explorer' && step.state !== 'waiting')
    flash(`Challenge for ${c.user} ${stepWords(step)}`);
  void refreshChallenges();
}

// ---- The request log, live.

const log = $('#log');

/**
 * A message as its row shows it: whole up to 160 characters, else its start and a sign that the rest is in the row's
 * details.
 */
function preview(message: string): string {
  return message.length <= 160 ? message : `${message.slice(0, 160)}… (the whole answer below)`;
}

function entry(e: JournalEntry): HTMLElement {
  const c = cls(e.code);
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
        .join('\n')}${e.request?.body ? `\n\n${pretty(e.request.body)}` : ''}`,
    }),
  );
  d.append(
    el('h4', { text: 'Response' }),
    el('pre', {
      text: e.response
        ? `HTTP ${e.http}\n\n${pretty(e.response.body)}`
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

function add(e: JournalEntry): void {
  log.prepend(entry(e));
  while (log.children.length > 500) log.lastChild!.remove();
}

const TONE: Record<Finding['severity'], string> = { error: 'err', warning: 'warn', info: 'info' };
/**
 * Which requests the findings and the coverage cover: the whole run (what a CI job is judged on, across every scenario
 * loaded) or the current scenario (since it was loaded or reset).
 */
function scope(): 'run' | 'scenario' {
  return document.querySelector<HTMLInputElement>('input[name="scope"]:checked')?.value === 'scenario'
    ? 'scenario'
    : 'run';
}
async function refreshFindings(): Promise<void> {
  const [r, c] = await Promise.all([
    fetch(`/__sim/findings?scope=${scope()}`),
    fetch(`/__sim/coverage?scope=${scope()}`),
  ]);
  if (!r.ok || !c.ok) return;
  const { findings } = (await r.json()) as { findings: Finding[] };
  const coverage = (await c.json()) as { met: number[]; missing: number[] };
  const codes = coverage.met.length + coverage.missing.length;
  $('#coverage').textContent =
    `Codes answered ${scope() === 'run' ? 'in the whole run' : 'in the current scenario'}: ${coverage.met.length} of ${codes}${coverage.met.length ? ` (${coverage.met.join(', ')})` : ''}.`;
  const box = $('#findings');
  if (!findings.length) return void box.replaceChildren(el('p', { class: 'muted', text: 'Nothing found yet.' }));
  const rows = findings.map((f) =>
    el(
      'tr',
      { 'data-finding': f.id },
      el('td', {}, el('span', { class: `pill ${TONE[f.severity]}`, text: f.severity })),
      el(
        'td',
        {},
        el('code', { text: f.id }),
        el('div', {
          class: 'muted small',
          text: `API user ${f.apiUser} · #${f.firstSeq}${f.lastSeq !== f.firstSeq ? ` to #${f.lastSeq}` : ''} · ${f.count}×`,
        }),
      ),
      el('td', { class: 'small', text: f.explanation + (f.detail ? ` (${f.detail})` : '') }),
    ),
  );
  box.replaceChildren(
    el(
      'table',
      {},
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { text: 'Severity' }),
          el('th', { text: 'Finding' }),
          el('th', { text: 'What it means and the fix' }),
        ),
      ),
      el('tbody', {}, ...rows),
    ),
  );
}
for (const input of document.querySelectorAll<HTMLInputElement>('input[name="scope"]'))
  input.addEventListener('change', () => void refreshFindings());
let findingsTimer: ReturnType<typeof setTimeout> | undefined;
function refreshFindingsSoon(): void {
  findingsTimer ??= setTimeout(() => {
    findingsTimer = undefined;
    void refreshFindings();
  }, 200);
}

let ready = false;
let buffered: JournalEntry[] = [];
const live = $('#live');
const events = new EventSource('/__sim/events');
events.addEventListener('request', (ev) => {
  const e = JSON.parse((ev as MessageEvent<string>).data) as JournalEntry;
  if (ready) add(e);
  else buffered.push(e);
  refreshFindingsSoon();
});
events.addEventListener('challenge', (ev) =>
  challengeStep(JSON.parse((ev as MessageEvent<string>).data) as ChallengeView),
);
events.onerror = () => {
  live.textContent = 'reconnecting';
  live.className = 'pill warn';
  ready = false;
};
events.onopen = async () => {
  live.textContent = 'live';
  live.className = 'pill ok';
  ready = false;
  buffered = [];
  try {
    const list = await call<JournalEntry[]>('GET', `/__sim/journal?limit=${config.logRows}`);
    log.replaceChildren();
    const seen = new Set(list.map((e) => e.seq));
    for (const e of list.reverse()) add(e);
    for (const e of buffered) if (!seen.has(e.seq)) add(e);
  } catch (err) {
    flash(`Could not read the journal: ${(err as Error).message}`, true);
  }
  ready = true;
  buffered = [];
  // Steps missed while the stream was away.
  void refreshChallenges();
};

// ---- The explorer.

const form = $<HTMLFormElement>('#explorer');
const result = $('#result');
const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;

function setField(name: string, value: string): void {
  field(name).value = value;
  if (name === 'challengeId') phoneLink();
}

function phoneLink(): void {
  const id = field('challengeId').value.trim();
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
    default:
      return label;
  }
}

async function explore(kind: string): Promise<void> {
  const v = (name: string) => field(name).value.trim();
  const checked = (name: string) => field(name).checked;
  const body = {
    kind,
    apiUser: v('apiUser'),
    user: v('user'),
    challengeId: v('challengeId'),
    authCode: v('authCode'),
    ipAddress: v('ipAddress'),
    challengeType: v('challengeType'),
    challengeExpiry: v('challengeExpiry'),
    enableQRcode: checked('enableQRcode'),
    enableAutoVerify: checked('enableAutoVerify'),
    clock: v('clock'),
  };
  result.replaceChildren(el('p', { class: 'muted', text: 'Sending…' }));
  let r: Explored;
  try {
    r = await call<Explored>('POST', '/__sim/explore', body);
  } catch (err) {
    result.replaceChildren(el('p', { class: 'pill err', text: (err as Error).message }));
    return;
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
    if (code === 2025 && typeof env?.message === 'string') {
      const m = JSON.parse(env.message) as {
        challengeId: string;
        challengeQRcodeUrl: string;
        challengeQRcode?: string;
      };
      setField('challengeId', m.challengeId);
      setField('authCode', '');
      box.append(
        el(
          'p',
          {},
          el('span', { class: 'pill ok', text: '2025' }),
          ' Challenge sent. Its id is in the form; the user answers on ',
          el('a', { href: m.challengeQRcodeUrl, target: '_blank', rel: 'noopener', text: 'the phone page' }),
          '.',
        ),
      );
      if (m.challengeQRcode)
        box.append(
          el('img', { src: m.challengeQRcode, alt: 'QR code of the phone page', width: '120', height: '120' }),
        );
    } else {
      const said = typeof env?.message === 'string' ? env.message : x.response.body.slice(0, 200);
      box.append(
        el(
          'p',
          {},
          el('span', { class: `pill ${cls(code)}`, text: code == null ? `HTTP ${x.response.status}` : String(code) }),
          ` ${said}`,
        ),
      );
    }
    const sent = `${x.request.method} ${x.request.url}\n${Object.entries(x.request.headers)
      .map(([k, val]) => `${k}: ${val}`)
      .join('\n')}${x.request.body ? `\n\n${pretty(x.request.body)}` : ''}`;
    box.append(el('details', {}, el('summary', { text: 'Request sent' }), el('pre', { text: sent })));
    box.append(
      el(
        'details',
        {},
        el('summary', { text: `Answer (HTTP ${x.response.status})` }),
        el('pre', { text: pretty(x.response.body) }),
      ),
    );
    result.append(box);
  }
  const usual = (r.expect.match(/-?\d+/g) ?? []).map(Number);
  const unusual = last !== undefined && !usual.includes(last);
  result.append(
    el('p', {
      class: 'muted small usual',
      text: unusual
        ? `This button usually gets ${r.expect}: this answer came from what was asked or from the scenario (its message says why).`
        : `The usual answer for this button: ${r.expect}.`,
    }),
  );
}

field('challengeId').addEventListener('input', phoneLink);

/** A button of the page was clicked: explore, act on a challenge, move the clock, switch the scenario, ... */
async function onClick(ev: MouseEvent): Promise<void> {
  const b = (ev.target as Element).closest('button');
  if (!b) return;
  const data = b.dataset;
  try {
    if (data.kind) return void (await explore(data.kind));
    if (data.act) {
      const c = await call<{ id: string; state: string; authCode?: string }>(
        'POST',
        `/__sim/challenges/${encodeURIComponent(data.id!)}/${data.act}`,
      );
      flash(
        `Challenge ${c.state} by a control call (this page)${c.authCode ? `: the user was shown auth code ${c.authCode}` : ''}`,
      );
      if (c.authCode && field('challengeId').value === c.id) setField('authCode', c.authCode);
      return void (await refreshChallenges());
    }
    if (data.use) {
      setField('challengeId', data.use);
      setField('user', data.user ?? '');
      setField('authCode', data.code ?? '');
      return void flash('Challenge put into the explorer');
    }
    if (data.clock) {
      showClock(
        await call<{ now: number; frozen: boolean }>(
          'POST',
          `/__sim/clock/${data.clock}`,
          data.by ? { by: data.by } : undefined,
        ),
      );
      return void (await refreshChallenges());
    }
    if (b.id === 'switch') {
      await call('POST', '/__sim/scenario', { name: $<HTMLSelectElement>('#scenario-pick').value });
      return void location.reload();
    }
    if (b.id === 'reset') {
      if (!confirm('Forget every challenge, the log and the replay memory, and put the clock back?')) return;
      await call('POST', '/__sim/reset');
      return void location.reload();
    }
    if (b.id === 'clear-log') {
      await call('DELETE', '/__sim/journal');
      log.replaceChildren();
    }
  } catch (err) {
    flash((err as Error).message, true);
  }
}
document.addEventListener('click', (ev) => void onClick(ev));

void refreshFindings();
setInterval(() => {
  showClock();
  countDown();
}, 1000);
