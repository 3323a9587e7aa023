import { hash53 } from '../auth/integer-set.js';
import { clipText, isObject, MAX_MESSAGE_CHARS, own } from '../contract/answer.js';
import { decodeUser, lenientInteger, parseJson } from '../contract/envelope.js';
import type { Answered, AnsweredRequest, Caller } from '../observers/answered.js';
import { JOURNAL_BODY_CHARS } from '../observers/journal.js';
import { API_USER_ID } from '../contract/api-user.js';
import { failedInTransit } from './first-uses.js';
import type { Hint } from './hint.js';
import { monotonicMs } from '../world/monotonic.js';
import { RecentMap } from '../world/recent-map.js';

/**
 * Client findings: an observer of "answered" that watches each API user's traffic for what the client does that the
 * real service accepts leniently or would punish: stale or reused envelopes, retries not signed again, a clock not
 * corrected after -4036, lenient bodies, polling too fast, challenges left open, a drifting clock. Each finding has a
 * stable id, a severity, an explanation with the fix, the first and last request (journal seq) that showed it, and
 * a count. It also tallies the doctor's hints (the signature mistakes seen). Bounded in bytes however long it runs
 * and whatever the requests hold: it watches only API users the simulator knows, reads only what a right signature
 * sent, keeps the values clients choose (envelope ids, nonces) as hashes, and folds everything about API users it does
 * not know into one row of findings and one row per hint.
 */

export type Severity = 'info' | 'warning' | 'error';
/** The `apiUser` of the one finding about requests that named API users the simulator does not know. */
const UNKNOWN_API_USERS = 'unknown';
export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'error'];
/**
 * Which requests a view covers: the whole `run` (from start, across every scenario load, what a suite is judged on)
 * or the current `scenario` (since it was loaded or reset, what one test looks at).
 */
export type Scope = 'run' | 'scenario';
export const SCOPES: readonly Scope[] = ['run', 'scenario'];

/** One thing a client did, however often. */
export interface Finding {
  /** Stable: reports and tests name findings by it. */
  id: string;
  severity: Severity;
  /** The API user whose requests showed it (`unknown` for the row of API users the simulator does not know). */
  apiUser: string;
  /** What the client did, why it matters, and the fix. */
  explanation: string;
  /** The latest figures behind it, when it has some ("1.2 s apart"). */
  detail?: string;
  firstSeq: number;
  lastSeq: number;
  count: number;
}

/** A hint the doctor gave (a signature mistake, a clock off, a nonce reused), however often. */
export interface HintSeen {
  code: number;
  id: string;
  text: string;
  apiUser?: string;
  firstSeq: number;
  lastSeq: number;
  count: number;
}

