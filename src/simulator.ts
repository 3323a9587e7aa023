import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { codeInfo, mustCode, SERVICE_CODES } from './codes.js';
import type { ChallengeBody } from './contract/bodies.js';
import { envelopeJson, internalErrorJson, isoTime } from './contract/response.js';
import { endpointOf } from './contract/operations.js';
import { DEFAULT_REPLAY_CAP, ReplayMemory } from './auth/replay.js';
import { clip, DEFAULT_JOURNAL_SIZE, Journal, JOURNAL_BODY_CHARS, type JournalEntry } from './journal.js';
import { clipText, MAX_MESSAGE_CHARS } from './contract/answer.js';
import { RequestContext, runPipeline, type ApiRequest, type PipelineHost } from './pipeline.js';
import { makeApiUser, type ApiUser, type CompiledRule, type CompiledScenario } from './scenario/compile.js';
import { AllowedHosts } from './http/allowed-hosts.js';
import { ScenarioDirectories } from './scenario/directories.js';
import { ScenarioError } from './scenario/errors.js';
import { compileOrThrow, loadScenarioFile, loadScenarioText } from './scenario/load.js';
import { findShippedScenario, shippedScenarioNames } from './scenario/catalog.js';
import type { Fault, ScenarioInput } from './scenario/schema.js';
import { ChallengeStore, DEFAULT_MAX_CHALLENGES, type Challenge } from './world/challenges.js';
import { ClockRangeError, VirtualClock } from './world/clock.js';
import { boundedDuration, boundedInstant, LIMITS, shownValue } from './world/time-limits.js';
import { qrDataUrl } from './world/qr.js';
import { People } from './world/people.js';
import { RandomSource } from './world/random.js';
import { Redactor } from './redactor.js';
import { checkRunOptions, RUN_KEYS } from './run-options.js';

/** Options of a simulator: any scenario key (decisions §9), plus how to run it. */
export interface SimulatorOptions extends Partial<ScenarioInput> {
  /** A shipped scenario's name or a scenario file, loaded first; the scenario keys given here override its own. */
  scenario?: string;
  /** The default API user's id (when the scenario lists none, or in addition to those it lists). Default 123456789. */
  apiUser?: string;
  /** The default API user's secret. Default: a fresh random one (see `simulator.apiUser.secret`). */
  secret?: string;
  /** Makes challenge ids, generated secrets and every other random value the same from run to run. */
  seed?: number;
  /** The base URL that `moreInfo` and `challengeQRcodeUrl` use; default: the URL the simulator listens on. */
  publicUrl?: string;
  /** Request bodies larger than this many bytes get -413. Default 65536. */
  bodyLimit?: number;
  /** Size of the request journal ring. Default 1000. */
  journalSize?: number;
  /** Challenges kept before the oldest is forgotten. Default 10000. */
  maxChallenges?: number;
  /** Replay entries kept per API user before the oldest are forgotten early. Default 2,000,000. */
  replayCap?: number;
  /** A token the control API (`/__sim/`) then requires. Default: none on loopback; a random one (printed) elsewhere. */
  controlToken?: string;
  /**
   * Directories the control API may read scenario files from (`{ "file": ... }`, or `{ "name": ... }` for
   * `<name>.yaml` there). Default: the folder of `scenario` when that is a file; else none.
   */
  scenarioDirs?: string[];
  /**
   * Host names the control API, the dashboard and its event stream answer besides localhost, `*.localhost`, IP
   * addresses and the address listened on (DNS rebinding protection). A name starting with a dot allows its subdomains.
   */
  allowedHosts?: string[];
}


export const DEFAULT_BODY_LIMIT = 64 * 1024;
export const DEFAULT_API_USER = '123456789';
export const SCENARIO_HEADER = 'x-sim-scenario';

/** The result of handling one API request, for the HTTP layer to write. */
export interface ApiResult {
  status: number;
  body: string;
  contentType: string;
  /** Close the connection after answering (the body was not read whole). */
  close?: boolean;
  fault?: Fault;
  hangMs?: number;
}

/** A scenario as one simulator runs it: compiled, with its rules' match counts. */
interface Running {
  sc: CompiledScenario;
  counts: number[];
  /** Bound to an API user or picked by header: the simulator's API users stay known. */
  overlay: boolean;
  /** Picked by a request header: the scenario the request would otherwise run under, whose trust it never exceeds. */
  under?: Running;
}

function running(sc: CompiledScenario, overlay: boolean, under?: Running): Running {
  return { sc, counts: new Array(sc.rules.length).fill(0), overlay, under };
}

/** Scenarios given at run time (loaded or bound) are kept by name for x-sim-scenario, at most this many besides the live ones. */
export const MAX_GIVEN_SCENARIOS = 64;
/** Scenarios bound to API users at once. */
export const MAX_BINDINGS = 256;

