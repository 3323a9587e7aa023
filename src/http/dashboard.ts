import { CODES } from '../contract/codes.js';
import { CHALLENGE_TYPES, EXPIRY_MS } from '../contract/envelope.js';
import { shippedScenarioNames } from '../scenario/catalog.js';
import type { Simulator } from '../simulator/simulator.js';
import { stepWords } from '../world/steps.js';
import { htmlText } from '../output/html.js';
import { scenarioCardView } from './control.js';
import { EXPLORE_KINDS, type ExploreKind } from './explore.js';
import { codeClass, duration, isoClock, magicWords, page, stateClass } from './html.js';
import { browserScript } from './pages.js';

// The dashboard at `/__sim/ui`, for a person exploring how a client meets each answer.

/** How many journal entries the page loads at first (the live stream adds the rest). */
const DASHBOARD_LOG_ROWS = 200;

const WORKING: ExploreKind[] = ['challenge', 'status', 'verify', 'cancel', 'time', 'blocked'];
const BROKEN: ExploreKind[] = ['bad-signature', 'replay', 'drift'];

/** The challenges table (also served alone, for the page to refresh it). */
export function challengesFragment(sim: Simulator): string {
  const now = sim.now();
  const list = sim.challenges().slice(0, 50);
  // The simulator's clock as it stood: the page counts the time left from it (a test may have moved or frozen it).
  const clock = `data-now="${now}" data-frozen="${sim.clock.frozen}"`;
  const workers = workersFragment(sim);
  if (list.length === 0)
    return `${workers}<p class="muted" id="no-challenges" ${clock}>No challenges yet. Send a <b>New challenge</b> from the explorer.</p>`;
  const rows = list
    .map((c) => {
      const waiting = c.state === 'waiting';
      const id = htmlText(c.id);
      // The user e-mail is what the client sent: its secrets redacted, as everything a caller sent.
      const user = htmlText(sim.redact(c.user));
      // Counted down by the page's script on the clock of the challenge's API user: a worker's own, or the simulator's.
      const clock = sim.world.clockOf(c.apiUser);
      const own = `data-left="${c.expiresAt - clock.now()}" data-frozen="${clock.frozen}"`;
      const left = !waiting
        ? '<td class="left"></td>'
        : clock === sim.clock
          ? `<td class="left" data-expires="${c.expiresAt}">${duration(c.expiresAt - now)}</td>`
          : `<td class="left" ${own}>${duration(c.expiresAt - clock.now())}</td>`;
      const by = `<div class="muted small trail">${c.trail.map((step) => htmlText(stepWords(step))).join(' · ')}</div>`;
      const buttons = waiting
        ? `<button type="button" class="approve" data-act="approve" data-id="${id}">Approve</button> <button type="button" data-act="deny" data-id="${id}">Deny</button> <button type="button" data-act="expire" data-id="${id}">Expire</button>`
        : '';
      // One body per challenge: its facts, then its buttons on a line of their own, so a narrow column cuts nothing.
      const facts = `<tr><td><span class="pill ${stateClass(c.state)}">${htmlText(c.state)}</span>${by}</td><td class="user">${user}<div class="muted small"><code title="${id}">${htmlText(c.id.slice(0, 13))}…</code> · <a href="/phone/${encodeURIComponent(c.id)}" target="_blank" rel="noopener">phone page</a></div></td>${left}<td>${c.authCode ? `<code class="authcode">${htmlText(c.authCode)}</code>` : ''}</td></tr>`;
      const actions = `<tr class="actions"><td colspan="4">${buttons} <button type="button" data-use="${id}" data-user="${user}" data-code="${htmlText(c.authCode ?? '')}" title="Put this challenge's id, user and code into the explorer">Use</button></td></tr>`;
      return `<tbody data-challenge="${id}">${facts}${actions}</tbody>`;
    })
    .join('');
  return `${workers}<table ${clock}><thead><tr><th>State, and who did what</th><th>User and challenge</th><th>Time left</th><th>Code</th></tr></thead>${rows}</table>`;
}

/** The people the scenario scripts, and whether the magic addresses answer (src/browser/scenario.ts shows a load). */
function peopleBlock(sc: { people: string[]; magicAddresses: boolean }): string {
  const people = sc.people.map((line) => `<li>${htmlText(line)}</li>`).join('');
  return `<p class="small"><b>People scripted</b> <span class="muted">(what the person on the phone does)</span></p><ul class="people small" id="people">${people}</ul>
<p class="small">Magic addresses <span class="pill ${sc.magicAddresses ? 'ok' : 'warn'}" id="magic-addresses">${sc.magicAddresses ? 'on' : 'off'}</span> <span class="muted" id="magic-words">${magicWords(sc.magicAddresses)}</span></p>`;
}