/** Every finding the doctor knows: its severity and explanation. */
export const FINDING_KINDS: Record<string, { severity: Severity; explanation: string }> = {
  'retry-not-resigned': {
    severity: 'error',
    explanation:
      'A request was retried with the nonce of an attempt that failed on the network or with a 5xx. The first attempt may have reached the service, which then refuses the retry as a replay (-4034). Sign every retry again, with a new nonce and time.',
  },
  'drift-not-corrected': {
    severity: 'error',
    explanation:
      "After -4036 the client kept signing with the same clock: the next request was off by as much again, or none succeeded after it. Every answer's utctime is the server's time: keep the difference and add it to your clock when signing.",
  },
  'stale-envelope': {
    severity: 'warning',
    explanation:
      "The envelope's utctime is more than a second away from the time in the signed utctime header: the envelope was built once and sent again (for example on every status poll). The service judges the headers, so it passes, but it is a stale request to anything that reads it. Build the envelope anew for every request.",
  },
  'envelope-id-reused': {
    severity: 'warning',
    explanation:
      "The same envelope id was sent in more than one request. The id ties a request to its answer in both sides' logs: give every request its own.",
  },
  'body-relaxed-json': {
    severity: 'warning',
    explanation:
      "`body` was sent as a string that is not JSON (single quotes, a trailing comma, or 'true' for true). The simulator reads it leniently, as the real service does today; a JSON parser refuses it (strict: -5071). Send `body` as a JSON object.",
  },
  'body-as-string': {
    severity: 'info',
    explanation:
      '`body` was sent as a string holding JSON; the interface document shows an object. Accepted leniently; strict answers -5071. Send `body` as a JSON object.',
  },
  'string-booleans': {
    severity: 'warning',
    explanation:
      'enableQRcode or enableAutoVerify was sent as the text "true" or "false". Accepted leniently; strict answers -5075. Send JSON true and false.',
  },
  'base64-user': {
    severity: 'warning',
    explanation:
      "The user's e-mail address was sent Base64-encoded. Accepted leniently; strict answers -5079. Send the address as it is.",
  },
  'challngeid-typo': {
    severity: 'warning',
    explanation:
      'The body names the challenge `challngeId` (a letter missing). Accepted leniently; strict ignores it and answers -5075. Spell it challengeId.',
  },
  'blocked-on-challenge-endpoint': {
    severity: 'warning',
    explanation:
      'Type 950 (the blocked check) was sent to /v1/svc/challenge. Accepted leniently; strict answers -5072. Send it to /v1/svc/blocked.',
  },
  'fast-polling': {
    severity: 'warning',
    explanation:
      'The status of one challenge was asked more than twice a second, again and again. A user takes seconds to answer: poll once a second or less, and stop when the challenge ends.',
  },
  'challenge-abandoned': {
    severity: 'info',
    explanation:
      'A challenge was created and the client never asked its status, verified it or cancelled it. Follow every challenge to its end, or cancel it when the user leaves.',
  },
  'unknown-api-user': {
    severity: 'info',
    explanation:
      'Requests named an API user id this simulator does not know, and were refused with -1001: a client configured with the id of another system, or requests sent in its place by someone else. Counted here in one row whatever the ids (the detail names the last); nothing else is kept for them.',
  },
  'clock-drifting': {
    severity: 'info',
    explanation:
      "The client's clock moved against the server's by more than 30 s during the run. A clock that drifts ends in -4036: correct it from the answers' utctime now and then. (The simulator's clock frozen or moved by a test resets this measure.)",
  },
  // Proxy mode (src/proxy/, docs/proxy.md): what the service answered, judged against the contract and against mfa-sim.
  'service-not-json': {
    severity: 'error',
    explanation:
      "The service answered something that is not a JSON envelope (an HTML error page, plain text, an empty body), or JSON under another Content-Type. The interface document says every answer is JSON: a client that parses every answer as the envelope fails on it. mfa-sim plays such answers with a rule's fault: proxy-502 or garbage.",
  },
  'service-envelope-keys': {
    severity: 'error',
    explanation:
      'The service answered an envelope whose keys are not exactly id, utctime (utcTime in the sdk response style), status, code, message and moreInfo: a key is missing, or there is one more. The published clients parse answers with strict models that need exactly these keys.',
  },
  'service-envelope-types': {
    severity: 'error',
    explanation:
      'The service answered an envelope with a value of the wrong kind: id, utctime, message and moreInfo are strings, status and code integers.',
  },
  'service-utctime-format': {
    severity: 'error',
    explanation:
      "The service answered a utctime that is not ISO 8601 UTC with fractional seconds and a Z suffix. Clients read the server's time from it to correct their clocks.",
  },
  'service-code-unknown': {
    severity: 'error',
    explanation:
      'The service answered a code that is not in the code table (mfa-sim --codes). A client that maps codes to outcomes has no case for it; mfa-sim cannot answer it.',
  },
  'service-status-mismatch': {
    severity: 'error',
    explanation:
      'The service answered a code with another HTTP status than the code table gives it (-40xx with 400, 2025 with 202, -5000 with 500...), or an envelope whose status differs from the HTTP status.',
  },
  'service-code-scope': {
    severity: 'warning',
    explanation:
      'The service answered a code that the code table does not give to this operation (a new challenge answered 15000, a time request answered -2006).',
  },
  'service-more-info': {
    severity: 'warning',
    explanation:
      'The service answered a moreInfo that is not an http(s) URL of a status page taking the code as its code parameter.',
  },
  'service-no-answer': {
    severity: 'error',
    explanation:
      'The service gave no answer in time, an answer larger than the limit, or none at all (the connection refused or closed, TLS not trusted): the client got -5000 from mfa-sim with the reason. A client must treat -5000 as a failure that may be retried, signed anew.',
  },
  'service-differs-status': {
    severity: 'error',
    explanation:
      'The service answered this request with another HTTP status or code than mfa-sim would have (the shadow comparison): the service has changed, or mfa-sim plays it wrong. Both answers are in the detail and in the journal entry.',
  },
  'service-differs-envelope': {
    severity: 'error',
    explanation:
      "The service's envelope has other keys, or values of other kinds, than mfa-sim's answer to the same request (the shadow comparison). Both answers are in the detail and in the journal entry.",
  },
  'service-differs-message': {
    severity: 'warning',
    explanation:
      "The service answered the same code as mfa-sim, with another message: JSON text with other keys, or an error's sentence that does not begin with the code's meaning as the interface document words it. Both answers are in the detail and in the journal entry.",
  },
};

