import type { Request, RequestHandler, Response } from 'express';
import { CHECKS, CODES, codeInfo, isTransportCode, type CodeInfo } from '../contract/codes.js';
import { openApiDocument } from '../contract/openapi.js';
import { ControlError } from '../contract/errors.js';
import { jsonText } from '../output/json.js';
import { htmlText } from '../output/html.js';
import type { Simulator } from '../simulator/simulator.js';
import type { Challenge } from '../world/challenges.js';
import { builtText } from '../files/lazy.js';
import { qrPng } from '../world/qr.js';
import { requireAllowedHost } from '../simulator/allowed-hosts.js';
import { caughtUp, type Route } from './routes.js';
import { requireControl, tokenMatches } from './control-access.js';
import { codeClass, duration, FAVICON, page, stateClass } from './html.js';

// The pages outside the API and the control API: the status codes, the user's phone, the landing page, the icon.

/** A page's browser script (src/browser/<name>.ts, built into dist/browser/), to carry inline: no `</script>` in it. */
export function browserScript(name: 'dashboard' | 'phone'): string {
  return builtText(`browser/${name}.js`).replace(/<\/(script)/gi, '<\\/$1');
}

const SOURCE: Record<CodeInfo['source'], string> = {
  contract: 'the interface document',
  vendor: "the vendor's material",
  simulator: "the simulator's own (the document shows none)",
};

/** A code's row as JSON (the status page for clients that ask for JSON). */
function codeJson(c: CodeInfo) {
  const { code, http, title, explain, check, source } = c;
  return { code, http, title, explain, check, operations: c.scope ?? 'all', source };
}

function statusPage(c: CodeInfo): string {
  const when = c.scope ? c.scope.map((o) => `<code>${o}</code>`).join(', ') : 'every request';
  const rule = `rules:\n  - name: always ${c.code}\n    respond: { code: ${c.code} }`;
  // `code` spans in the short markdown of the code table.
  const explain = htmlText(c.explain).replace(/`([^`]+)`/g, '<code>$1</code>');
  return page(
    `${c.code} ${c.title}`,
    `<p class="muted"><a href="/status">All status codes</a></p>
<h1><span class="pill ${codeClass(c.code)}">${c.code}</span> ${htmlText(c.title)}</h1>
<div class="card"><p>${explain}</p>
<table><tr><th>HTTP status</th><td>${c.http}</td></tr>
<tr><th>Answered to</th><td>${when}</td></tr>
<tr><th>Produced by</th><td>the <code>${c.check}</code> check (${CHECKS.indexOf(c.check) + 1} of ${CHECKS.length} in the order of checks)</td></tr>
<tr><th>Defined by</th><td>${SOURCE[c.source]}</td></tr></table></div>
<h2>Meet it on purpose</h2><div class="card"><p>A scenario rule forces it (it answers exactly where the real check would fail):</p><pre>${htmlText(rule)}</pre></div>`,
  );
}

function indexPage(): string {
  const rows = CODES.map(
    (c) =>
      `<tr><td><a href="/status?code=${c.code}"><span class="pill ${codeClass(c.code)}">${c.code}</span></a></td><td>${c.http}</td><td>${htmlText(c.title)}</td><td class="muted">${c.scope ? c.scope.join(', ') : 'all'}</td><td class="muted">${isTransportCode(c) ? 'HTTP layer' : c.source}</td></tr>`,
  ).join('');
  return page(
    'Status codes',
    `<h1>Status codes</h1><p class="muted">Every code the simulator can answer, with its HTTP status. Click one for what causes it and how to meet it on purpose.</p>
