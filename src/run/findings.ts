import { hash } from 'node:crypto';
import { clipText, isObject, MAX_MESSAGE_CHARS, own } from '../contract/response.js';
import { API_USER_ID } from '../contract/api-user.js';
import { decodeUser, lenientInteger, parseJson } from '../contract/envelope.js';
import type { AnsweredEvents } from './answered-events.js';
import type { JournalEntry, Caller } from './answered.js';
import { JOURNAL_BODY_CHARS } from './journal.js';
import { BoundedMap } from '../world/bounded-map.js';
import { machine } from '../world/clock.js';
import type { Hint } from '../doctor/doctor.js';
import {
  FINDING_KINDS,
  SEVERITIES,
  type Finding,
  type FindingKind,
  type HintSeen,
  type Scope,
} from './finding-types.js';
import { failedInTransit } from '../doctor/doctor.js';
import { count } from './failures.js';

// Client findings: what the real service accepts leniently or would punish, and the doctor's hints. Bounded: only
// known API users are watched, client-chosen values are kept as hashes, unknown API users fold into one row.

/** A client's clock is called drifting when its distance to the server's spreads by more than this. */
const DRIFT_SPREAD_MS = 30_000;
/** Two status polls of one challenge closer than this (this machine's time) are fast; this many in a row a finding. */
const FAST_POLL_MS = 500;
const FAST_POLLS = 3;
/** An envelope utctime this far from the header time is stale. */
const STALE_ENVELOPE_MS = 1000;
// The bounds docs/robustness.md gives in bytes.
const CLIENTS_WATCHED = 1000;
const IDS_KEPT = 4096;
const NONCES_KEPT = 1024;
const CHALLENGES_FOLLOWED = 10_000;
const HINT_ROWS_KEPT = 1000;

/** What is kept of a client between its requests: its clock, as far as its answers showed it. */
interface Client {
  /** The last -4036 not followed by an accepted request: its seq and how far off the clock was. */
  drift?: { seq: number; ms: number };
  offsets?: { min: number; max: number };
}

type Made = { apiUser: string; seq: number; followed: boolean };

/** A value an API user chose, as the doctor keeps it: a hash of it, so a long value costs no more than a short one. */
const keyOf = (apiUser: string, value: string) => hash('sha256', `${apiUser} ${value}`, 'base64');

/** The signing headers of a request, whatever the token. */
function signingHeaders(headers: JournalEntry['request']['headers']): { time?: number; nonce?: string } {
  const out: { time?: number; nonce?: string } = {};
  for (const [name, v] of Object.entries(headers)) {
    if (!name.startsWith('x-') || typeof v !== 'string') continue;
    if (name.endsWith('-utctime') && /^\d{1,16}$/.test(v)) out.time = Number(v);
    else if (name.endsWith('-cnonce')) out.nonce = v;
  }
  return out;
}

/** Client findings as plain data: every memory's entries in their order (the oldest are forgotten first). */
export interface FindingsState {
  clients: [string, Client][];
  found: [string, Finding][];
  foundHere: [string, Finding][];
  hints: [string, HintSeen][];
  hintsHere: [string, HintSeen][];
  scenarioFrom: number;
  ids: [string, number][];
  failedNonces: [string, number][];
  created: [string, Made][];
  /** `last`: this machine's monotonic time (performance.now()) of the last poll. */
  polls: [string, { last: number; fast: number }][];
}

export class ClientFindings {
  private readonly clients = new Map<string, Client>();
  // Each view twice: over the run, and since the current scenario started (from `scenarioFrom`).
  private readonly found = new Map<string, Finding>();
  private readonly foundHere = new Map<string, Finding>();
  private readonly hints = new Map<string, HintSeen>();
  private readonly hintsHere = new Map<string, HintSeen>();
  private scenarioFrom = 0;
  /** The seq of the request that last sent each envelope id. */
  private readonly ids = new BoundedMap<string, number>(IDS_KEPT);
  /** The seq of the request whose nonce failed in transit. */
  private readonly failedNonces = new BoundedMap<string, number>(NONCES_KEPT);
  /** Challenges the simulator made for a watched API user (its own ids): by which request, and whether followed. */
  private readonly created = new BoundedMap<string, Made>(CHALLENGES_FOLLOWED);
  private readonly polls = new BoundedMap<string, { last: number; fast: number }>(CHALLENGES_FOLLOWED);

  /** `redact`: redacts secrets in a hint's text before it is cut to be kept (a cut secret is no longer recognised). */
  constructor(private readonly redact: (text: string) => string) {}

