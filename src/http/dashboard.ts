import type { Request, Response } from 'express';
import { CODES } from '../codes.js';
import { CHALLENGE_TYPES, EXPIRY_MS } from '../contract/operations.js';
import { shippedScenarioNames } from '../scenario/catalog.js';
import type { Simulator } from '../simulator.js';
import { isGlob } from '../world/accounts.js';
import { EXPLORE_KINDS, Explorer, exploreInput, type ExploreKind } from './explore.js';
import { codeClass, duration, esc, page, stateClass } from './html.js';

/**
 * The dashboard at `/__sim/ui`: the page (scenario, clock, explorer, challenges, live log) and its script.
 */

/** How many journal entries the page loads at first (the live stream adds the rest). */
const DASHBOARD_LOG_ROWS = 200;

const WORKING: ExploreKind[] = ['challenge', 'status', 'verify', 'cancel', 'time', 'blocked'];
const BROKEN: ExploreKind[] = ['bad-signature', 'replay', 'drift'];

/** The challenges table (also served alone, for the page to refresh it). */
function challengesFragment(sim: Simulator): string {
  const now = sim.now();
  const list = sim.listChallenges().slice(0, 50);
  if (list.length === 0) return `<p class="muted" id="no-challenges">No challenges yet. Send a <b>New challenge</b> from the explorer.</p>`;
  const rows = list
    .map((c) => {
      const waiting = c.state === 'waiting';
      const id = esc(c.id);
      // The user e-mail is what the client sent: shown with its secrets hidden, as everything a caller sent.
      const user = esc(sim.redact(c.user));
      const left = waiting ? duration(c.expiresAt - now) : '';
      const by = c.endedBy ? `<div class="muted small">by ${c.endedBy === 'user' ? 'the user' : c.endedBy === 'client' ? 'the client' : esc(c.endedBy)}</div>` : '';
      const buttons = waiting
        ? `<button type="button" class="approve" data-act="approve" data-id="${id}">Approve</button> <button type="button" data-act="deny" data-id="${id}">Deny</button> <button type="button" data-act="expire" data-id="${id}">Expire</button>`
        : '';
      return `<tr data-challenge="${id}"><td><span class="pill ${stateClass(c.state)}">${esc(c.state)}</span>${by}</td><td>${user}<div class="muted small"><code title="${id}">${esc(c.id.slice(0, 13))}…</code> · <a href="/phone/${encodeURIComponent(c.id)}" target="_blank" rel="noopener">phone page</a></div></td><td class="left">${left}</td><td>${c.authCode ? `<code class="authcode">${esc(c.authCode)}</code>` : ''}</td><td class="actions">${buttons} <button type="button" data-use="${id}" data-user="${user}" data-code="${esc(c.authCode ?? '')}" title="Put this challenge's id, user and code into the explorer">Use</button></td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th>State</th><th>User and challenge</th><th>Time left</th><th>Code</th><th>Actions</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function options(values: readonly string[], selected?: string): string {
  return values.map((v) => `<option${v === selected ? ' selected' : ''}>${esc(v)}</option>`).join('');
}

function kindButtons(kinds: ExploreKind[], cls = ''): string {
  return kinds
    .map((k) => `<button type="button" class="kind ${cls}" data-kind="${k}">${esc(EXPLORE_KINDS[k].label)} <span class="expect">${esc(EXPLORE_KINDS[k].expect)}</span></button>`)
    .join('');
}

function dashboardPage(sim: Simulator, host?: string): string {
  const sc = sim.scenario;
  const users = sim.apiUsers().map((u) => u.id);
  const listed = Object.keys(sc.input.accounts ?? {}).filter((k) => !isGlob(k));
  const emails = [...new Set(['user@example.com', ...listed, ...sim.world.people.emails(6)])];
  const shipped = shippedScenarioNames();
  const scenarioOptions = shipped.includes(sc.name) ? options(shipped, sc.name) : `<option selected disabled>${esc(sc.name)} (loaded)</option>${options(shipped)}`;
  const clock = sim.clock.frozen;
  const body = `<h1>Dashboard <span class="muted small">send a request (1), answer it as the user (2), see what the simulator did (3)</span></h1>
<div class="top">
<section class="card" aria-labelledby="h-scenario"><h2 id="h-scenario">Scenario</h2>
<p><b id="active-scenario">${esc(sc.name)}</b>: <span class="muted">${esc(sc.description ?? 'no description')}</span></p>
<p><label for="scenario-pick">Switch to</label> <select id="scenario-pick">${scenarioOptions}</select> <button type="button" id="switch">Switch</button> <span class="muted small">(resets challenges and the log)</span></p></section>
<section class="card" aria-labelledby="h-clock"><h2 id="h-clock">Simulator clock</h2>
<p><b id="clock" data-now="${sim.now()}" data-frozen="${clock}">${new Date(sim.now()).toISOString().replace('T', ' ').slice(0, 19)}</b> UTC <span class="pill ${clock ? 'warn' : 'ok'}" id="clock-state">${clock ? 'frozen' : 'running'}</span></p>
<p><button type="button" data-clock="freeze">Freeze</button> <button type="button" data-clock="unfreeze">Unfreeze</button> <button type="button" data-clock="advance" data-by="1m">+1 min</button> <button type="button" data-clock="advance" data-by="5m">+5 min</button> <button type="button" data-clock="advance" data-by="15m">+15 min</button> <button type="button" id="reset" class="danger">Reset world</button></p></section>
</div>
<p id="flash" class="pill info" role="status" hidden></p>
<div class="grid">
<div>
<section class="card" aria-labelledby="h-explorer"><h2 id="h-explorer"><span class="step">1</span> Send a request</h2>
<p class="muted small">Each button sends one correctly signed request (the simulator signs it: this page never sees a secret) to <code>${esc(sim.links.base(host))}</code>. The code it should answer is on the button.</p>
<form id="explorer" onsubmit="return false">
<div class="fields">
<label>API user<select name="apiUser">${options(users)}</select></label>
<label>User e-mail<input name="user" list="emails" value="user@example.com" autocomplete="off"></label>
<label class="wide"><span>Challenge id <a id="phone-link" href="#" target="_blank" rel="noopener" hidden>open the user's phone</a></span><input name="challengeId" placeholder="filled in by New challenge" autocomplete="off"></label>
<label>Auth code<input name="authCode" placeholder="shown on the phone" autocomplete="off" inputmode="numeric"></label>
</div>
<datalist id="emails">${emails.map((e) => `<option value="${esc(e)}">`).join('')}</datalist>
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
</form>
<div id="result" aria-live="polite"></div>
</section>
<section class="card" aria-labelledby="h-challenges"><h2 id="h-challenges"><span class="step">2</span> Challenges <span class="muted small">(approve, deny or expire as the user would)</span></h2>
<div id="challenges">${challengesFragment(sim)}</div></section>
<section class="card" aria-labelledby="h-findings"><h2 id="h-findings">Client findings <span class="muted small">(what the client does that the service would refuse or only tolerate)</span></h2>
<div id="findings"><p class="muted">Nothing found yet.</p></div></section>
</div>
<section class="card" aria-labelledby="h-log"><h2 id="h-log"><span class="step">3</span> Request log <span class="pill warn" id="live">connecting</span> <button type="button" id="clear-log" class="small">Clear</button></h2>
<p class="muted small">Every request the simulator answered, newest first. Click a row for the full request and response.</p>
<ol id="log" class="log"></ol></section>
</div>${DASHBOARD_STYLE}`;
  const classes = Object.fromEntries(CODES.map((c) => [c.code, codeClass(c.code)]));
  return page('Dashboard', body, { script: `const CLASS=${JSON.stringify(classes)},LOG_ROWS=${DASHBOARD_LOG_ROWS};${SCRIPT}` });
}

const DASHBOARD_STYLE = `<style>
main{max-width:1400px;padding-top:12px}h1{font-size:20px;margin:0 0 10px}h1 .small{font-weight:400;margin-left:8px}.small{font-size:13px}h2{margin:0 0 8px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.top{display:grid;grid-template-columns:1fr 1fr;gap:14px}.top p{margin:6px 0}
.grid{display:grid;grid-template-columns:minmax(0,1.15fr) minmax(0,1fr);gap:14px;align-items:start}
@media (max-width:900px){.top,.grid{grid-template-columns:1fr}}
.step{display:inline-grid;place-items:center;width:24px;height:24px;border-radius:50%;background:#1d2330;color:#fff;font-size:13px}
.fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:8px 12px;margin:8px 0}
.fields label{display:flex;flex-direction:column;font-size:13px;color:var(--muted);font-weight:600;gap:2px}.fields label.wide{grid-column:span 2}
.fields label a{font-weight:400;margin-left:8px}.fields label.check{flex-direction:row;align-items:center;gap:6px;color:var(--fg)}
input,select{border:1px solid #98a2b3;border-radius:6px;padding:5px 8px;background:#fff;color:var(--fg);min-width:0}
.more summary{cursor:pointer;color:var(--info);font-size:14px}
.kinds{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0}.kinds>span{width:100%}
button.kind{display:inline-flex;gap:8px;align-items:center}button.kind .expect{font:12px ui-monospace,Menlo,Consolas,monospace;color:var(--ok);background:var(--okbg);border-radius:4px;padding:0 5px}
button.kind.broken .expect{color:var(--err);background:var(--errbg)}
button.approve{background:#17804a;border-color:#17804a;color:#fff}button:focus-visible,a:focus-visible,summary:focus-visible{outline:3px solid #1f5fbf;outline-offset:2px}
#result:empty{display:none}#result{border-top:1px solid var(--line);margin-top:10px;padding-top:8px}#result h3{font-size:15px;margin:4px 0}
.answer{margin:6px 0}.answer .pill{font-size:14px}.answer pre{margin:4px 0;max-height:260px}
td.actions,td.left{white-space:nowrap}td.actions button{padding:3px 9px}#challenges td,#challenges th{padding:5px 6px}.authcode{font-size:15px;font-weight:700;color:var(--ok)}
.log{list-style:none;margin:0;padding:0;max-height:calc(100vh - 260px);min-height:300px;overflow:auto}
[hidden]{display:none!important}.entry{border-left:4px solid var(--line);border-bottom:1px solid var(--line);padding:0 6px}.entry[data-tone=ok]{border-left-color:var(--ok)}.entry[data-tone=err]{border-left-color:var(--err)}.entry[data-tone=warn]{border-left-color:var(--warn)}.entry[open]{background:#fafbfc}
.entry summary{cursor:pointer;display:grid;grid-template-columns:42px 92px 64px minmax(0,1fr);gap:6px;align-items:baseline;padding:5px 0;font-size:13px}
.entry summary .msg{grid-column:3/5;color:var(--muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.entry summary .what{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.entry h4{margin:8px 0 2px;font-size:13px}.entry p.hint{margin:2px 0;padding:4px 8px;background:var(--warnbg);border-radius:4px}#findings td{vertical-align:top;padding:5px 6px}#findings code{white-space:nowrap}.entry pre{margin:0;max-height:300px}.entry .pill{text-align:center}
</style>`;

// The page's script: the live log (server-sent events), the challenges table, the explorer and the buttons.
// Everything from the journal is put in the page as text (textContent), never as HTML.
const SCRIPT = String.raw`
const $=(s)=>document.querySelector(s);
const cls=(code)=>code==null?'warn':(CLASS[code]||'err');
function el(tag,attrs,...kids){const e=document.createElement(tag);for(const k in attrs||{}){if(k==='text')e.textContent=attrs[k];else e.setAttribute(k,attrs[k]);}for(const c of kids)if(c!=null)e.append(c);return e;}
function pretty(s){try{return JSON.stringify(JSON.parse(s),null,2)}catch{return s}}
async function call(method,path,body){const r=await fetch(path,{method,headers:body===undefined?{}:{'content-type':'application/json'},body:body===undefined?undefined:JSON.stringify(body)});const j=await r.json().catch(()=>({error:'HTTP '+r.status}));if(!r.ok)throw new Error(j.error||('HTTP '+r.status));return j;}
let flashTimer;function flash(msg,bad){const f=$('#flash');f.textContent=msg;f.className='pill '+(bad?'err':'info');f.hidden=false;clearTimeout(flashTimer);flashTimer=setTimeout(()=>f.hidden=true,6000);}

const log=$('#log');
function entry(e){
  const c=cls(e.code);
  const sum=el('summary',{},el('span',{class:'muted',text:'#'+e.seq}),el('span',{text:e.at.slice(11,23)}),el('span',{class:'pill '+c,text:e.code==null?'none':String(e.code)}),
    el('span',{class:'what',text:e.method+' '+e.path+(e.apiUser?' · '+e.apiUser:'')+(e.by?' · '+e.by:'')+' · '+e.latencyMs+' ms'}),el('span',{class:'msg',text:(e.message||e.fault||'').slice(0,160)}));
  const d=el('details',{class:'entry','data-tone':c,'data-code':String(e.code)},sum);
  const h=e.request&&e.request.headers||{};
  if(e.hint)d.append(el('h4',{text:e.by?'What a client sending this is told':'What the client likely did wrong'}),el('p',{class:'hint',text:e.hint.text}));
  d.append(el('h4',{text:'Request'}),el('pre',{text:e.method+' '+e.path+'\n'+Object.entries(h).map(([k,v])=>k+': '+v).join('\n')+(e.request&&e.request.body?'\n\n'+pretty(e.request.body):'')}));
  d.append(el('h4',{text:'Response'}),el('pre',{text:e.response?'HTTP '+e.http+'\n\n'+pretty(e.response.body):'(no answer: the connection was '+(e.fault||'broken')+')'}));
  if(e.expectedStringToSign)d.append(el('h4',{text:'The string the simulator expected to be signed'}),el('pre',{text:e.expectedStringToSign}));
  const facts=[['operation',e.operation],['type',e.type],['user',e.user],['challenge',e.challengeId],['scenario',e.scenario],['rule',e.rule],['sent by',e.by],['internal error',e.internalError]].filter((x)=>x[1]!=null);
  if(e.wouldFail)facts.push(['would also fail',e.wouldFail.map((w)=>w.code+' '+w.reason+(w.hint?' (hint: '+w.hint.text+')':'')).join('; ')]);
  d.append(el('h4',{text:'Details'}),el('pre',{text:facts.map((x)=>x[0]+': '+x[1]).join('\n')}));
  return el('li',{},d);
}
function add(e){log.prepend(entry(e));while(log.children.length>500)log.lastChild.remove();}
let ready=false,buffered=[];
const live=$('#live');
const events=new EventSource('/__sim/events');
events.addEventListener('request',(ev)=>{const e=JSON.parse(ev.data);if(ready)add(e);else buffered.push(e);refreshSoon();});
events.onerror=()=>{live.textContent='reconnecting';live.className='pill warn';ready=false;};
events.onopen=async()=>{
  live.textContent='live';live.className='pill ok';ready=false;buffered=[];
  try{const list=await call('GET','/__sim/journal?limit='+LOG_ROWS);log.replaceChildren();const seen=new Set(list.map((e)=>e.seq));
    for(const e of list.reverse())add(e);for(const e of buffered)if(!seen.has(e.seq))add(e);}catch(err){flash('Could not read the journal: '+err.message,true);}
  ready=true;buffered=[];
};

let refreshTimer;
async function refreshChallenges(){const r=await fetch('/__sim/ui/challenges');if(r.ok)$('#challenges').innerHTML=await r.text();}
const TONE={error:'err',warning:'warn',info:'info'};
async function refreshFindings(){
  const r=await fetch('/__sim/findings');if(!r.ok)return;const {findings}=await r.json();const box=$('#findings');
  if(!findings.length)return void box.replaceChildren(el('p',{class:'muted',text:'Nothing found yet.'}));
  const rows=findings.map((f)=>el('tr',{'data-finding':f.id},el('td',{},el('span',{class:'pill '+TONE[f.severity],text:f.severity})),
    el('td',{},el('code',{text:f.id}),el('div',{class:'muted small',text:'API user '+f.apiUser+' · #'+f.firstSeq+(f.lastSeq!==f.firstSeq?' to #'+f.lastSeq:'')+' · '+f.count+'×'})),
    el('td',{class:'small',text:f.explanation+(f.detail?' ('+f.detail+')':'')})));
  box.replaceChildren(el('table',{},el('thead',{},el('tr',{},el('th',{text:'Severity'}),el('th',{text:'Finding'}),el('th',{text:'What it means and the fix'}))),el('tbody',{},...rows)));
}
function refreshSoon(){if(!refreshTimer)refreshTimer=setTimeout(()=>{refreshTimer=0;refreshChallenges();refreshFindings();},200);}
refreshFindings();
setInterval(()=>{if(!document.hidden){refreshChallenges();refreshFindings();}},5000);

const clockEl=$('#clock');let clockNow=Number(clockEl.dataset.now),clockAt=Date.now(),frozen=clockEl.dataset.frozen==='true';
function showClock(c){if(c){clockNow=c.now;clockAt=Date.now();frozen=c.frozen;const s=$('#clock-state');s.textContent=frozen?'frozen':'running';s.className='pill '+(frozen?'warn':'ok');}
  clockEl.textContent=new Date(frozen?clockNow:clockNow+Date.now()-clockAt).toISOString().replace('T',' ').slice(0,19);}
setInterval(()=>showClock(),1000);

const form=$('#explorer'),result=$('#result');
async function explore(kind){
  const f=form.elements,v=(n)=>f[n].value.trim();
  const body={kind,apiUser:v('apiUser'),user:v('user'),challengeId:v('challengeId'),authCode:v('authCode'),ipAddress:v('ipAddress'),challengeType:v('challengeType'),challengeExpiry:v('challengeExpiry'),enableQRcode:f.enableQRcode.checked,enableAutoVerify:f.enableAutoVerify.checked,clock:v('clock')};
  result.replaceChildren(el('p',{class:'muted',text:'Sending…'}));
  let r;try{r=await call('POST','/__sim/explore',body);}catch(err){result.replaceChildren(el('p',{class:'pill err',text:err.message}));return;}
  result.replaceChildren(el('h3',{text:r.label+': expected '+r.expect}));
  for(const x of r.exchanges){
    let env;try{env=JSON.parse(x.response.body)}catch{}
    const code=env&&typeof env.code==='number'?env.code:undefined;
    const box=el('div',{class:'answer'});
    let said=env&&typeof env.message==='string'?env.message:x.response.body.slice(0,200);
    if(code===2025){const m=JSON.parse(env.message);f_set('challengeId',m.challengeId);f_set('authCode','');said='Challenge sent. Its id is in the form; the user answers on ';
      box.append(el('p',{},el('span',{class:'pill ok',text:'2025'}),' '+said,el('a',{href:m.challengeQRcodeUrl,target:'_blank',rel:'noopener',text:'the phone page'}),'.'));
      if(m.challengeQRcode)box.append(el('img',{src:m.challengeQRcode,alt:'QR code of the phone page',width:'120',height:'120'}));}
    else box.append(el('p',{},el('span',{class:'pill '+cls(code),text:code==null?'HTTP '+x.response.status:String(code)}),' '+said));
    box.append(el('details',{},el('summary',{text:'Request sent'}),el('pre',{text:x.request.method+' '+x.request.url+'\n'+Object.entries(x.request.headers).map(([k,v])=>k+': '+v).join('\n')+(x.request.body?'\n\n'+pretty(x.request.body):'')})));
    box.append(el('details',{},el('summary',{text:'Answer (HTTP '+x.response.status+')'}),el('pre',{text:pretty(x.response.body)})));
    result.append(box);
  }
  await refreshChallenges();
}
function f_set(n,v){form.elements[n].value=v;if(n==='challengeId')phoneLink();}
function phoneLink(){const id=form.elements.challengeId.value.trim(),a=$('#phone-link');a.hidden=!id;a.href='/phone/'+encodeURIComponent(id);}
form.elements.challengeId.addEventListener('input',phoneLink);

document.addEventListener('click',async(ev)=>{
  const b=ev.target.closest('button');if(!b)return;
  try{
    if(b.dataset.kind)return void await explore(b.dataset.kind);
    if(b.dataset.act){const c=await call('POST','/__sim/challenges/'+encodeURIComponent(b.dataset.id)+'/'+b.dataset.act);
      flash('Challenge '+c.state+(c.authCode?': the user was shown auth code '+c.authCode:''));if(c.authCode&&form.elements.challengeId.value===c.id)f_set('authCode',c.authCode);return void refreshChallenges();}
    if(b.dataset.use){f_set('challengeId',b.dataset.use);f_set('user',b.dataset.user);f_set('authCode',b.dataset.code);return void flash('Challenge put into the explorer');}
    if(b.dataset.clock){const c=await call('POST','/__sim/clock/'+b.dataset.clock,b.dataset.by?{by:b.dataset.by}:undefined);showClock(c);return void refreshChallenges();}
    if(b.id==='switch'){await call('POST','/__sim/scenario',{name:$('#scenario-pick').value});return void location.reload();}
    if(b.id==='reset'){if(!confirm('Forget every challenge, the log and the replay memory, and put the clock back?'))return;await call('POST','/__sim/reset');return void location.reload();}
    if(b.id==='clear-log'){await call('DELETE','/__sim/journal');log.replaceChildren();}
  }catch(err){flash(err.message,true);}
});
`;

/**
 * The dashboard at `/__sim/ui`, for a person exploring how a client meets each answer: the live request log,
 * the challenges with the user's buttons, the scenario picker, the clock, and the explorer (`POST
 * /__sim/explore`), which signs on the server. Its routes are rows of the control API's table
 * (control-routes.ts), behind the control token like the rest of `/__sim/`.
 */
export function dashboardHandlers(sim: Simulator) {
  const explorer = new Explorer(sim);
  return {
    page: (req: Request, res: Response) => {
      res.setHeader('cache-control', 'no-store');
      res.type('html').send(dashboardPage(sim, req.headers.host));
    },
    challenges: (_req: Request, res: Response) => {
      res.setHeader('cache-control', 'no-store');
      res.type('html').send(challengesFragment(sim));
    },
    explore: async (req: Request, res: Response) => {
      const input = exploreInput(req.body);
      const socket = req.socket;
      res.json(await explorer.explore(input, { host: socket.localAddress ?? '127.0.0.1', port: socket.localPort ?? 0, hostHeader: req.headers.host }));
    },
  };
}