/** A client's clock is called drifting when its distance to the server's spreads by more than this. */
const DRIFT_SPREAD_MS = 30_000;
/**
 * Two status polls of one challenge closer than this (this machine's time) are fast; this many in a row are a finding.
 */
const FAST_POLL_MS = 500;
const FAST_POLLS = 3;
/** An envelope utctime this far from the header time is stale. */
const STALE_ENVELOPE_MS = 1000;
/**
 * Bounds (docs/robustness.md gives each in bytes): API users watched; the envelope ids last sent and the nonces of
 * attempts that failed in transit, of all API users together, each kept as a 53-bit hash whatever its length;
 * challenges followed; rows of hints, each text kept up to an error message's length.
 */
const CLIENTS_WATCHED = 1000;
const IDS_KEPT = 4096;
const NONCES_KEPT = 1024;
const CHALLENGES_FOLLOWED = 10_000;
const HINT_KINDS_KEPT = 1000;
/** Seeds the hashes of envelope ids and nonces (the replay memory's own are seeded apart). */
const VALUE_SEED = 0x646f63;

/** What is kept of a client between its requests: its clock, as far as its answers showed it. */
interface Client {
  /** The last -4036 not followed by an accepted request: its seq and how far off the clock was. */
  drift?: { seq: number; ms: number };
  offsets?: { min: number; max: number };
}

/** A value a client chose, as the doctor keeps it: a hash of it and of the API user that sent it. */
const keyOf = (apiUser: string, value: string) => hash53(`${apiUser}\0${value}`, VALUE_SEED);

/** The signing headers of a request, whatever the token. */
function signingHeaders(headers: AnsweredRequest['request']['headers']): { time?: number; nonce?: string } {
  const out: { time?: number; nonce?: string } = {};
  for (const name in headers) {
    if (!name.startsWith('x-')) continue;
    const v = headers[name];
    if (typeof v !== 'string') continue;
    if (name.endsWith('-utctime') && /^\d{1,16}$/.test(v)) out.time = Number(v);
    else if (name.endsWith('-cnonce')) out.nonce = v;
  }
  return out;
}

export class ClientFindings {
  private readonly clients = new Map<string, Client>();
  private readonly found = new Map<string, Finding>();
  private readonly hints = new Map<string, HintSeen>();
  /** The same, counted since the current scenario started (its view); the run's maps above go on. */
  private readonly foundHere = new Map<string, Finding>();
  private readonly hintsHere = new Map<string, HintSeen>();
  /** The first request (seq) of the current scenario. */
  private scenarioFrom = 0;
  /** The seq of the request that last sent each envelope id. */
  private readonly ids = new RecentMap<number, number>(IDS_KEPT);
  /** The seq of the request whose nonce failed in transit. */
  private readonly failedNonces = new RecentMap<number, number>(NONCES_KEPT);
  /** Challenges the simulator made for a watched API user (its own ids), and how each is polled. */
  private readonly created = new RecentMap<string, { apiUser: string; seq: number; followed: boolean }>(
    CHALLENGES_FOLLOWED,
  );
  private readonly polls = new RecentMap<string, { last: number; fast: number }>(CHALLENGES_FOLLOWED);