/** The claimed API users (parallel workers) and their clocks: their own once they moved it, else the simulator's. */
function workersFragment(sim: Simulator): string {
  const claimed = Object.keys(sim.scenarios().bindings).filter((id) => sim.world.isClaimed(id));
  if (claimed.length === 0) return '';
  const rows = claimed
    .map((id) => {
      const own = sim.world.clockOf(id) !== sim.clock;
      const { now, frozen } = sim.apiUserClocks.clock(id);
      const state = own
        ? `<span class="pill ${frozen ? 'warn' : 'ok'}">${frozen ? 'frozen' : 'running'}</span>`
        : `<span class="muted">follows the simulator's</span>`;
      const time = `<td class="worker-time" data-time="${now}" data-frozen="${frozen}">${htmlText(isoClock(now))}</td>`;
      return `<tr data-worker="${htmlText(id)}"><td><code>${htmlText(id)}</code></td>${time}<td>${state}</td></tr>`;
    })
    .join('');
  return `<table id="workers"><caption class="small">Workers' clocks (claimed API users)</caption><thead><tr><th>API user</th><th>Its time (UTC)</th><th>Clock</th></tr></thead>${rows}</table>`;
}

function options(values: readonly string[], selected?: string): string {
  return values.map((v) => `<option${v === selected ? ' selected' : ''}>${htmlText(v)}</option>`).join('');
}

/** Every code of the table, with its title and the operation the dashboard sends it on (explore.ts). */
function codeOptions(): string {
  return CODES.map((c) => {
    const on = c.scope?.[0] ?? 'time';
    return `<option value="${c.code}">${c.code} ${htmlText(c.title)} (${on})</option>`;
  }).join('');
}

function kindButtons(kinds: ExploreKind[], cls = ''): string {
  const button = (k: ExploreKind) =>
    `<button type="button" class="kind ${cls}" data-kind="${k}">${htmlText(EXPLORE_KINDS[k].label)} <span class="expect">${htmlText(EXPLORE_KINDS[k].expect)}</span></button>`;
  return kinds.map(button).join('');
}

