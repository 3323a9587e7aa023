import type { Request, Response } from 'express';
import { ControlError } from '../errors.js';
import type { Simulator } from '../simulator.js';
import type { Challenge } from '../world/challenges.js';
import { qrPng } from '../world/qr.js';
import { htmlText } from '../output/html.js';
import { browserScript } from './browser-scripts.js';
import { duration, page, stateClass } from './html.js';
import type { Route } from './routes.js';
import { requireAllowedHost } from './allowed-hosts.js';
import { requireControl, tokenMatches } from './control-access.js';

/**
 * The user's phone (`/phone/<challengeId>`, what a challenge's QR code opens): approve or deny, and the QR image.
 */

const PHONE_STYLE = `<style>
.phone{max-width:420px;margin:10px auto}.phone .card{padding:20px}.who{font-size:20px;font-weight:700;margin:0}
.actions{display:flex;gap:12px;margin-top:16px}.actions form{flex:1}.actions button{width:100%;padding:12px;font-size:17px;font-weight:600}
button.approve{background:#17804a;border-color:#17804a;color:#fff}.code{font:700 34px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:6px;text-align:center;background:#e3f5ea;color:#17804a;border-radius:8px;padding:12px;margin:10px 0}
.left{font-size:20px;font-weight:700}
</style>`;

/** What the phone says about a challenge that is no longer waiting. */
function outcome(c: Challenge): string {
  switch (c.state) {
    case 'approved':
      return `<p><b>You approved this sign-in.</b> Type this code into the app that asked:</p><div class="code" id="auth-code" aria-label="auth code">${htmlText(c.authCode ?? '(any code: auto-verify)')}</div><p class="muted">The app can now verify it (type 170); until then, its status check (type 171) answers 3080 APPROVED.</p>`;
    case 'verified':
      return `<p><b>Approved, and the app has verified the code.</b> Nothing more to do.</p>`;
    case 'denied':
      return `<p><b>You denied this sign-in.</b> The app is told it was rejected (-3092).</p>`;
    case 'expired':
      return `<p><b>This sign-in request expired</b> before anyone answered it. The app is told it was rejected (-3092).</p>`;
    case 'cancelled':
      return `<p><b>The app cancelled this sign-in request.</b></p>`;
    default:
      return '';
  }
}

/** `token`: the control token the page was opened with (`?token=`, checked), carried into its buttons. */
function phonePage(sim: Simulator, c: Challenge, notice?: string, token?: string): string {
  const now = sim.now();
  const left = Math.max(0, c.expiresAt - now);
  const waiting = c.state === 'waiting';
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
${waiting ? `<tr><th>Time left</th><td><span class="left" id="left" data-ms="${left}" data-frozen="${sim.clock.frozen}">${duration(left)}</span>${sim.clock.frozen ? ' <span class="muted">(the simulator\'s clock is frozen)</span>' : ''}</td></tr>` : ''}
</table>
${
  waiting
    ? `<div class="actions">${(['deny', 'approve'] as const).map((action) => `<form method="post" action="${htmlText(`/phone/${encodeURIComponent(c.id)}/${action}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`)}"><button class="${action === 'deny' ? 'danger' : 'approve'}" type="submit">${action === 'deny' ? 'Deny' : 'Approve'}</button></form>`).join('')}</div>`
    : outcome(c)
}
</div>
<p class="muted">This page is the user's phone in mfa-sim: it is what <code>challengeQRcodeUrl</code> opens. Challenge <code>${htmlText(c.id)}</code>.</p>
</div>${PHONE_STYLE}`;
  // The countdown of the time left (src/browser/phone.ts).
  return page('Sign-in request', body, { nav: false, script: waiting ? browserScript('phone') : undefined });
}

function missing(sim: Simulator, res: Response, id: string): void {
  res
    .status(404)
    .type('html')
    .send(
      page(
        'No such challenge',
        `<h1>No such challenge</h1><p>This simulator has no challenge <code>${htmlText(sim.echo(id, 64))}</code> (it may have been reset, or forgotten past the challenge limit).</p>`,
        { nav: false },
      ),
    );
}

/**
 * The user's phone: the page `challengeQRcodeUrl` opens. It shows the challenge and lets a person approve or
 * deny it. Plain forms: it works without script. Like the control plane, it answers only a Host naming this machine
 * (a page reached through DNS rebinding would read it and approve) and refuses changes sent by a page of another
 * site. Whoever holds the challenge id may answer it (the id is the capability, as a QR code on a screen is), as long
 * as the id cannot be predicted: under a seed it can, so approving and denying then need the control token too,
 * whenever the control API does (beyond loopback; on loopback nothing outside this machine reaches either).
 */
export function phoneRoutes(sim: Simulator): Route[] {
  const find = (id: string) => sim.findChallenge(id);
  const allowedHost = requireAllowedHost(sim.allowedHosts);
  const needed = () => (sim.world.random.seed === undefined ? undefined : sim.secrets.controlToken);
  const guard = requireControl(needed, {
    what: 'approving or denying on the phone page',
    why: 'under --seed challenge ids can be predicted, and this simulator is not on loopback',
  });
  const show = (req: Request, res: Response) => {
    const c = find(String(req.params.id));
    if (!c) return missing(sim, res, String(req.params.id));
    res.setHeader('cache-control', 'no-store');
    // Opened with the token a seed makes it need, its buttons carry it; any other text given is not echoed.
    const want = needed();
    const given = typeof req.query.token === 'string' ? req.query.token : undefined;
    res
      .type('html')
      .send(phonePage(sim, c, undefined, want !== undefined && tokenMatches(given, want) ? given : undefined));
  };
  const answer = (action: 'approve' | 'deny') => (req: Request, res: Response) => {
    const id = String(req.params.id);
    try {
      // The user's own answer, on the phone page (a control call answers through the facade).
      if (action === 'approve') sim.world.challenges.approve(id, sim.now(), undefined, 'phone');
      else sim.world.challenges.deny(id, sim.now(), 'phone');
    } catch (e) {
      if (!(e instanceof ControlError)) throw e;
      const c = find(id);
      if (!c) return missing(sim, res, id);
      // A finished challenge cannot be answered again: say so, and show where it stands.
      return void res
        .status(409)
        .type('html')
        .send(phonePage(sim, c, `Nothing changed: this request is already ${c.state}.`));
    }
    res.redirect(303, `/phone/${encodeURIComponent(id)}`);
  };
  const qr = (req: Request, res: Response) => {
    const c = find(String(req.params.id));
    if (!c) return void res.status(404).json({ error: `no challenge ${sim.echo(String(req.params.id), 64)}` });
    res.type('image/png').send(qrPng(sim.links.challenge(c.id, req.headers.host)));
  };
  return [
    { method: 'GET', path: '/phone/:id', handlers: [allowedHost, show] },
    { method: 'POST', path: '/phone/:id/approve', handlers: [allowedHost, guard, answer('approve')] },
    { method: 'POST', path: '/phone/:id/deny', handlers: [allowedHost, guard, answer('deny')] },
    { method: 'GET', path: '/phone/:id/qr.png', handlers: [allowedHost, qr] },
  ];
}