const AUTH_STRICTNESS = { off: 0, log: 1, verify: 2 } as const;

/**
 * One simulated service: its world (API users, accounts, challenges, replay memory, clock), its scenarios,
 * its journal. Everything lives on the instance, so many simulators run side by side in one process.
 */
export class Simulator implements PipelineHost {
  readonly clock = new VirtualClock();
  readonly random: RandomSource;
  readonly journal: Journal;
  readonly bodyLimit: number;
  /** The identifier token in force (the active scenario's). */
  token: string;
  /** The default API user, and whether its secret was given (a given secret is never printed). */
  readonly defaultApiUser: ApiUser;
  readonly secretGiven: boolean;
  /** Set by the server once listening (or by the `publicUrl` option). */
  publicUrl?: string;
  /** When set, the control API (`/__sim/`) needs it; set when listening beyond loopback. */
  controlToken?: string;
  /** Where the control API may read scenario files from. */
  readonly scenarioDirectories: ScenarioDirectories;
  /** The host names the control API answers (see SimulatorOptions.allowedHosts); the server adds the address it listens on. */
  readonly allowedHosts: AllowedHosts;
  /** Connections a `hang` fault holds open; closing the server lets them go at once. */
  readonly hanging = new Set<Socket>();
  /** Realistic sample people for the dashboard and the phone page (faker, loaded on first use). */
  readonly people: People;

  private active: Running;
  private readonly bindings = new Map<string, Running>();
  private readonly challenges: ChallengeStore;
  private readonly replay = new Map<string, ReplayMemory>();
  private readonly coverage = new Map<number, number>();
  private readonly replayCap: number;
  private seq = 0;

  constructor(options: SimulatorOptions | string = {}) {
    const opts: SimulatorOptions = typeof options === 'string' ? { scenario: options } : options;
    if (typeof opts !== 'object' || opts === null) throw new ScenarioError('options', [{ path: [], message: 'must be an object of options, or a scenario name or file' }]);
    checkRunOptions(opts as Record<string, unknown>);
    this.random = new RandomSource(opts.seed);
    // Seeded: the same people from run to run. Unseeded, drawn from the crypto source (the seeded sequence is untouched).
    this.people = new People(this.random.seed ?? this.random.uint32());
    this.bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.journal = new Journal(opts.journalSize ?? DEFAULT_JOURNAL_SIZE, (e) => this.sealEntry(e));
    this.challenges = new ChallengeStore(opts.maxChallenges ?? DEFAULT_MAX_CHALLENGES);
    this.replayCap = opts.replayCap ?? DEFAULT_REPLAY_CAP;
    this.publicUrl = opts.publicUrl?.replace(/\/+$/, '');
    this.controlToken = opts.controlToken;
    this.scenarioDirectories = new ScenarioDirectories(opts.scenarioDirs ?? (opts.scenario !== undefined && isRegularFile(opts.scenario) ? [dirname(opts.scenario)] : []));
    this.allowedHosts = new AllowedHosts(opts.allowedHosts ?? []);
    if (this.publicUrl) this.allowedHosts.add(hostOfUrl(this.publicUrl));
    const sc = scenarioFromOptions(opts);
    for (const k of ['token', 'strict', 'responseStyle'] as const) if (opts[k] !== undefined) (this.pinned as Record<string, unknown>)[k] = opts[k];
    this.token = sc.token;
    this.secretGiven = opts.secret !== undefined;
    const id = opts.apiUser ?? DEFAULT_API_USER;
    this.defaultApiUser = makeApiUser(id, opts.secret ?? this.random.token(32));
    this.defaultGiven = opts.apiUser !== undefined || opts.secret !== undefined;
    this.active = running(sc, false);
    this.clock.reset(sc.offset, sc.frozenAt);
    this.refreshSecrets();
  }

  private readonly defaultGiven: boolean;
  /** Scenarios given at run time (loaded or bound), by name, for x-sim-scenario. */
  private readonly given = new Map<string, CompiledScenario>();
  /** Scenario keys given as options, kept when another scenario is loaded. */
  private readonly pinned: Partial<ScenarioInput> = {};

  /** The scenario in force for requests that are not bound or picked otherwise. */
  get scenario(): CompiledScenario {
    return this.active.sc;
  }

  /** The API users of the active scenario (the default one when it lists none). */
  apiUsers(): ApiUser[] {
    const listed = this.active.sc.apiUsers;
    if (!listed) return [this.defaultApiUser];
    const users = [...listed.values()];
    if (this.defaultGiven && !listed.has(this.defaultApiUser.id)) users.unshift(this.defaultApiUser);
    return users;
  }

  /** Simulator time now, under the active scenario (epoch ms). */
  now(): number {
    return this.clock.now();
  }

  // ---- PipelineHost