/** The page; `host`: the Host it was asked by, the base URL the explorer names. */
export function dashboardPage(sim: Simulator, host?: string): string {
  // The Scenario card's data, as the event stream sends it when a test loads another scenario (browser/scenario.ts).
  const sc = scenarioCardView(sim, sim.scenario);
  const emails = [...new Set(['user@example.com', ...sc.accounts, ...sim.world.people.emails(6)])];
  const shipped = shippedScenarioNames();
  const scenarioOptions = shipped.includes(sc.name)
    ? options(shipped, sc.name)
    : `<option selected disabled>${htmlText(sc.name)} (loaded)</option>${options(shipped)}`;
  const clock = sim.clock.frozen;
  const body = `<h1>Dashboard <span class="muted small">send a request (1), answer it as the user (2), see what the simulator did (3)</span></h1>
<div class="top">
<section class="card" aria-labelledby="h-scenario"><h2 id="h-scenario">Scenario</h2>
<p><b id="active-scenario">${htmlText(sc.name)}</b>: <span class="muted" id="scenario-description">${htmlText(sc.description ?? 'no description')}</span></p>
${peopleBlock(sc)}
<p><label for="scenario-pick">Switch to</label> <select id="scenario-pick">${scenarioOptions}</select> <button type="button" id="switch">Switch</button> <span class="muted small">(resets challenges and the log)</span></p></section>
<section class="card" aria-labelledby="h-clock"><h2 id="h-clock">Simulator clock</h2>
<p><b id="clock" data-now="${sim.now()}" data-frozen="${clock}">${isoClock(sim.now())}</b> UTC <span class="pill ${clock ? 'warn' : 'ok'}" id="clock-state">${clock ? 'frozen' : 'running'}</span></p>
<p><button type="button" data-clock="freeze">Freeze</button> <button type="button" data-clock="unfreeze">Unfreeze</button> <button type="button" data-clock="advance" data-by="1m">+1 min</button> <button type="button" data-clock="advance" data-by="5m">+5 min</button> <button type="button" data-clock="advance" data-by="15m">+15 min</button> <button type="button" id="reset" class="danger">Reset world</button></p></section>
</div>
<p id="flash" class="pill info" role="status" hidden></p>
<div class="grid">
<div class="col-send">
<section class="card" aria-labelledby="h-explorer"><h2 id="h-explorer"><span class="step">1</span> Send a request</h2>
<p class="muted small">Each button sends one correctly signed request (the simulator signs it: this page never sees a secret) to <code>${htmlText(sim.links.base(host))}</code>. The code it should answer is on the button.</p>
<form id="explorer" onsubmit="return false">
<div class="fields">
<label>API user<select name="apiUser">${options(sc.apiUsers)}</select></label>
<label>User e-mail<input name="user" list="emails" value="user@example.com" autocomplete="off"></label>
<label class="wide"><span>Challenge id <a id="phone-link" href="#" target="_blank" rel="noopener" hidden>open the user's phone</a></span><input name="challengeId" placeholder="filled in by New challenge" autocomplete="off"></label>
<label>Auth code<input name="authCode" placeholder="shown on the phone" autocomplete="off" inputmode="numeric"></label>
</div>
<datalist id="emails">${emails.map((e) => `<option value="${htmlText(e)}">`).join('')}</datalist>
<details class="more"><summary>More options</summary><div class="fields">
<label>Challenge type<select name="challengeType">${options(CHALLENGE_TYPES)}</select></label>
<label>Expiry<select name="challengeExpiry">${options(Object.keys(EXPIRY_MS), 'FiveMins')}</select></label>
<label>IP address<input name="ipAddress" placeholder="198.51.100.7" autocomplete="off"></label>
<label>Sign with<select name="clock"><option value="simulator">the simulator's clock</option><option value="machine">this computer's clock (as a real client)</option></select></label>
<label class="check"><input type="checkbox" name="enableQRcode"> QR image</label>
<label class="check"><input type="checkbox" name="enableAutoVerify"> Auto-verify</label>
</div></details>
<p class="kinds"><span class="muted small">Requests that work</span>${kindButtons(WORKING)}</p>
<p class="kinds"><span class="muted small">Broken on purpose</span>${kindButtons(BROKEN, 'broken')}</p>
<p class="kinds force"><span class="muted small">Any code of the table, forced: the request it belongs to, signed, with <code>x-sim-scenario: catalog</code> and <code>x-sim-code</code> (<a href="/status" target="_blank" rel="noopener">what each means</a>)</span><select name="code" id="force-code" aria-label="Code to force">${codeOptions()}</select><button type="button" class="kind" data-kind="force" id="force">Send it <span class="expect">the code chosen</span></button></p>
</form>
<div id="result" aria-live="polite"></div>
</section>
</div>
<div class="col-world">
<section class="card" aria-labelledby="h-challenges"><h2 id="h-challenges"><span class="step">2</span> Challenges <span class="muted small">(approve, deny or expire as the user would)</span></h2>
<div id="challenges">${challengesFragment(sim)}</div></section>
<section class="card" aria-labelledby="h-findings"><h2 id="h-findings">Client findings <span class="muted small">(what the client does that the service would refuse or only tolerate)</span></h2>
<p class="small" role="radiogroup" aria-label="Which requests">Show <label><input type="radio" name="scope" value="run" checked> the whole run</label> <label><input type="radio" name="scope" value="scenario"> the current scenario</label></p>
<p class="small" id="coverage"></p>
<div id="findings"><p class="muted">Nothing found yet.</p></div></section>
</div>
<div class="col-log">
<section class="card" aria-labelledby="h-log"><h2 id="h-log"><span class="step">3</span> Request log <span class="pill warn" id="live">connecting</span> <button type="button" id="clear-log" class="small">Clear</button></h2>
<p class="muted small">Every request the simulator answered, newest first. Click a row for the full request and response.</p>
<ol id="log" class="log"></ol></section>
</div>
</div>${DASHBOARD_STYLE}`;
  // The settings of the page's script (src/browser/dashboard.ts), as JSON in which no `<` can close the element.
  const classes = Object.fromEntries(CODES.map((c) => [c.code, codeClass(c.code)]));
  const config = JSON.stringify({ classes, logRows: DASHBOARD_LOG_ROWS }).replace(/</g, '\\u003c');
  const settings = `<script type="application/json" id="dashboard-config">${config}</script>`;
  return page('Dashboard', body + settings, { script: browserScript('dashboard') });
}

