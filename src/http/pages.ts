import type { Request, Response } from 'express';
import { CHECKS, CODES, codeInfo, isTransportCode, type CodeInfo } from '../codes.js';
import type { Simulator } from '../simulator.js';
import { htmlText } from '../output/html.js';
import { codeClass, FAVICON, page } from './html.js';
import { phoneRoutes } from './phone.js';
import type { Route } from './routes.js';

/**
 * The pages outside the API and the control plane: the status code pages, the landing page, health, the favicon.
 */

const SOURCE: Record<CodeInfo['source'], string> = {
  contract: 'the interface document',
  vendor: "the vendor's material",
  simulator: "the simulator's own (the document shows none)",
};

/** A code's row as JSON (the status page for clients that ask for JSON). */
function codeJson(c: CodeInfo) {
  return {
    code: c.code,
    http: c.http,
    title: c.title,
    explain: c.explain,
    check: c.check,
    operations: c.scope ?? 'all',
    source: c.source,
  };
}

function statusPage(c: CodeInfo): string {
  const order = CHECKS.indexOf(c.check) + 1;
  const when = c.scope ? c.scope.map((o) => `<code>${o}</code>`).join(', ') : 'every request';
  const rule = `rules:\n  - name: always ${c.code}\n    respond: { code: ${c.code} }`;
  return page(
    `${c.code} ${c.title}`,
    `<p class="muted"><a href="/status">All status codes</a></p>
<h1><span class="pill ${codeClass(c.code)}">${c.code}</span> ${htmlText(c.title)}</h1>
<div class="card"><p>${markdown(c.explain)}</p>
<table><tr><th>HTTP status</th><td>${c.http}</td></tr>
<tr><th>Answered to</th><td>${when}</td></tr>
<tr><th>Produced by</th><td>the <code>${c.check}</code> check (${order} of ${CHECKS.length} in the order of checks)</td></tr>
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

/** `code` spans and links in the short markdown of the code table. */
function markdown(s: string): string {
  return htmlText(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function wantsJson(req: Request): boolean {
  return req.query.format === 'json' || req.accepts(['html', 'json']) === 'json';
}

/** The pages outside the API and the control API: status codes, the user's phone, the landing page, the icon. */
export function pageRoutes(sim: Simulator): Route[] {
  const get = (path: string, handler: (req: Request, res: Response) => void): Route => ({
    method: 'GET',
    path,
    handlers: [handler],
  });
  const favicon = (_req: Request, res: Response) => void res.type('image/svg+xml').send(FAVICON);
  const status = (req: Request, res: Response) => {
    const raw = req.query.code;
    if (raw === undefined) {
      if (wantsJson(req)) return void res.json(CODES.map(codeJson));
      return void res.type('html').send(indexPage());
    }
    const c = typeof raw === 'string' && /^-?\d{1,6}$/.test(raw) ? codeInfo(Number(raw)) : undefined;
    if (!c) {
      const shown = sim.echo(typeof raw === 'string' ? raw : JSON.stringify(raw), 50);
      if (wantsJson(req))
        return void res.status(404).json({ error: `${shown} is not a status code of this service`, codes: '/status' });
      return void res
        .status(404)
        .type('html')
        .send(
          page(
            'Unknown code',
            `<h1>Not a status code</h1><p><code>${htmlText(shown)}</code> is not a code this service answers. See <a href="/status">all status codes</a>.</p>`,
          ),
        );
    }
    if (wantsJson(req)) return void res.json(codeJson(c));
    res.type('html').send(statusPage(c));
  };
  const landing = (_req: Request, res: Response) => {
    res.type('html').send(
      page(
        'mfa-sim',
        `<h1>mfa-sim is running</h1><div class="card"><p>A simulator of the multi-factor challenge and time service. Point your client at <code>${htmlText(sim.links.base(_req.headers.host))}</code>.</p>
<ul><li><code>POST /v1/svc/challenge</code>: new challenge (type 150) and cancel (type 151)</li><li><code>POST|GET /v1/svc/time</code>: current time (type 990)</li><li><code>POST /v1/svc/status</code>, <code>/verify</code>, <code>/blocked</code>: types 171, 170, 950</li></ul>
<p>Scenario: <b>${htmlText(sim.scenario.name)}</b>. See <a href="/status">the status codes</a>.</p></div>`,
      ),
    );
  };
  return [
    get('/status', status),
    ...phoneRoutes(sim),
    get('/favicon.svg', favicon),
    get('/favicon.ico', favicon),
    get('/', landing),
  ];
}