<div class="card"><table><tr><th>Code</th><th>HTTP</th><th>Meaning</th><th>Operations</th><th>Source</th></tr>${rows}</table></div>`,
  );
}

const PHONE_STYLE = `<style>
.phone{max-width:420px;margin:10px auto}.phone .card{padding:20px}.who{font-size:20px;font-weight:700;margin:0}
.actions{display:flex;gap:12px;margin-top:16px}.actions form{flex:1}.actions button{width:100%;padding:12px;font-size:17px;font-weight:600}
button.approve{background:#17804a;border-color:#17804a;color:#fff}.code{font:700 34px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:6px;text-align:center;background:#e3f5ea;color:#17804a;border-radius:8px;padding:12px;margin:10px 0}
.left{font-size:20px;font-weight:700}
</style>`;

/** What the phone says about a challenge that is no longer waiting. */
const OUTCOME: Record<Exclude<Challenge['state'], 'waiting' | 'approved'>, string> = {
  verified: `<p><b>Approved, and the app has verified the code.</b> Nothing more to do.</p>`,
  denied: `<p><b>You denied this sign-in.</b> The app is told it was rejected (-3092).</p>`,
  expired: `<p><b>This sign-in request expired</b> before anyone answered it. The app is told it was rejected (-3092).</p>`,
  cancelled: `<p><b>The app cancelled this sign-in request.</b></p>`,
};

/** The phone page of a challenge; `token`: the control token it was opened with (checked), carried into its buttons. */
function phonePage(sim: Simulator, c: Challenge, notice?: string, token?: string): string {
  // On the clock of the challenge's API user (a parallel worker's own, or the simulator's).
  const clock = sim.world.clockOf(c.apiUser);
  const left = Math.max(0, c.expiresAt - clock.now());
  const frozen = clock.frozen;
  const waiting = c.state === 'waiting';
  const button = (action: 'deny' | 'approve') =>
    `<form method="post" action="${htmlText(`/phone/${encodeURIComponent(c.id)}/${action}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`)}"><button class="${action === 'deny' ? 'danger' : 'approve'}" type="submit">${action === 'deny' ? 'Deny' : 'Approve'}</button></form>`;
  const end =
    c.state === 'waiting'
      ? `<div class="actions">${button('deny')}${button('approve')}</div>`
      : c.state === 'approved'
        ? `<p><b>You approved this sign-in.</b> Type this code into the app that asked:</p><div class="code" id="auth-code" aria-label="auth code">${htmlText(c.authCode ?? '(any code: auto-verify)')}</div><p class="muted">The app can now verify it (type 170); until then, its status check (type 171) answers 3080 APPROVED.</p>`
        : OUTCOME[c.state];
  const body = `<div class="phone">
<h1>Sign-in request</h1>
${notice ? `<p class="pill warn" role="alert">${htmlText(notice)}</p>` : ''}
<div class="card">
<p class="muted" style="margin:0">Is this you signing in?</p>
<p class="who">${htmlText(sim.world.people.displayName(c.user))}</p>
<p style="margin:0 0 10px">${htmlText(sim.redact(c.user))}</p>
<table>
<tr><th>Asked by</th><td>API user <code>${htmlText(c.apiUser)}</code></td></tr>
<tr><th>Check</th><td>${htmlText(c.challengeType)}</td></tr>
<tr><th>State</th><td><span class="pill ${stateClass(c.state)}" id="state">${htmlText(c.state)}</span></td></tr>
${waiting ? `<tr><th>Time left</th><td><span class="left" id="left" data-ms="${left}" data-frozen="${frozen}">${duration(left)}</span>${frozen ? ' <span class="muted">(the simulator\'s clock is frozen)</span>' : ''}</td></tr>` : ''}
</table>
${end}
</div>
<p class="muted">This page is the user's phone in mfa-sim: it is what <code>challengeQRcodeUrl</code> opens. Challenge <code>${htmlText(c.id)}</code>.</p>
</div>${PHONE_STYLE}`;
  // The countdown of the time left (src/browser/phone.ts).
  return page('Sign-in request', body, { nav: false, script: waiting ? browserScript('phone') : undefined });
}

function noChallenge(sim: Simulator, res: Response, id: string): void {
  const body = `<h1>No such challenge</h1><p>This simulator has no challenge <code>${htmlText(sim.echo(id, 64))}</code> (it may have been reset, or forgotten past the challenge limit).</p>`;
  res
    .status(404)
    .type('html')
    .send(page('No such challenge', body, { nav: false }));
}

/** The user's phone: the page `challengeQRcodeUrl` opens, to approve or deny (plain forms: it works without script). */
function phoneRoutes(sim: Simulator): Route[] {
  const allowedHost = requireAllowedHost(sim.allowedHosts);
  const needed = () => (sim.world.random.seed === undefined ? undefined : sim.secrets.controlToken);
  const guard = requireControl(needed, {
    what: 'approving or denying on the phone page',
    why: 'under --seed challenge ids can be predicted, and this simulator is not on loopback',
  });
  const show = (req: Request, res: Response) => {
    const c = sim.findChallenge(String(req.params.id));
    if (!c) return noChallenge(sim, res, String(req.params.id));
    // Opened with the token a seed makes it need, its buttons carry it; any other text given is not echoed.
    const want = needed();
    const given = typeof req.query.token === 'string' ? req.query.token : undefined;
    const token = want !== undefined && tokenMatches(given, want) ? given : undefined;
    res
      .set('cache-control', 'no-store')
      .type('html')
      .send(phonePage(sim, c, undefined, token));
  };
  const answer = (action: 'approve' | 'deny') => async (req: Request, res: Response) => {
    const id = String(req.params.id);
    try {
      await sim.change('answerOnPhone', id, action);
    } catch (e) {
      if (!(e instanceof ControlError)) throw e;
      const c = sim.findChallenge(id);
      if (!c) return noChallenge(sim, res, id);
      // A finished challenge cannot be answered again: say so, and show where it stands.
      const notice = `Nothing changed: this request is already ${c.state}.`;
      return void res
        .status(409)
        .type('html')
        .send(phonePage(sim, c, notice));
    }
    res.redirect(303, `/phone/${encodeURIComponent(id)}`);
  };
  const qr = (req: Request, res: Response) => {
    const c = sim.findChallenge(String(req.params.id));
    if (!c) return void res.status(404).json({ error: `no challenge ${sim.echo(String(req.params.id), 64)}` });
    res.type('image/png').send(qrPng(sim.links.challenge(c.id, req.headers.host)));
  };
  // Sharing a store, a challenge made on another replica a moment ago is here too.
  const current = caughtUp(sim);
  return [
    { method: 'GET', path: '/phone/:id', handlers: [allowedHost, current, show] },
    { method: 'POST', path: '/phone/:id/approve', handlers: [allowedHost, guard, current, answer('approve')] },
    { method: 'POST', path: '/phone/:id/deny', handlers: [allowedHost, guard, current, answer('deny')] },
    { method: 'GET', path: '/phone/:id/qr.png', handlers: [allowedHost, current, qr] },
  ];
}

/** The pages' routes: status codes, the user's phone, the icon, the landing page. */
export function pageRoutes(sim: Simulator): Route[] {
  const wantsJson = (req: Request) => req.query.format === 'json' || req.accepts(['html', 'json']) === 'json';
  const status = (req: Request, res: Response) => {
    const raw = req.query.code;
    if (raw === undefined)
      return void (wantsJson(req) ? res.json(CODES.map(codeJson)) : res.type('html').send(indexPage()));
    const c = typeof raw === 'string' && /^-?\d{1,6}$/.test(raw) ? codeInfo(Number(raw)) : undefined;
    if (c) return void (wantsJson(req) ? res.json(codeJson(c)) : res.type('html').send(statusPage(c)));
    const echoed = sim.echo(typeof raw === 'string' ? raw : JSON.stringify(raw), 50);
    if (wantsJson(req))
      return void res.status(404).json({ error: `${echoed} is not a status code of this service`, codes: '/status' });
    const body = `<h1>Not a status code</h1><p><code>${htmlText(echoed)}</code> is not a code this service answers. See <a href="/status">all status codes</a>.</p>`;
    res.status(404).type('html').send(page('Unknown code', body));
  };
  const favicon = (_req: Request, res: Response) => void res.type('image/svg+xml').send(FAVICON);
  const landing = (req: Request, res: Response) => {
    const body = `<h1>mfa-sim is running</h1><div class="card"><p>A simulator of the multi-factor challenge and time service. Point your client at <code>${htmlText(sim.links.base(req.headers.host))}</code>.</p>
<ul><li><code>POST /v1/svc/challenge</code>: new challenge (type 150) and cancel (type 151)</li><li><code>POST|GET /v1/svc/time</code>: current time (type 990)</li><li><code>POST /v1/svc/status</code>, <code>/verify</code>, <code>/blocked</code>: types 171, 170, 950</li></ul>
<p>Scenario: <b>${htmlText(sim.scenario.name)}</b>. See <a href="/status">the status codes</a>.</p></div>`;
    res.type('html').send(page('mfa-sim', body));
  };
  const get = (path: string, handler: RequestHandler): Route => ({ method: 'GET', path, handlers: [handler] });
  // The API's own document: made from the code table alone (no caller input), sent as made, like the control API's.
  const apiDocument = (req: Request, res: Response) => {
    const serverUrl = sim.links.base(req.headers.host);
    const document = openApiDocument({ token: sim.token, responseStyle: sim.scenario.responseStyle, serverUrl });
    res.type('json').send(jsonText(document));
  };
  return [
    get('/openapi.json', apiDocument),
    get('/status', status),
    ...phoneRoutes(sim),
    get('/favicon.svg', favicon),
    get('/favicon.ico', favicon),
    get('/', landing),
  ];
}