  apiUserFor(sc: CompiledScenario, id: string): ApiUser | undefined {
    const own = sc.apiUsers?.get(id);
    if (own) return own;
    if (sc !== this.active.sc || !sc.apiUsers) {
      const listed = this.active.sc.apiUsers?.get(id);
      if (listed) return listed;
    }
    return (!this.active.sc.apiUsers || this.defaultGiven) && id === this.defaultApiUser.id ? this.defaultApiUser : undefined;
  }

  replayFor(apiUser: string): ReplayMemory {
    let m = this.replay.get(apiUser);
    if (!m) {
      m = new ReplayMemory(Math.max(1000, Math.ceil(this.active.sc.maxDrift / 8)), this.replayCap, this.random.uint32());
      this.replay.set(apiUser, m);
    }
    return m;
  }

  findChallenge(id: string, now: number): Challenge | undefined {
    return this.challenges.get(id, now);
  }

  createChallenge(ctx: RequestContext, body: ChallengeBody): Challenge {
    const c: Challenge = {
      id: this.random.uuid(),
      apiUser: ctx.apiUser!.id,
      user: body.user,
      challengeType: body.challengeType,
      expiry: body.expiry,
      createdAt: ctx.now,
      expiresAt: ctx.now + body.expiryMs,
      autoVerifyAt: body.autoVerify ? ctx.now + ctx.sc.autoVerifyDelay : undefined,
      profile: body.profile,
      ipAddress: body.ipAddress,
      qr: body.qr,
      state: 'waiting',
    };
    this.challenges.add(c);
    return c;
  }

  challengeUrl(id: string, ctx: RequestContext): string {
    return this.challengeUrlFor(id, ctx.req.headers.host);
  }

  /** The page a challenge's QR code opens: the user's phone. */
  challengeUrlFor(id: string, hostHeader?: string | string[]): string {
    return `${this.baseUrl(hostHeader)}/phone/${encodeURIComponent(id)}`;
  }

  qrDataUrl(url: string): string {
    return qrDataUrl(url);
  }

  /** The simulator's own base URL: the public URL, else the one this request reached it by. */
  baseUrl(hostHeader?: string | string[]): string {
    if (this.publicUrl) return this.publicUrl;
    // Clients send the same Host header request after request: the last answer is kept.
    if (hostHeader === this.lastHost.header && typeof hostHeader === 'string') return this.lastHost.url;
    const host = typeof hostHeader === 'string' && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(hostHeader) ? hostHeader : 'localhost';
    // The Host header is the caller's: a secret sent as one would show in every moreInfo and QR code URL.
    const url = this.redact(`http://${host}`);
    if (typeof hostHeader === 'string') this.lastHost = { header: hostHeader, url };
    return url;
  }

  private lastHost: { header?: string; url: string } = { url: '' };

  // ---- Requests

  /**
   * Answers one request to the simulated API: picks the scenario it runs under and the rule that decides,
   * runs the checks, and writes the journal. Synchronous unless a rule delays it.
   */
  handle(req: ApiRequest, startedAt = performance.now()): ApiResult | Promise<ApiResult> {
    const run = this.runningFor(req);
    if ('error' in run) return this.finishUnrouted(req, run.error, startedAt);
    const ctx = new RequestContext(this, run.sc, req, this.clock.at(run.sc.offset));
    if (run.under) ctx.guard = { now: this.clock.at(run.under.sc.offset), maxDrift: run.under.sc.maxDrift };
    const rule = run.sc.rules.length ? pickRule(run, ctx) : undefined;
    if (rule) {
      ctx.rule = rule;
      if (rule.respond) ctx.forced = rule.respond;
      if (rule.delay) {
        const { min, max } = rule.delay;
        const wait = min + (max > min ? (this.random.uint32() / 2 ** 32) * (max - min) : 0);
        return sleep(wait).then(() => this.answer(ctx, startedAt));
      }
    }
    return this.answer(ctx, startedAt);
  }

  /** Which scenario a request runs under: picked by header, bound to its API user, or the active one. */
  private runningFor(req: ApiRequest): Running | { error: string } {
    let base = this.active;
    if (this.bindings.size) {
      const id = req.headers[`x-${this.token}-apiuser`];
      const bound = typeof id === 'string' ? this.bindings.get(id) : undefined;
      if (bound) base = bound;
    }
    const pick = req.headers[SCENARIO_HEADER];
    if (typeof pick !== 'string' || pick === '') return base;
    try {
      return this.pickedScenario(pick, base) ?? { error: `${SCENARIO_HEADER}: no scenario named \`${pick}\`` };
    } catch (e) {
      if (e instanceof ScenarioError) return { error: `${SCENARIO_HEADER}: scenario \`${pick}\` cannot be picked: ${e.message}` };
      throw e;
    }
  }

