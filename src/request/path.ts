import { mustCode } from '../contract/codes.js';
import { answer, clipText, envelopeJson, internalErrorJson, MAX_MESSAGE_CHARS } from '../contract/response.js';
import type { Answer } from '../contract/response.js';
import { withHint, type Doctor } from '../doctor/doctor.js';
import { errorText } from '../output/error-text.js';
import type { AnsweredEvents } from '../run/answered-events.js';
import type { JournalEntry, Caller } from '../run/answered.js';
import type { Redactor } from '../output/redactor.js';
import type { ScenarioRegistry } from '../scenario/registry.js';
import { pickRule } from '../scenario/rules.js';
import { ANSWERING_FAULTS, type Fault } from '../scenario/schema.js';
import type { World } from '../world/world.js';
import { decide, type Decision } from './checks.js';
import { recordOf, RequestContext, type ApiRequest, type Links } from './context.js';

/** The result of handling one API request, for the HTTP layer to write. */
export interface ApiResult {
  status: number;
  body: string;
  contentType: string;
  /** Close the connection after answering (the body was not read whole). */
  close?: boolean;
  fault?: Fault;
  hangMs?: number;
  /** The ms a rule delays the answer by (answerAtOnce's, when asked): the caller waits them. */
  delayMs?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The request path of the simulated API, read top to bottom in `handle` and `answer`: the scenario the request runs
 * under, the rule that decides, the checks and the operation (checks.ts), the one step that commits, the envelope, and
 * one "answered" event that every observer of traffic receives.
 */
export class RequestPath {
  /** Requests answered in this run: the journal's sequence, and the `sim-<n>` id for callers who sent none. */
  private seq = 0;
  /** The timers of requests a rule delays (up to 10 minutes): dropped when the simulator closes. */
  private readonly delayed = new Set<ReturnType<typeof setTimeout>>();
  private readonly redact = (text: string) => this.redactor.hide(text);

  constructor(
    private readonly world: World,
    private readonly scenarios: ScenarioRegistry,
    private readonly links: Links,
    private readonly redactor: Redactor,
    private readonly answered: AnsweredEvents,
    private readonly doctor: Doctor,
  ) {}

  /** Answers one request. Synchronous unless a rule delays it. */
  handle(req: ApiRequest, startedAt = performance.now()): ApiResult | Promise<ApiResult> {
    const ctx = this.context(req, startedAt);
    if (!(ctx instanceof RequestContext)) return ctx;
    const ms = this.delayOf(ctx);
    if (!ms) return this.answer(ctx, startedAt);
    return new Promise((done) => {
      const timer = setTimeout(() => {
        this.delayed.delete(timer);
        done(this.answer(ctx, startedAt));
      }, ms);
      this.delayed.add(timer);
    });
  }

  /**
   * Answers one request at once, a rule's delay left out: what mfa-sim answers, not when (docs/proxy.md); or, with
   * `delayed`, the delay in `delayMs` for the caller to wait (a replica applying a change, simulator/replicas.ts).
   */
  answerAtOnce(req: ApiRequest, delayed = false): ApiResult {
    const startedAt = performance.now();
    const ctx = this.context(req, startedAt);
    if (!(ctx instanceof RequestContext)) return ctx;
    const delayMs = delayed ? this.delayOf(ctx) : 0;
    const result = this.answer(ctx, startedAt);
    return delayMs ? { ...result, delayMs } : result;
  }

  /** How long a rule delays the request (ms); a fixed delay draws nothing: a seeded world stays the same after it. */
  private delayOf(ctx: RequestContext): number {
    const delay = ctx.rule?.delay;
    if (!delay) return 0;
    return delay.max > delay.min
      ? delay.min + (this.world.random.uint32() / 2 ** 32) * (delay.max - delay.min)
      : delay.min;
  }

  /** A -5000 for a request the service never took (its store could not be reached): nothing of it is recorded. */
  notTaken(req: ApiRequest, reason: string): ApiResult {
    return this.internalError(req, performance.now(), { reason, counts: false, recorded: false });
  }

  /** The simulator closed and its connections are gone: the requests still delayed have no one to answer. */
  dropDelayed(): void {
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
  }