  /** `hide`: hides secrets in a text before it is cut to be kept (a cut secret would no longer be recognised). */
  constructor(private readonly hide: (text: string) => string = (text) => text) {}

  /** Watches every answer from now on. */
  observe(events: { subscribe(name: string, fn: (e: Answered) => void): () => void }): () => void {
    return events.subscribe('findings', ({ record, counts, caller }) => {
      // What a service answered in proxy mode is found whoever sent the request.
      if (record.upstream?.deviations.length) this.seeService(record);
      // The explorer's requests are the simulator's own demonstrations: neither findings nor hints of the client.
      if (counts && record.by !== 'explorer') this.see(record, caller);
    });
  }

  /** The simulator's clock was frozen, moved or let run: a client's distance to it starts again. */
  clockMoved(): void {
    for (const c of this.clients.values()) c.offsets = undefined;
  }

  /** A new run: everything is forgotten. */
  clear(): void {
    this.clients.clear();
    this.found.clear();
    this.hints.clear();
    this.ids.clear();
    this.failedNonces.clear();
    this.created.clear();
    this.polls.clear();
    this.startScenario(0);
  }

  /** A scenario starts at request `seq`: its view starts afresh; the run's findings go on. */
  startScenario(seq: number): void {
    this.foundHere.clear();
    this.hintsHere.clear();
    this.scenarioFrom = seq;
  }

  /**
   * The findings, worst first. `final`: the run is over (at exit), so a challenge still waiting was left open and
   * a -4036 with nothing accepted after it was never corrected; `state` tells whether a challenge is still waiting.
   */
  findings(
    final = false,
    state: (challengeId: string) => string | undefined = () => undefined,
    scope: Scope = 'run',
  ): Finding[] {
    const from = scope === 'run' ? 0 : this.scenarioFrom;
    const found = scope === 'run' ? this.found : this.foundHere;
    const out = [...found.values()].map((f) => ({ ...f }));
    const abandoned = new Map<string, Finding>();
    for (const [id, c] of this.created) {
      if (c.followed || c.seq < from || (!final && state(id) === 'waiting')) continue;
      const f = abandoned.get(c.apiUser);
      if (f) {
        f.count++;
        f.lastSeq = c.seq;
      } else abandoned.set(c.apiUser, this.make('challenge-abandoned', c.apiUser, c.seq));
    }
    out.push(...abandoned.values());
    if (final) {
      for (const [apiUser, c] of this.clients) {
        if (c.drift && c.drift.seq >= from && !found.has(`drift-not-corrected\0${apiUser}`)) {
          out.push({
            ...this.make('drift-not-corrected', apiUser, c.drift.seq),
            detail: 'no request was accepted after it',
          });
        }
      }
    }
    const rank = (s: Severity) => SEVERITIES.indexOf(s);
    return out.sort((a, b) => rank(b.severity) - rank(a.severity) || a.firstSeq - b.firstSeq);
  }

  /** The doctor's hints given, most frequent first. */
  hintsSeen(scope: Scope = 'run'): HintSeen[] {
    return [...(scope === 'run' ? this.hints : this.hintsHere).values()]
      .map((h) => ({ ...h }))
      .sort((a, b) => b.count - a.count || a.firstSeq - b.firstSeq);
  }

  /**
   * Proxy mode: each deviation of the service's answer, under the request's API user when it names one the doctor
   * watches.
   */
  private seeService(r: AnsweredRequest): void {
    const apiUser = r.apiUser !== undefined && API_USER_ID.test(r.apiUser) && this.client(r.apiUser) ? r.apiUser : '-';
    for (const d of r.upstream!.deviations) this.note(d.kind, apiUser, r.seq, d.detail);
  }