const DASHBOARD_STYLE = `<style>
main{max-width:1840px;padding-top:12px}h1{font-size:20px;margin:0 0 10px}h1 .small{font-weight:400;margin-left:8px}.small{font-size:13px}h2{margin:0 0 8px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.top{display:grid;grid-template-columns:1fr 1fr;gap:14px;margin-bottom:14px}.top p{margin:6px 0}.top .card{margin:0}
/* One column up to 900 px, two up to 1500 (the explorer; the challenges, findings and log beside it), three beyond. */
.grid{display:grid;gap:0 14px;align-items:start;grid-template-columns:minmax(0,1fr) minmax(0,1fr);grid-template-areas:"send world" "send log";grid-template-rows:auto 1fr}
.col-send{grid-area:send}.col-world{grid-area:world}.col-log{grid-area:log}
@media (min-width:1500px){.grid{grid-template-columns:minmax(0,1.1fr) minmax(0,1fr) minmax(0,1.1fr);grid-template-areas:"send world log";grid-template-rows:auto}}
@media (max-width:900px){.top,.grid{grid-template-columns:minmax(0,1fr)}.grid{grid-template-areas:"send" "world" "log";grid-template-rows:auto}}
.step{display:inline-grid;place-items:center;width:24px;height:24px;border-radius:50%;background:#1d2330;color:#fff;font-size:13px}
.fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:8px 12px;margin:8px 0}
.fields label{display:flex;flex-direction:column;font-size:13px;color:var(--muted);font-weight:600;gap:2px}.fields label.wide{grid-column:span 2}
.fields label a{font-weight:400;margin-left:8px}.fields label.check{flex-direction:row;align-items:center;gap:6px;color:var(--fg)}
input,select{border:1px solid #98a2b3;border-radius:6px;padding:5px 8px;background:#fff;color:var(--fg);min-width:0}
.more summary{cursor:pointer;color:var(--info);font-size:14px}
.kinds{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0}.kinds>span{width:100%}
button.kind{display:inline-flex;gap:8px;align-items:center}button.kind .expect{font:12px ui-monospace,Menlo,Consolas,monospace;color:var(--ok);background:var(--okbg);border-radius:4px;padding:0 5px}
button.kind.broken .expect{color:var(--err);background:var(--errbg)}.kinds.force select{max-width:100%;flex:1 1 18em}ul.people{margin:2px 0 6px;padding-left:20px;max-height:8em;overflow:auto;overflow-wrap:anywhere}ul.people:empty::before{content:"none: no one answers but a person, a test or a magic address";color:var(--muted);margin-left:-20px}#workers{margin-bottom:10px}#workers caption{text-align:left;font-weight:600;padding-bottom:4px}
button.approve{background:#17804a;border-color:#17804a;color:#fff}button:focus-visible,a:focus-visible,summary:focus-visible{outline:3px solid #1f5fbf;outline-offset:2px}
#result:empty{display:none}#result{border-top:1px solid var(--line);margin-top:10px;padding-top:8px}#result h3{font-size:15px;margin:4px 0}
.answer{margin:6px 0}.answer .pill{font-size:14px}.answer pre{margin:4px 0;max-height:260px}
td.left{white-space:nowrap}td.user{overflow-wrap:anywhere;min-width:12em}#challenges tbody tr:first-child td{border-bottom:0}#challenges tr.actions td{padding-top:0}#challenges tr.actions button{padding:3px 9px;margin:0 4px 4px 0}#challenges td,#challenges th{padding:5px 6px}.authcode{font-size:15px;font-weight:700;color:var(--ok)}
.log{list-style:none;margin:0;padding:0;max-height:calc(100vh - 190px);overflow:auto}.log:empty::before{content:"No requests yet.";color:var(--muted)}
[hidden]{display:none!important}.entry{border-left:4px solid var(--line);border-bottom:1px solid var(--line);padding:0 6px}.entry[data-tone=ok]{border-left-color:var(--ok)}.entry[data-tone=err]{border-left-color:var(--err)}.entry[data-tone=warn]{border-left-color:var(--warn)}.entry[open]{background:#fafbfc}
.entry summary{cursor:pointer;display:grid;grid-template-columns:minmax(42px,auto) 92px 64px minmax(0,1fr) auto;gap:6px;align-items:baseline;padding:5px 0;font-size:13px}
.entry summary .what{grid-column:2/6;overflow-wrap:anywhere}.entry summary .msg{grid-column:2/6;color:var(--muted);overflow-wrap:anywhere}.entry summary .ms{grid-column:5;grid-row:1;white-space:nowrap;color:var(--muted);text-align:right}
.entry h4{margin:8px 0 2px;font-size:13px}.entry p.hint{margin:2px 0;padding:4px 8px;background:var(--warnbg);border-radius:4px}#findings td{vertical-align:top;padding:5px 6px}#findings code{white-space:nowrap}.entry pre{margin:0;max-height:300px}.entry .pill{text-align:center}
</style>`;