  /** Scenarios picked by header, per scenario they are picked under (a Running replaced on reset takes its picks along). */
  private readonly picks = new WeakMap<Running, Map<string, Running>>();

  private pickedScenario(name: string, base: Running): Running | undefined {
    let picks = this.picks.get(base);
    const known = picks?.get(name);
    if (known) return known;
    // A scenario this simulator was given (loaded or bound) by that name, else a shipped one.
    const given = this.given.get(name);
    const file = given ? undefined : findShippedScenario(name);
    if (!given && !file) return undefined;
    const r = running(this.pickOverlay(given ?? loadScenarioFile(file!), base.sc), true, base);
    if (!picks) this.picks.set(base, (picks = new Map()));
    picks.set(name, r);
    return r;
  }

  /**
   * A scenario picked by a request header changes the rules and how the world behaves (accounts, strictness, its
   * clock offset), but never grants: API users and their secrets, the authentication mode and the replay checks
   * stay those of the scenario the request would otherwise run under, and its drift window is checked too.
   */
  private pickOverlay(sc: CompiledScenario, under: CompiledScenario): CompiledScenario {
    const own = this.overlay(sc);
    return {
      ...own,
      apiUsers: under.apiUsers,
      auth: AUTH_STRICTNESS[own.auth] > AUTH_STRICTNESS[under.auth] ? own.auth : under.auth,
      replayNonces: own.replayNonces || under.replayNonces,
      replayTimestamps: own.replayTimestamps || under.replayTimestamps,
    };
  }

  /** Compiles a scenario to run beside the active one: same token and clock, API users added to the simulator's. */
  private overlay(sc: CompiledScenario): CompiledScenario {
    if (sc.input.token !== undefined && sc.token !== this.token) {
      throw new ScenarioError(sc.name, [{ path: ['token'], message: `is ${sc.token}, but this simulator runs with token ${this.token}` }]);
    }
    if (sc.frozenAt !== undefined) {
      throw new ScenarioError(sc.name, [{ path: ['clock', 'frozenAt'], message: "sets the simulator's clock, so only the active scenario may use it" }]);
    }
    return sc.token === this.token ? sc : compileOrThrow({ ...sc.input, token: this.token }, sc.name);
  }

  private answer(ctx: RequestContext, startedAt: number): ApiResult {
    const rule = ctx.rule;
    const fault = rule?.fault;
    if (fault === 'reset' || fault === 'hang' || fault?.startsWith('proxy-')) {
      this.record(ctx, undefined, undefined, startedAt);
      if (fault === 'reset' || fault === 'hang') return { status: 0, body: '', contentType: '', fault, hangMs: rule!.hangMs };
      const status = Number(fault.slice(6));
      return { status, body: proxyPage(status), contentType: 'text/html; charset=utf-8', fault };
    }
    let result;
    try {
      result = runPipeline(ctx);
    } catch (e) {
      // A bug of the simulator's: answered as an internal error, shown in the log, never as a stack trace.
      result = { code: -5000, message: mustCode(-5000).title };
      ctx.internalError = errorText(e);
    }
    // A message may quote what the caller sent; a client that sends a secret where it does not belong never gets it echoed.
    if (result.code < 0) result = { code: result.code, message: this.echo(result.message, MAX_MESSAGE_CHARS) };
    // The caller's own id is echoed, as the service does, with any secret in it hidden.
    const id = ctx.callerId === undefined ? `sim-${this.seq + 1}` : this.redact(ctx.callerId);
    const body = envelopeJson(ctx.sc.responseStyle, id, ctx.now, result.code, result.message, this.baseUrl(ctx.req.headers.host));
    const status = mustCode(result.code).http;
    this.record(ctx, result, body, startedAt);
    if (fault === 'garbage') return { status, body: garbage(this.random), contentType: 'application/json; charset=utf-8', fault };
    return { status, body, contentType: 'application/json; charset=utf-8', fault, close: result.code === -413 };
  }

  /**
   * An exception outside the pipeline (a bug): answered -5000 as an envelope and written to the journal with its
   * message. The answer is the last resort: building it cannot throw, and a journal entry that fails is given up.
   */
  internalError(method: string, url: string, headers: ApiRequest['headers'], err: unknown): ApiResult {
    const style = this.active.sc.responseStyle;
    const id = `sim-${this.seq + 1}`;
    let base = '';
    try {
      base = this.baseUrl(headers.host);
    } catch {
      // moreInfo then holds a relative link.
    }
    const body = internalErrorJson(style, id, this.now(), base);
    try {
      const ctx = new RequestContext(this, this.active.sc, { method, url, headers, body: '' }, this.now());
      ctx.internalError = errorText(err);
      this.record(ctx, { code: -5000, message: 'Internal error' }, body, performance.now());
    } catch {
      // The answer matters more than its journal entry.
    }
    return { status: 500, body, contentType: 'application/json; charset=utf-8' };
  }