  /** Steps 1 to 3: the request's context under its scenario and rule, or the answer to a request no scenario runs. */
  private context(req: ApiRequest, startedAt: number): RequestContext | ApiResult {
    // 1. The scenario it runs under: picked by header, bound to its API user, or the active one.
    const run = this.scenarios.runningFor(req.headers);
    if ('error' in run) return this.internalError(req, startedAt, { reason: run.error, counts: false });
    // 2. What the checks will learn, at the time of the clock its API user follows, under that scenario. A picked
    // scenario's drift window is checked together with the one it is picked under.
    const named = req.headers[this.scenarios.active.names.apiUser];
    const clock = typeof named === 'string' ? this.world.clockOf(named) : this.world.clock;
    const ctx = new RequestContext(
      this.world,
      this.links,
      this.doctor,
      this.scenarios.active,
      run.sc,
      req,
      clock.at(run.sc.offset),
    );
    if (run.under) ctx.guard = { now: clock.at(run.under.sc.offset), maxDrift: run.under.sc.maxDrift };
    // 3. The rule that decides, if any: a forced code, a delay, a fault.
    const rule = run.sc.rules.length ? pickRule(run, ctx) : undefined;
    if (rule) {
      ctx.rule = rule;
      ctx.forced = rule.respond;
    }
    return ctx;
  }

  /** Steps 4 to 9: faults that never reach the service, the decision, the commit, the envelope, the event, the wire. */
  private answer(ctx: RequestContext, startedAt: number): ApiResult {
    // 4. A fault that keeps the request from the service: nothing is checked, created or remembered.
    const fault = ctx.rule?.fault;
    if (fault !== undefined && !ANSWERING_FAULTS.has(fault)) {
      this.report(ctx, this.seq + 1, undefined, undefined, startedAt);
      if (fault === 'reset' || fault === 'hang')
        return { status: 0, body: '', contentType: '', fault, hangMs: ctx.rule!.hangMs };
      const status = Number(fault.slice(6));
      return { status, body: proxyPage(status), contentType: 'text/html; charset=utf-8', fault };
    }
    // 5. What it is answered (checks.ts: the checks, the operation, a code a rule forces), reading the world only.
    const seq = this.seq + 1;
    ctx.seq = seq;
    const decision = this.decided(ctx);
    // 6. What it leaves behind, committed in one step, in the same turn as the checks that read it.
    if (decision.commits) commit(ctx, decision.answer);
    // 7. The envelope: a refusal says what the doctor found; the caller's id is echoed, else `sim-<seq>`.
    const result = this.redacted(this.hinted(ctx, decision.answer));
    const id = ctx.callerId === undefined ? `sim-${seq}` : this.redact(ctx.callerId);
    const base = this.links.base(ctx.req.headers.host);
    const body = envelopeJson(ctx.sc.responseStyle, id, ctx.now, result.code, result.message, base);
    // 8. One "answered" event: the journal, coverage and the rest observe it.
    this.report(ctx, seq, result, body, startedAt);
    // 9. On the wire, as it is or garbled by a fault.
    const status = mustCode(result.code).http;
    if (fault === 'garbage')
      return { status, body: garbage(this.world.random.chars(24)), contentType: JSON_TYPE, fault };
    return { status, body, contentType: JSON_TYPE, fault, close: result.code === -413 };
  }

  /** decide(), where an exception is a bug of the simulator's: answered -5000, shown in the journal and the log. */
  private decided(ctx: RequestContext): Decision {
    try {
      return decide(ctx);
    } catch (e) {
      ctx.internalError = errorText(e);
      ctx.staged.challenge = undefined;
      return { answer: answer(-5000), commits: true };
    }
  }

  /** A refusal's message with the doctor's hint (`hints`), or the code's bare meaning; a forced message is kept. */
  private hinted(ctx: RequestContext, result: Answer): Answer {
    if (result.code >= 0 || (ctx.forced?.message !== undefined && ctx.forced.code === result.code)) return result;
    if (!ctx.sc.hints) return { code: result.code, message: mustCode(result.code).title };
    return ctx.hint ? { code: result.code, message: withHint(result.message, ctx.hint) } : result;
  }

  /** An error's message may quote what the caller sent: its secrets are redacted, then it is cut to size. */
  private redacted(result: Answer): Answer {
    return result.code < 0
      ? { code: result.code, message: clipText(this.redact(result.message), MAX_MESSAGE_CHARS) }
      : result;
  }