  private see(r: AnsweredRequest, caller: Caller): void {
    const apiUser = r.apiUser !== undefined && API_USER_ID.test(r.apiUser) ? r.apiUser : undefined;
    // Hints of requests that named no API user the simulator knows are counted together, without one.
    const hintedUser = caller === 'unknown' ? undefined : apiUser;
    if (r.hint && r.code !== undefined) this.tallyHint(r.code, r.hint, r.seq, hintedUser);
    for (const w of r.wouldFail ?? []) if (w.hint) this.tallyHint(w.code, w.hint, r.seq, hintedUser);
    if (apiUser === undefined) return;
    if (caller === 'unknown') {
      if (r.code === -1001) this.note('unknown-api-user', UNKNOWN_API_USERS, r.seq, `the last named ${apiUser}`);
      return;
    }
    const client = this.client(apiUser);
    if (!client) return;
    const signed = caller === 'signed';
    const { time, nonce } = signingHeaders(r.request.headers);
    const at = Date.parse(r.at);

    if (nonce !== undefined) {
      const key = keyOf(apiUser, nonce);
      const failedAt = this.failedNonces.get(key);
      // Only a signed retry is the client's: anyone can send a request naming its API user and a nonce.
      if (signed && failedAt !== undefined && failedAt !== r.seq)
        this.note('retry-not-resigned', apiUser, r.seq, `request ${failedAt} failed with this nonce`);
      if (failedInTransit(r)) this.failedNonces.set(key, r.seq);
    }
    if (!signed) return;
    if (r.code === -4036 && time !== undefined) {
      const ms = time - at;
      if (client.drift && Math.abs(ms - client.drift.ms) < 10_000)
        this.note(
          'drift-not-corrected',
          apiUser,
          r.seq,
          `request ${client.drift.seq} was ${Math.round(client.drift.ms / 1000)} s off, and this one ${Math.round(ms / 1000)} s`,
        );
      client.drift = { seq: r.seq, ms };
    } else if (r.http !== undefined && r.http < 400) {
      client.drift = undefined;
      if (time !== undefined) this.watchClock(client, apiUser, r.seq, time - at);
    }
    if (r.endpoint !== undefined && r.endpoint !== 'time') this.readEnvelope(apiUser, r, time);
    if (r.code === 2025 && r.challengeId !== undefined)
      this.created.set(r.challengeId, { apiUser, seq: r.seq, followed: false });
    // A challenge the simulator found for the request (its own id), not whatever the body named.
    if (r.endpoint === 'status' && r.challengeId !== undefined) this.watchPolling(r.challengeId, apiUser, r.seq);
  }

  /** What the envelope and body show: staleness, a reused id, the lenient readings, polling, following a challenge. */
  private readEnvelope(apiUser: string, r: AnsweredRequest, time: number | undefined): void {
    const text = r.request.body;
    // Longer than the journal keeps whole, it is cut (and no longer JSON): nothing to read.
    if (text === '' || text.length > JOURNAL_BODY_CHARS) return;
    // Parsed as the envelope check parsed it a moment ago (parseJson remembers it): strict JSON only.
    const parsed = parseJson(text, false);
    if (parsed.kind !== 'value' || !isObject(parsed.value)) return;
    const env = parsed.value;
    const sentAt = own(env, 'utctime') ?? own(env, 'utcTime');
    const envTime =
      typeof sentAt === 'number'
        ? sentAt
        : typeof sentAt === 'string' && /^\d{1,16}$/.test(sentAt)
          ? Number(sentAt)
          : undefined;
    // An envelope time in seconds (below 1e11) is another matter than staleness: not judged here.
    if (
      time !== undefined &&
      envTime !== undefined &&
      envTime >= 1e11 &&
      Math.abs(time - envTime) > STALE_ENVELOPE_MS
    ) {
      this.note(
        'stale-envelope',
        apiUser,
        r.seq,
        `the envelope's utctime was ${((time - envTime) / 1000).toFixed(1)} s before the signed time`,
      );
    }
    const id = own(env, 'id');
    if (typeof id === 'string' || typeof id === 'number') {
      const key = keyOf(apiUser, String(id));
      const before = this.ids.get(key);
      if (before !== undefined) this.note('envelope-id-reused', apiUser, r.seq, `request ${before} sent the same id`);
      this.ids.set(key, r.seq);
    }
    if (r.endpoint === 'challenge' && lenientInteger(own(env, 'type')) === 950)
      this.note('blocked-on-challenge-endpoint', apiUser, r.seq);

    let body = own(env, 'body');
    if (typeof body === 'string') {
      const strict = parseJson(body, false);
      if (strict.kind === 'value') {
        this.note('body-as-string', apiUser, r.seq);
        body = strict.value;
      } else {
        const relaxed = parseJson(body, true);
        if (relaxed.kind === 'value') this.note('body-relaxed-json', apiUser, r.seq);
        body = relaxed.kind === 'value' ? relaxed.value : undefined;
      }
    }
    if (!isObject(body)) return;
    if (['enableQRcode', 'enableQRCode', 'enableAutoVerify'].some((k) => typeof own(body, k) === 'string'))
      this.note('string-booleans', apiUser, r.seq);
    for (const key of Object.keys(body)) {
      const v = body[key];
      if (key.endsWith('User') && typeof v === 'string' && !v.includes('@') && decodeUser(v, true) !== undefined)
        this.note('base64-user', apiUser, r.seq);
    }
    const typo = own(body, 'challngeId');
    if (typo !== undefined) this.note('challngeid-typo', apiUser, r.seq);
    const challengeId = own(body, 'challengeId') ?? typo;
    if (typeof challengeId !== 'string') return;
    const created = this.created.get(challengeId);
    if (created && created.apiUser === apiUser) created.followed = true;
  }