  /** A request whose x-sim-scenario names no scenario: a mistake of the test set-up, answered -5000 with the reason (and not counted as coverage). */
  private finishUnrouted(req: ApiRequest, error: string, startedAt: number): ApiResult {
    const ctx = new RequestContext(this, this.active.sc, req, this.now());
    ctx.forced = { code: -5000, message: this.echo(`Internal error: ${error}`, MAX_MESSAGE_CHARS) };
    const result = { code: -5000, message: ctx.forced.message! };
    const body = envelopeJson(this.active.sc.responseStyle, ctx.callerId ?? `sim-${this.seq + 1}`, ctx.now, -5000, result.message, this.baseUrl(req.headers.host));
    this.record(ctx, result, body, startedAt, false);
    return { status: 500, body, contentType: 'application/json; charset=utf-8' };
  }

  private record(ctx: RequestContext, result: { code: number; message: string } | undefined, body: string | undefined, startedAt: number, counted = true): void {
    const seq = ++this.seq;
    if (result && counted) this.coverage.set(result.code, (this.coverage.get(result.code) ?? 0) + 1);
    // Recorded as is; the journal seals an entry (sealEntry: every secret hidden) before anyone sees it.
    const entry: JournalEntry = {
      seq,
      at: isoTime(ctx.now),
      method: ctx.req.method,
      path: ctx.req.url,
      endpoint: ctx.endpointByPath,
      operation: ctx.env?.op,
      type: ctx.env?.type,
      apiUser: ctx.apiUser?.id ?? ctx.apiUserId ?? this.echoHeader(ctx.header(`x-${ctx.sc.token}-apiuser`)),
      user: (ctx.body as { user?: string } | undefined)?.user,
      http: result ? mustCode(result.code).http : undefined,
      code: result?.code,
      message: result?.message,
      latencyMs: Math.round((performance.now() - startedAt) * 100) / 100,
      scenario: ctx.sc.name,
      rule: ctx.rule?.label,
      fault: ctx.rule?.fault,
      challengeId: ctx.challenge?.id,
      expectedStringToSign: result?.code === -4037 || ctx.wouldFail?.some((w) => w.code === -4037) ? (ctx.expectedStringToSign ?? '') : undefined,
      wouldFail: ctx.wouldFail,
      internalError: ctx.internalError,
      request: { headers: ctx.req.headers, body: this.journalBody(ctx.req.body) },
      response: body === undefined ? undefined : { body: this.journalBody(body) },
    };
    this.journal.add(entry);
  }

  // ---- Coverage

  /** How often each code of the service was answered, and which were never met. */
  coverageReport(): { counts: Record<string, number>; met: number[]; missing: number[] } {
    const counts: Record<string, number> = {};
    for (const [code, n] of this.coverage) counts[code] = n;
    const met = SERVICE_CODES.filter((c) => this.coverage.has(c));
    const missing = SERVICE_CODES.filter((c) => !this.coverage.has(c));
    return { counts, met, missing };
  }

  /** Forgets challenges, replay memory, journal, coverage and rule counts; the scenario, bindings and the clock stay. */
  resetWorld(): void {
    this.challenges.clear();
    this.replay.clear();
    this.journal.clear();
    this.coverage.clear();
    this.seq = 0;
    this.active = running(this.active.sc, false);
    for (const [k, r] of this.bindings) this.bindings.set(k, running(r.sc, true));
  }

  /** The challenges issued, newest first, settled at the current simulator time. */
  listChallenges(): Challenge[] {
    return this.challenges.list(this.now());
  }

  /** For tests of bounds: replay entries remembered per API user. */
  replayStats(): Record<string, { entries: number; bytes: number }> {
    const out: Record<string, { entries: number; bytes: number }> = {};
    for (const [id, m] of this.replay) {
      m.hasTime(-1, this.now()); // lets expired generations go first
      out[id] = { entries: m.size, bytes: m.bytes };
    }
    return out;
  }

  /** For tests of bounds: how much the simulator holds of what grows with use. */
  sizes(): { givenScenarios: number; bindings: number; secrets: number; journal: number; challenges: number } {
    return { givenScenarios: this.given.size, bindings: this.bindings.size, secrets: this.redactor.size, journal: this.journal.length, challenges: this.challenges.size };
  }

  // ---- Control: the same operations as the /__sim/ control API.

  /** Makes a scenario the active one and resets the world (challenges, replay memory, journal, coverage, clock). */
  loadScenario(source: ScenarioSource): CompiledScenario {
    const sc = this.withPinned(resolveScenario(source));
    this.active = running(sc, false);
    this.token = sc.token;
    this.reset();
    this.remember(sc);
    return sc;
  }