  /** The last resort: the request path itself failed (a bug), answered -5000. */
  lastResort(req: ApiRequest, err: unknown): ApiResult {
    return this.internalError(req, performance.now(), { failure: err, counts: true });
  }

  /** A -5000 answered outside the checks (an unknown x-sim-scenario, or a bug), in an envelope that cannot fail. */
  private internalError(
    req: ApiRequest,
    startedAt: number,
    why: { reason?: string; failure?: unknown; counts: boolean; recorded?: boolean },
  ): ApiResult {
    const active = this.scenarios.active;
    const seq = this.seq + 1;
    const now = this.world.clock.now();
    const result = this.redacted(answer(-5000, why.reason));
    let base = '';
    let ctx: RequestContext | undefined;
    let id = why.recorded === false ? 'sim-unrecorded' : `sim-${seq}`;
    try {
      base = this.links.base(req.headers.host);
    } catch {
      // moreInfo then holds a relative link.
    }
    try {
      ctx = new RequestContext(this.world, this.links, this.doctor, active, active, req, now);
      // A caller's id is echoed for a mistake of the set-up; a failing request path is not read further.
      if (why.failure === undefined && ctx.callerId !== undefined) id = this.redact(ctx.callerId);
    } catch {
      // The id the simulator gives, then.
    }
    const body = internalErrorJson(active.responseStyle, id, now, base, result.message);
    try {
      if (why.failure !== undefined) ctx!.internalError = errorText(why.failure);
      if (why.recorded !== false) this.report(ctx!, seq, result, body, startedAt, why.counts);
    } catch {
      // The answer matters more than its journal entry.
    }
    return { status: 500, body, contentType: JSON_TYPE };
  }

  /** A request the upstream answered (proxy mode): numbered among the path's own and told to every observer. */
  answeredElsewhere(record: (seq: number) => JournalEntry, caller: (r: JournalEntry) => Caller): number {
    const seq = ++this.seq;
    this.answered.emit(seq, () => {
      const r = record(seq);
      return { record: r, counts: true, caller: caller(r) };
    });
    return seq;
  }

  /** The one "answered" event (answered-events.ts), with the record of what the request learned and was answered. */
  private report(
    ctx: RequestContext,
    seq: number,
    result: Answer | undefined,
    sent: string | undefined,
    startedAt: number,
    counts = true,
  ): void {
    this.seq = seq;
    const latencyMs = performance.now() - startedAt;
    this.answered.emit(seq, () => ({
      record: recordOf(ctx, seq, result, sent, latencyMs, this.redact),
      counts,
      caller: ctx.caller,
    }));
  }

  /** Requests answered in this run. */
  get answeredCount(): number {
    return this.seq;
  }

  /** Where the numbering stands, for a snapshot (`restore` takes it). */
  state(): { seq: number } {
    return { seq: this.seq };
  }

  restore(state: { seq: number }): void {
    this.seq = state.seq;
  }

  /** Numbering starts again (a new run). */
  restart(): void {
    this.seq = 0;
  }
}

/** The one step that changes the world for a request, once its answer is decided: replay memory, the challenge. */
function commit(ctx: RequestContext, answered: Answer): void {
  const { replay, challenge } = ctx.staged;
  if (replay) {
    const { memory, nonce, time, until, arrived } = replay;
    const http = mustCode(answered.code).http;
    memory.remember(
      nonce,
      time,
      { seq: ctx.seq, at: ctx.now, arrived, http, code: answered.code, fault: ctx.rule?.fault, until },
      ctx.replayNow,
    );
  }
  if (!challenge) return;
  const challenges = ctx.world.challenges;
  if ('made' in challenge) {
    challenges.add(challenge.made);
    // Its person's scripted presses fall due on time, with no request to look at it.
    if (challenge.made.presses) ctx.world.schedulePresses();
  } else if ('cancelled' in challenge) challenges.cancel(challenge.cancelled, ctx.now, ctx.actor);
  else challenges.verify(challenge.verified, ctx.now, ctx.actor);
}

/** The HTML error page a proxy in front of the service sends. */
function proxyPage(status: number): string {
  const title =
    status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Temporarily Unavailable' : 'Gateway Time-out';
  return `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

/** A body that starts like the answer and is not JSON. */
function garbage(chars: string): string {
  return `\u0000<<garbled ${chars}>>\u00ff{"id":`;
}