  observe(events: AnsweredEvents): () => void {
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

  clear(): void {
    for (const memory of [this.clients, this.found, this.hints, this.ids, this.failedNonces, this.created, this.polls])
      memory.clear();
    this.startScenario(0);
  }

  /** The findings as plain data, for a snapshot (`restore` takes it); the caller copies them. */
  state(): FindingsState {
    return {
      clients: [...this.clients],
      found: [...this.found],
      foundHere: [...this.foundHere],
      hints: [...this.hints],
      hintsHere: [...this.hintsHere],
      scenarioFrom: this.scenarioFrom,
      ids: [...this.ids],
      failedNonces: [...this.failedNonces],
      created: [...this.created],
      polls: [...this.polls],
    };
  }

  restore(state: FindingsState): void {
    this.clear();
    const refill = <K, V>(memory: Map<K, V>, entries: [K, V][]) => {
      for (const [k, v] of entries) memory.set(k, v);
    };
    refill(this.clients, state.clients);
    refill(this.found, state.found);
    refill(this.foundHere, state.foundHere);
    refill(this.hints, state.hints);
    refill(this.hintsHere, state.hintsHere);
    this.scenarioFrom = state.scenarioFrom;
    refill(this.ids, state.ids);
    refill(this.failedNonces, state.failedNonces);
    refill(this.created, state.created);
    refill(this.polls, state.polls);
  }

  /** A scenario starts at request `seq`: its view starts afresh; the run's goes on. */
  startScenario(seq: number): void {
    this.foundHere.clear();
    this.hintsHere.clear();
    this.scenarioFrom = seq;
  }

  /** The findings, worst first; `final`: the run is over (a waiting challenge was left open, a -4036 not corrected). */
  findings(final: boolean, state: (id: string) => string | undefined, scope: Scope): Finding[] {
    const from = scope === 'run' ? 0 : this.scenarioFrom;
    const found = scope === 'run' ? this.found : this.foundHere;
    const abandoned = new Map<string, Finding>();
    for (const [id, c] of this.created) {
      if (c.followed || c.seq < from || (!final && state(id) === 'waiting')) continue;
      count(abandoned, c.apiUser, c.seq, () => this.make('challenge-abandoned', c.apiUser, c.seq));
    }
    const out = [...[...found.values()].map((f) => ({ ...f })), ...abandoned.values()];
    for (const [apiUser, c] of this.clients) {
      if (final && c.drift && c.drift.seq >= from && !found.has(`drift-not-corrected\0${apiUser}`))
        out.push({
          ...this.make('drift-not-corrected', apiUser, c.drift.seq),
          detail: 'no request was accepted after it',
        });
    }
    const rank = (f: Finding) => SEVERITIES.indexOf(f.severity);
    return out.sort((a, b) => rank(b) - rank(a) || a.firstSeq - b.firstSeq);
  }

  /** The doctor's hints given, most frequent first. */
  hintsSeen(scope: Scope): HintSeen[] {
    return [...(scope === 'run' ? this.hints : this.hintsHere).values()]
      .map((h) => ({ ...h }))
      .sort((a, b) => b.count - a.count || a.firstSeq - b.firstSeq);
  }

  /** Proxy mode: each deviation of the service's answer, under the request's API user when the doctor watches it. */
  private seeService(r: JournalEntry): void {
    const apiUser = r.apiUser !== undefined && API_USER_ID.test(r.apiUser) && this.client(r.apiUser) ? r.apiUser : '-';
    for (const d of r.upstream!.deviations) this.note(d.kind, apiUser, r.seq, d.detail);
  }

  private see(r: JournalEntry, caller: Caller): void {
    const apiUser = r.apiUser !== undefined && API_USER_ID.test(r.apiUser) ? r.apiUser : undefined;
    // Hints of requests that named no API user the simulator knows are counted together, without one.
    const hintedUser = caller === 'unknown' ? undefined : apiUser;
    if (r.hint && r.code !== undefined) this.tally(r.code, r.hint, r.seq, hintedUser);
    for (const w of r.wouldFail ?? []) if (w.hint) this.tally(w.code, w.hint, r.seq, hintedUser);
    if (apiUser === undefined) return;
    if (caller === 'unknown') {
      if (r.code === -1001) this.note('unknown-api-user', 'unknown', r.seq, `the last named ${apiUser}`, caller);
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
      if (client.drift && Math.abs(ms - client.drift.ms) < 10_000) {
        const off = `request ${client.drift.seq} was ${Math.round(client.drift.ms / 1000)} s off, and this one ${Math.round(ms / 1000)} s`;
        this.note('drift-not-corrected', apiUser, r.seq, off);
      }
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

  /** What the envelope and body show: staleness, a reused id, the lenient readings, following a challenge. */
  private readEnvelope(apiUser: string, r: JournalEntry, time?: number): void {
    const text = r.request.body;
    // Longer than the journal keeps whole, it is cut (and no longer JSON): nothing to read.
    if (text === '' || text.length > JOURNAL_BODY_CHARS) return;
    const json = parseJson(text, false);
    if (json.kind !== 'value' || !isObject(json.value)) return;
    const env = json.value;
    const sentAt = own(env, 'utctime') ?? own(env, 'utcTime');
    const envTime = typeof sentAt === 'string' && /^\d{1,16}$/.test(sentAt) ? Number(sentAt) : sentAt;
    // An envelope time in seconds (below 1e11) is another matter than staleness: not judged here.
    const early = time !== undefined && typeof envTime === 'number' && envTime >= 1e11 ? time - envTime : 0;
    if (Math.abs(early) > STALE_ENVELOPE_MS) {
      const detail = `the envelope's utctime was ${(early / 1000).toFixed(1)} s before the signed time`;
      this.note('stale-envelope', apiUser, r.seq, detail);
    }
    const id = own(env, 'id');
    if (typeof id === 'string' || typeof id === 'number') {
      const key = keyOf(apiUser, String(id));
      const before = this.ids.get(key);
      this.ids.set(key, r.seq);
      if (before !== undefined) this.note('envelope-id-reused', apiUser, r.seq, `request ${before} sent the same id`);
    }
    if (r.endpoint === 'challenge' && lenientInteger(own(env, 'type')) === 950)
      this.note('blocked-on-challenge-endpoint', apiUser, r.seq);
    let body = own(env, 'body');
    if (typeof body === 'string') {
      const strict = parseJson(body, false);
      const read = strict.kind === 'value' ? strict : parseJson(body, true);
      if (read.kind === 'value') this.note(read === strict ? 'body-as-string' : 'body-relaxed-json', apiUser, r.seq);
      body = read.kind === 'value' ? read.value : undefined;
    }
    if (!isObject(body)) return;
    if (['enableQRcode', 'enableQRCode', 'enableAutoVerify'].some((k) => typeof own(body, k) === 'string'))
      this.note('string-booleans', apiUser, r.seq);
    for (const [key, v] of Object.entries(body)) {
      if (key.endsWith('User') && typeof v === 'string' && !v.includes('@') && decodeUser(v, true) !== undefined)
        this.note('base64-user', apiUser, r.seq);
    }
    const typo = own(body, 'challngeId');
    if (typo !== undefined) this.note('challngeid-typo', apiUser, r.seq);
    const challengeId = own(body, 'challengeId') ?? typo;
    const made = typeof challengeId === 'string' ? this.created.get(challengeId) : undefined;
    if (made?.apiUser === apiUser) made.followed = true;
  }

  private watchPolling(challengeId: string, apiUser: string, seq: number): void {
    const now = machine.mono();
    const p = this.polls.get(challengeId);
    if (!p) return void this.polls.set(challengeId, { last: now, fast: 0 });
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
    if (!this.clients.has(apiUser) && this.clients.size < CLIENTS_WATCHED) this.clients.set(apiUser, {});
    return this.clients.get(apiUser);
  }

  private make(id: FindingKind, apiUser: string, seq: number): Finding {
    const { severity, explanation } = FINDING_KINDS[id];
    return { id, severity, apiUser, explanation, firstSeq: seq, lastSeq: seq, count: 1 };
  }

  /** One more request that showed a finding; one no signed request showed is `unsigned`, and fails no run. */
  private note(id: FindingKind, apiUser: string, seq: number, detail?: string, caller: Caller = 'signed'): void {
    for (const found of [this.found, this.foundHere]) {
      const f = count(found, `${id}\0${apiUser}`, seq, () => this.make(id, apiUser, seq));
      if (detail !== undefined) f.detail = detail;
      if (caller === 'signed') delete f.unsigned;
      else if (f.count === 1) f.unsigned = true;
    }
  }

  /** One more hint given; its text, which may quote what the client sent, redacted and cut to a message's size. */
  private tally(code: number, hint: Hint, seq: number, apiUser: string | undefined): void {
    const text = hint.text.length > MAX_MESSAGE_CHARS ? clipText(this.redact(hint.text), MAX_MESSAGE_CHARS) : hint.text;
    const key = `${code}\0${hint.id}\0${apiUser ?? ''}`;
    const row = { code, id: hint.id, text, apiUser, firstSeq: seq, lastSeq: seq, count: 1 };
    for (const hints of [this.hints, this.hintsHere])
      if (hints.size < HINT_ROWS_KEPT || hints.has(key)) count(hints, key, seq, () => ({ ...row })).text = text;
  }
}