  /** Runs a scenario for one API user's requests only, beside the active one; other API users never see its rules. */
  bindScenario(apiUser: string, source: ScenarioSource): CompiledScenario {
    if (!/^\d{9}$/.test(apiUser)) throw new ControlError(400, 'an API user id is 9 digits');
    if (!this.bindings.has(apiUser) && this.bindings.size >= MAX_BINDINGS) {
      throw new ControlError(400, `at most ${MAX_BINDINGS} scenarios can be bound at once: end one first (DELETE /__sim/bindings/<apiUser>)`);
    }
    const sc = this.overlay(resolveScenario(source));
    this.bindings.set(apiUser, running(sc, true));
    this.remember(sc);
    return sc;
  }

  /** Ends a binding; says whether there was one. */
  unbindScenario(apiUser: string): boolean {
    const removed = this.bindings.delete(apiUser);
    if (removed) this.refreshSecrets();
    return removed;
  }

  /**
   * Keeps a scenario given at run time by its name, for x-sim-scenario. Past MAX_GIVEN_SCENARIOS, the oldest that is
   * neither active nor bound is forgotten.
   */
  private remember(sc: CompiledScenario): void {
    this.given.delete(sc.name);
    this.given.set(sc.name, sc);
    if (this.given.size > MAX_GIVEN_SCENARIOS) {
      const live = this.liveScenarios();
      for (const [name, given] of this.given) {
        if (this.given.size <= MAX_GIVEN_SCENARIOS) break;
        if (!live.has(given)) this.given.delete(name);
      }
    }
    this.refreshSecrets();
  }

  /** The scenarios requests run under now: the active one and the bound ones. */
  private liveScenarios(): Set<CompiledScenario> {
    return new Set([this.active.sc, ...[...this.bindings.values()].map((r) => r.sc)]);
  }

  /** The active scenario, the bindings, and the shipped scenarios. */
  scenarios(): { active: string; bindings: Record<string, string>; shipped: { name: string; description?: string }[] } {
    const bindings: Record<string, string> = {};
    for (const [k, r] of this.bindings) bindings[k] = r.sc.name;
    const shipped = shippedScenarioNames().map((name) => {
      const file = findShippedScenario(name)!;
      try {
        return { name, description: loadScenarioFile(file).description };
      } catch {
        return { name };
      }
    });
    return { active: this.active.sc.name, bindings, shipped };
  }

  /**
   * Resets the world and puts the clock back where the active scenario starts it; scenarios given earlier that are
   * neither active nor bound are forgotten (x-sim-scenario then finds only those and the shipped ones).
   */
  reset(): void {
    this.resetWorld();
    this.clock.reset(this.active.sc.offset, this.active.sc.frozenAt);
    const live = this.liveScenarios();
    for (const [name, sc] of this.given) if (!live.has(sc)) this.given.delete(name);
    this.refreshSecrets();
  }

  /** The user approves a waiting challenge, having been shown `authCode` (default: six random digits). */
  approve(id: string, authCode?: string): Challenge {
    if (authCode !== undefined && (typeof authCode !== 'string' || authCode.length === 0 || authCode.length > 64)) throw new ControlError(400, 'authCode must be a string of 1 to 64 characters');
    const c = this.waiting(id);
    c.state = 'approved';
    c.authCode = authCode ?? this.random.digits(6);
    c.endedAt = this.now();
    c.endedBy = 'user';
    return c;
  }

  /** The user denies a waiting challenge. */
  deny(id: string): Challenge {
    const c = this.waiting(id);
    c.state = 'denied';
    c.endedAt = this.now();
    c.endedBy = 'user';
    return c;
  }

  /** A waiting challenge expires now, as if its challengeExpiry had passed. */
  expire(id: string): Challenge {
    const c = this.waiting(id);
    c.state = 'expired';
    c.expiresAt = c.endedAt = this.now();
    c.endedBy = 'clock';
    return c;
  }

  private waiting(id: string): Challenge {
    if (typeof id !== 'string') throw new ControlError(400, 'a challenge id is a string');
    const c = this.challenges.get(id, this.now());
    if (!c) throw new ControlError(404, `no challenge ${this.echo(id, 64)}`);
    if (c.state !== 'waiting') throw new ControlError(409, `the challenge is already ${c.state}`);
    return c;
  }

  /** Moves the clock by a duration (ms, or 90s, 10m, -1h), at most 50 years at once and never outside 1970 to 9999. */
  advance(by: number | string): number {
    const read = boundedDuration(by, LIMITS.advance);
    if ('problem' in read) throw new ControlError(400, this.redact(`by: ${read.problem}`));
    onTheClock('by', () => this.clock.advance(read.ms));
    return this.now();
  }

