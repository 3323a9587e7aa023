// What every page of the simulator shares: escaping, the layout and style, colours of codes and states, durations.

import { htmlText } from '../output/html.js';

const STYLE = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#f6f7fa;--card:#fff;--ok:#17804a;--okbg:#e3f5ea;--warn:#9a5b00;--warnbg:#fff3dc;--err:#b3261e;--errbg:#fde7e5;--info:#1f5fbf;--infobg:#e6effc}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:18px;align-items:center;flex-wrap:wrap}
header a{color:#cfd8ea;text-decoration:none}header a:hover{color:#fff}header .brand{font-weight:700;color:#fff;font-size:17px}
main{max-width:1180px;margin:0 auto;padding:20px}
h1{font-size:24px;margin:6px 0 12px}h2{font-size:18px;margin:22px 0 8px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin:0 0 14px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}th{font-size:13px;color:var(--muted);font-weight:600}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}pre{background:#f0f2f6;border-radius:6px;padding:10px;overflow:auto;white-space:pre-wrap;word-break:break-all}
.pill{display:inline-block;border-radius:999px;padding:1px 9px;font-size:12px;font-weight:600}
.ok{background:var(--okbg);color:var(--ok)}.warn{background:var(--warnbg);color:var(--warn)}.err{background:var(--errbg);color:var(--err)}.info{background:var(--infobg);color:var(--info)}
.muted{color:var(--muted)}a{color:var(--info)}
button,select,input{font:inherit}button{border:1px solid var(--line);background:#fff;border-radius:6px;padding:5px 12px;cursor:pointer}button:hover{border-color:#98a2b3}
button.primary{background:#1f5fbf;border-color:#1f5fbf;color:#fff}button.danger{background:#b3261e;border-color:#b3261e;color:#fff}
`;

/** A page of the simulator: plain server-rendered HTML, no external resources (works offline). */
export function page(title: string, body: string, opts: { script?: string; nav?: boolean } = {}): string {
  const nav =
    opts.nav === false
      ? ''
      : `<header><span class="brand">mfa-sim</span><a href="/__sim/ui">Dashboard</a><a href="/status">Status codes</a><a href="/openapi.json">OpenAPI</a></header>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${htmlText(title)} · mfa-sim</title><link rel="icon" href="/favicon.svg"><style>${STYLE}</style></head><body>${nav}<main>${body}</main>${opts.script ? `<script>${opts.script}</script>` : ''}</body></html>`;
}

/** The class of a code's colour: success, client error, server error or transport. */
export function codeClass(code: number | undefined): string {
  if (code === undefined) return 'warn';
  if (code > 0) return 'ok';
  if (code === -5000) return 'err';
  return code <= -400 && code >= -431 ? 'warn' : 'err';
}

export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d2330"/><path d="M9 16l5 5 9-10" stroke="#4ade80" stroke-width="3.5" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** A length of time for people: `4 min 59 s`, `12 s`, `2 h 5 min`. */
export function duration(ms: number): string {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** What the dashboard says of the magic addresses, on or off in its scenario. */
export const magicWords = (on: boolean) =>
  on ? 'approve@, deny@, ignore@, approve-after-5s@ (any domain) answer by themselves' : 'off in this scenario';

/** A time as the dashboard shows it, in UTC: `2026-01-01 12:00:00`. */
export const isoClock = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 19);

/** The colour class of a challenge's state. */
export function stateClass(state: string): string {
  if (state === 'waiting') return 'info';
  return state === 'approved' || state === 'verified' ? 'ok' : 'err';
}