  private watchPolling(challengeId: string, apiUser: string, seq: number): void {
    const now = monotonicMs();
    const p = this.polls.get(challengeId);
    if (!p) return this.polls.set(challengeId, { last: now, fast: 0 });
    p.fast = now - p.last < FAST_POLL_MS ? p.fast + 1 : 0;
    p.last = now;
    if (p.fast >= FAST_POLLS)
      this.note('fast-polling', apiUser, seq, `${p.fast} polls in a row less than ${FAST_POLL_MS} ms apart`);
  }

  private watchClock(client: Client, apiUser: string, seq: number, offset: number): void {
    const o = (client.offsets ??= { min: offset, max: offset });
    o.min = Math.min(o.min, offset);
    o.max = Math.max(o.max, offset);
    if (o.max - o.min > DRIFT_SPREAD_MS) {
      const s = (ms: number) => `${ms >= 0 ? '+' : '−'}${(Math.abs(ms) / 1000).toFixed(1)} s`;
      this.note('clock-drifting', apiUser, seq, `from ${s(o.min)} to ${s(o.max)} against the server's clock`);
    }
  }

  private client(apiUser: string): Client | undefined {
    let c = this.clients.get(apiUser);
    if (!c && this.clients.size < CLIENTS_WATCHED) {
      c = {};
      this.clients.set(apiUser, c);
    }
    return c;
  }

  private make(id: string, apiUser: string, seq: number): Finding {
    const kind = FINDING_KINDS[id];
    return {
      id,
      severity: kind.severity,
      apiUser,
      explanation: kind.explanation,
      firstSeq: seq,
      lastSeq: seq,
      count: 1,
    };
  }

  private note(id: string, apiUser: string, seq: number, detail?: string): void {
    const key = `${id}\0${apiUser}`;
    for (const found of [this.found, this.foundHere]) {
      const f = found.get(key);
      if (f) {
        f.count++;
        f.lastSeq = seq;
        if (detail !== undefined) f.detail = detail;
      } else {
        found.set(key, { ...this.make(id, apiUser, seq), ...(detail === undefined ? {} : { detail }) });
      }
    }
  }

  private tallyHint(code: number, hint: Hint, seq: number, apiUser: string | undefined): void {
    const key = `${code}\0${hint.id}\0${apiUser ?? ''}`;
    // A hint may quote what the client sent at length: kept up to an error message's length, its secrets hidden first.
    const text = hint.text.length <= MAX_MESSAGE_CHARS ? hint.text : clipText(this.hide(hint.text), MAX_MESSAGE_CHARS);
    for (const hints of [this.hints, this.hintsHere]) {
      const seen = hints.get(key);
      if (seen) {
        seen.count++;
        seen.lastSeq = seq;
        seen.text = text;
      } else if (hints.size < HINT_KINDS_KEPT) {
        hints.set(key, { code, id: hint.id, text, apiUser, firstSeq: seq, lastSeq: seq, count: 1 });
      }
    }
  }
}