  /** Stops the clock, at an instant (ISO 8601 or epoch ms, simulator time, 1970 to 9999) or where it stands. */
  freeze(at?: number | string): number {
    if (at === undefined) this.clock.freeze();
    else {
      const read = boundedInstant(at);
      if ('problem' in read) throw new ControlError(400, this.redact(`at: ${read.problem}`));
      onTheClock('at', () => this.clock.freeze(read.ms));
    }
    return this.now();
  }

  /** Lets the clock run again from where it stands. */
  unfreeze(): number {
    this.clock.unfreeze();
    return this.now();
  }

  /** Journal entries, newest first, optionally only some codes and one API user. */
  journalEntries(filter: { code?: number | number[]; apiUser?: string; limit?: number } = {}): JournalEntry[] {
    if (typeof filter !== 'object' || filter === null) throw new ControlError(400, 'the journal filter is an object: { code?, apiUser?, limit? }');
    const codes = filter.code === undefined ? undefined : new Set(Array.isArray(filter.code) ? filter.code : [filter.code]);
    const out = this.journal.entries().filter((e) => (!codes || (e.code !== undefined && codes.has(e.code))) && (!filter.apiUser || e.apiUser === filter.apiUser));
    return filter.limit !== undefined ? out.slice(0, filter.limit) : out;
  }

  clearJournal(): void {
    this.journal.clear();
  }

  /** Text with every secret this simulator holds replaced, plain or escaped, for anything shown outside (journal, log, dashboard, messages). */
  redact(text: string): string {
    return this.redactor.hide(text);
  }

  /** What a caller sent, fit to be shown back: its secrets hidden first, then cut to `max` characters. */
  echo(value: string, max: number): string {
    return clipText(this.redact(value), max);
  }

  /** An API user header the request did not authenticate with, as the journal keeps it: 32 characters at most. */
  private echoHeader(value: string | undefined): string | undefined {
    return value === undefined || value.length <= 32 ? value : this.echo(value, 32);
  }

  /**
   * A body as the journal keeps it: 8 KiB at most. A longer one has its secrets hidden now, before it is cut (the
   * journal hides secrets when an entry is first read; cut first, a secret across the cut would show in part).
   */
  private journalBody(body: string): string {
    return body.length <= JOURNAL_BODY_CHARS ? body : clip(this.redact(body.slice(0, JOURNAL_BODY_CHARS * 2)), JOURNAL_BODY_CHARS, body.length);
  }

  /** Hides the secrets the simulator holds now: the default API user's and those of the active, bound and given scenarios. */
  private readonly redactor = new Redactor();

  /**
   * Sets the redactor to the secrets held now. Journal entries not yet sealed are sealed first, so an entry recorded
   * under a scenario that is gone is still sealed against that scenario's secrets; the set itself never outgrows
   * what the simulator holds, so neither does the cost of hiding.
   */
  private refreshSecrets(): void {
    this.journal.sealAll();
    const secrets = [this.defaultApiUser.secret];
    const add = (sc: CompiledScenario) => {
      for (const u of sc.apiUsers?.values() ?? []) secrets.push(u.secret);
    };
    add(this.active.sc);
    for (const r of this.bindings.values()) add(r.sc);
    for (const sc of this.given.values()) add(sc);
    this.redactor.set(secrets);
    this.lastHost = { url: '' };
  }

  /** Hides every secret in a journal entry, in place: run by the journal once, before the entry is first shown. */
  private sealEntry(e: JournalEntry): void {
    const hide = (text: string) => this.redactor.hide(text);
    e.path = hide(e.path);
    if (e.apiUser !== undefined) e.apiUser = hide(e.apiUser);
    if (typeof e.user === 'string') e.user = hide(e.user);
    if (e.message !== undefined) e.message = hide(e.message);
    if (e.expectedStringToSign !== undefined) e.expectedStringToSign = hide(e.expectedStringToSign);
    if (e.internalError !== undefined) e.internalError = hide(e.internalError);
    e.request = { headers: hideInHeaders(e.request.headers, hide), body: hide(e.request.body) };
    if (e.response) e.response = { body: hide(e.response.body) };
  }

  /** Keeps the token, strictness and response style given as options (flags) across scenario loads. */
  private withPinned(sc: CompiledScenario): CompiledScenario {
    const keys = Object.keys(this.pinned);
    if (keys.length === 0) return sc;
    return compileOrThrow({ ...sc.input, ...this.pinned }, sc.name);
  }

  /** Whether a code exists (for the status pages and validation). */
  static knows(code: number): boolean {
    return codeInfo(code) !== undefined;
  }
}

/** The first rule that matches and whose count says it applies now; counts every rule it looks at that matches. */
function pickRule(run: Running, ctx: RequestContext): CompiledRule | undefined {
  const endpoint = ctx.endpointByPath;
  for (const rule of run.sc.rules) {
    if (!ruleMatches(rule, ctx, endpoint)) continue;
    const n = ++run.counts[rule.index];
    if (n <= rule.after) continue;
    const k = n - rule.after;
    if (rule.times !== undefined && k > rule.times) continue;
    if (rule.every !== undefined && k % rule.every !== 0) continue;
    return rule;
  }
  return undefined;
}

function ruleMatches(rule: CompiledRule, ctx: RequestContext, endpoint: string | undefined): boolean {
  if (rule.endpoint !== undefined && rule.endpoint !== endpoint) return false;
  if (rule.headers) {
    for (const [name, match] of rule.headers) {
      const v = ctx.header(name);
      if (v === undefined || !match(v)) return false;
    }
  }
  if (rule.apiUser !== undefined) {
    const id = ctx.header(`x-${ctx.sc.token}-apiuser`) ?? ctx.peek.apiUser;
    if (id !== rule.apiUser) return false;
  }
  if (rule.type !== undefined && ctx.peek.type !== rule.type) return false;
  if (rule.challengeType !== undefined && ctx.peek.challengeType !== rule.challengeType) return false;
  if (rule.user) {
    const user = ctx.peek.user;
    if (user === undefined || !rule.user(user)) return false;
  }
  if (rule.ops) {
    const op = ctx.operation;
    if (op === undefined || !rule.ops.has(op)) return false;
  }
  return true;
}

/** A scenario as the control operations take it: a shipped name, a file, an object, or YAML/JSON text. */
export type ScenarioSource = string | Partial<ScenarioInput> | { text: string; source?: string };

/** A control operation that cannot be done: an HTTP status for the control API, and why. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

function resolveScenario(source: ScenarioSource): CompiledScenario {
  if (source === null || (typeof source !== 'string' && typeof source !== 'object')) {
    throw new ScenarioError('scenario', [{ path: [], message: 'must be a shipped scenario name, a file, a scenario object or { text }' }]);
  }
  if (typeof source === 'string') {
    const file = existsSync(source) ? source : findShippedScenario(source);
    if (!file) throw new ScenarioError(source, [{ path: [], message: 'is neither a scenario file nor the name of a shipped scenario' }]);
    return loadScenarioFile(file);
  }
  if (typeof (source as { text?: unknown }).text === 'string' && Object.keys(source).every((k) => k === 'text' || k === 'source')) {
    const { text, source: label } = source as { text: string; source?: string };
    return loadScenarioText(text, label ?? 'scenario');
  }
  const name = (source as { name?: unknown }).name;
  return compileOrThrow(source, typeof name === 'string' ? name : 'scenario');
}

/** The scenario a simulator starts with: a named or file scenario, with the option object's scenario keys on top. */
function scenarioFromOptions(opts: SimulatorOptions): CompiledScenario {
  const inline: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) if (!RUN_KEYS.includes(k) && v !== undefined) inline[k] = v;
  if (opts.scenario !== undefined) {
    const file = existsSync(opts.scenario) ? opts.scenario : findShippedScenario(opts.scenario);
    if (!file) {
      throw new ScenarioError(opts.scenario, [{ path: [], message: 'is neither a scenario file nor the name of a shipped scenario (see `mfa-sim --list-scenarios`)' }]);
    }
    const base = loadScenarioFile(file);
    if (Object.keys(inline).length === 0) return base;
    return compileOrThrow({ ...base.input, ...inline }, file);
  }
  return compileOrThrow({ name: 'default', ...inline }, 'options');
}

function hostOfUrl(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The message of something thrown, whatever was thrown (an object whose toString throws included). */
export function errorText(e: unknown): string {
  try {
    return e instanceof Error ? String(e.message) : String(e);
  } catch {
    return 'an exception that cannot be shown';
  }
}

/** Runs a move of the clock; a move it refuses is a 400 of the control API, naming the key that asked for it. */
function onTheClock(key: string, move: () => void): void {
  try {
    move();
  } catch (e) {
    if (e instanceof ClockRangeError) throw new ControlError(400, `${key}: ${e.message}`);
    throw e;
  }
}

/** Headers with every secret hidden; the same object when none holds one (the common case costs no copy). */
function hideInHeaders(headers: ApiRequest['headers'], hide: (text: string) => string): ApiRequest['headers'] {
  let out: ApiRequest['headers'] | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const hidden = Array.isArray(value) ? value.map(hide) : hide(value);
    if (Array.isArray(value) ? (hidden as string[]).some((h, i) => h !== value[i]) : hidden !== value) (out ??= Object.assign(Object.create(null) as ApiRequest['headers'], headers))[name] = hidden;
  }
  return out ?? headers;
}

function proxyPage(status: number): string {
  const title = status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Temporarily Unavailable' : 'Gateway Time-out';
  return `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

function garbage(random: RandomSource): string {
  return `\u0000<<garbled ${random.token(24)}>>\u00ff{"id":`;
}
