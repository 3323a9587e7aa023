import { mustCode } from '../codes.js';
import { answer, clipText, MAX_MESSAGE_CHARS, type Answer } from '../contract/answer.js';
import { envelopeJson, internalErrorJson } from '../contract/response.js';
import type { AnsweredEvents } from '../observers/answered-events.js';
import type { AnsweredRequest, Caller } from '../observers/answered.js';
import type { Redactor } from '../observers/redactor.js';
import type { ScenarioRegistry } from '../scenario/registry.js';
import { pickRule, type Running } from '../scenario/rules.js';
import type { Fault } from '../scenario/schema.js';
import type { World } from '../world/world.js';
import type { Doctor } from '../doctor/doctor.js';
import { withHint, type Hint } from '../doctor/hint.js';
import { commit } from './commit.js';
import { decide, type Decision } from './decide.js';
import { RequestContext, type ApiRequest } from './context.js';
import { garbage, proxyPage, stopsBeforeService } from './faults.js';
import type { Links } from './links.js';
import { recordOf } from './record.js';
import { monotonicMs } from '../world/monotonic.js';
import { errorText } from '../error-text.js';

/**
 * The request path of the simulated API, readable top to bottom in RequestPath.handle: scenario and rule, checks,
 * operation, envelope, one "answered" event; the faults a rule puts on the wire; and the one last resort.
 */

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

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The request path of the simulated API, read top to bottom in `handle`: the scenario the request runs under, the
 * rule that decides, the checks and the operation, the envelope, and one "answered" event that every observer of
 * traffic receives. It acts on the world and the scenarios, and never climbs back to the simulator that owns it.
 */
export class RequestPath {
  /**
   * Requests answered in this run (across scenario loads and resets): the journal's sequence, findings' and hints'
   * request numbers, and the `sim-<n>` id of answers to callers who sent none.
   */
  private seq = 0;
  /**
   * The timers of requests a rule delays (up to 10 minutes): dropped when the simulator closes, so none holds its
   * process.
   */
  private readonly delayed = new Set<ReturnType<typeof setTimeout>>();
  /** Hides secrets in text the journal keeps (one function for every request, kept by its records). */
  private readonly hide = (text: string) => this.redactor.hide(text);

  constructor(
    private readonly world: World,
    private readonly scenarios: ScenarioRegistry,
    private readonly links: Links,
    private readonly redactor: Redactor,
    private readonly answered: AnsweredEvents,
    private readonly doctor: Doctor,
  ) {}

  /** Answers one request. Synchronous unless a rule delays it. */
  handle(req: ApiRequest, startedAt = monotonicMs()): ApiResult | Promise<ApiResult> {
    const ctx = this.picked(req, startedAt);
    if (!(ctx instanceof RequestContext)) return ctx;
    const delay = ctx.rule?.delay;
    if (delay) return this.after(this.jitter(delay)).then(() => this.answer(ctx, startedAt));
    return this.answer(ctx, startedAt);
  }

  /**
   * Answers one request at once, a rule's delay left out: what mfa-sim answers, not when. Proxy mode's shadow decides
   * so, and never holds the service's answer for the delay (docs/proxy.md).
   */
  answerAtOnce(req: ApiRequest): ApiResult {
    const startedAt = monotonicMs();
    const ctx = this.picked(req, startedAt);
    return ctx instanceof RequestContext ? this.answer(ctx, startedAt) : ctx;
  }

  /** Steps 1 to 3: the request's context under its scenario and rule, or the answer to a request no scenario runs. */
  private picked(req: ApiRequest, startedAt: number): RequestContext | ApiResult {
    // 1. The scenario it runs under: picked by header, bound to its API user, or the active one.
    const run = this.scenarios.runningFor(req);
    if ('error' in run) return this.unrouted(req, run.error, startedAt);
    // 2. What the checks will learn, at the simulator's time under that scenario.
    const ctx = this.context(run, req);
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
    if (stopsBeforeService(fault)) {
      this.report(ctx, this.seq + 1, undefined, undefined, startedAt);
      if (fault === 'reset' || fault === 'hang')
        return { status: 0, body: '', contentType: '', fault, hangMs: ctx.rule!.hangMs };
      const status = Number(fault.slice(6));
      return { status, body: proxyPage(status), contentType: 'text/html; charset=utf-8', fault };
    }
    // 5. What it is answered (decide.ts: the checks, the operation, a code a rule forces), reading the world only.
    const seq = this.seq + 1;
    ctx.seq = seq;
    const decision = this.decided(ctx);
    // 6. What it leaves behind, committed in one step, in the same turn as the checks that read it (commit.ts).
    if (decision.commits) commit(ctx, decision.answer);
    // 7. The envelope: a refusal says what the doctor found (unless the scenario wants the document's bare meanings),
    // the caller's id is echoed (secrets hidden), else the journal's sequence number.
    const result = this.shown(this.told(ctx, decision.answer), ctx.hint);
    const id = ctx.callerId === undefined ? `sim-${seq}` : this.redactor.hide(ctx.callerId);
    const body = envelopeJson(
      ctx.sc.responseStyle,
      id,
      ctx.now,
      result.code,
      result.message,
      this.links.base(ctx.req.headers.host),
    );
    // 8. One "answered" event: the journal, coverage and the rest observe it.
    this.report(ctx, seq, result, body, startedAt);
    // 9. On the wire, as it is or garbled by a fault.
    const status = mustCode(result.code).http;
    if (fault === 'garbage') return { status, body: garbage(this.world.random), contentType: JSON_TYPE, fault };
    return { status, body, contentType: JSON_TYPE, fault, close: result.code === -413 };
  }

  /**
   * decide(), where an exception is a bug of the simulator's: answered -5000, shown in the journal and the log (never
   * as a stack trace). The request was authenticated as far as it got, so its nonce and time are still remembered;
   * the operation did not finish, so no step of a challenge is taken.
   */
  private decided(ctx: RequestContext): Decision {
    try {
      return decide(ctx);
    } catch (e) {
      ctx.internalError = errorText(e);
      ctx.staged.challenge = undefined;
      return { answer: answer(-5000), commits: true };
    }
  }

  /**
   * A refusal's message as the scenario wants it: with the doctor's hint after it (`hints`, the default), or the
   * code's bare meaning as the interface document words it. A message a rule forces is the test author's, kept.
   */
  private told(ctx: RequestContext, result: Answer): Answer {
    // Stryker disable next-line EqualityOperator: no code is 0
    if (result.code >= 0 || (ctx.forced?.message !== undefined && ctx.forced.code === result.code)) return result;
    if (!ctx.sc.hints) return { code: result.code, message: mustCode(result.code).title };
    return ctx.hint ? { code: result.code, message: withHint(result.message, ctx.hint) } : result;
  }

  /**
   * An error's message may quote what the caller sent: a secret where it does not belong is never echoed, and it is cut
   * to size after. The hint it ends with is shown on its own too (the journal, the findings): searched once, here.
   */
  private shown(result: Answer, hint?: Hint): Answer {
    // Stryker disable next-line EqualityOperator: no code is 0
    return result.code < 0
      ? {
          code: result.code,
          message: clipText(this.redactor.hide(result.message), MAX_MESSAGE_CHARS),
        }
      : result;
  }

  private context(run: Running, req: ApiRequest): RequestContext {
    const clock = this.world.clock;
    const ctx = new RequestContext(
      this.world,
      this.links,
      this.doctor,
      this.scenarios.active,
      run.sc,
      req,
      clock.at(run.sc.offset),
    );
    // A picked scenario's drift window is checked together with the one it is picked under.
    if (run.under) ctx.guard = { now: clock.at(run.under.sc.offset), maxDrift: run.under.sc.maxDrift };
    return ctx;
  }

  /** Resolves after `ms`, unless the simulator closes first (dropDelayed): then never, as no one is left to answer. */
  private after(ms: number): Promise<void> {
    return new Promise((done) => {
      const timer = setTimeout(() => {
        this.delayed.delete(timer);
        done();
      }, ms);
      this.delayed.add(timer);
    });
  }

  /** The simulator closed and its connections are gone: the requests still delayed have no one to answer. */
  dropDelayed(): void {
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
  }

  private jitter({ min, max }: { min: number; max: number }): number {
    return min + (max > min ? (this.world.random.uint32() / 2 ** 32) * (max - min) : 0);
  }

  /**
   * A request whose x-sim-scenario names no scenario: a mistake of the test set-up, answered -5000 with the reason, not
   * counted as coverage.
   */
  private unrouted(req: ApiRequest, error: string, startedAt: number): ApiResult {
    return this.internalError(req, startedAt, { reason: error, counts: false });
  }

  /** The last resort: the request path itself failed (a bug), answered -5000. */
  lastResort(req: ApiRequest, err: unknown): ApiResult {
    return this.internalError(req, monotonicMs(), { failure: err, counts: true });
  }

  /**
   * A -5000 answered outside the checks, in an envelope built so that it cannot fail in turn (moreInfo relative
   * when even the base URL cannot be had), and written to the journal when that still works.
   */
  private internalError(
    req: ApiRequest,
    startedAt: number,
    why: { reason?: string; failure?: unknown; counts: boolean },
  ): ApiResult {
    const active = this.scenarios.active;
    const seq = this.seq + 1;
    const now = this.world.clock.now();
    const result = this.shown(answer(-5000, why.reason));
    let base = '';
    try {
      base = this.links.base(req.headers.host);
    } catch {
      // moreInfo then holds a relative link.
    }
    let ctx: RequestContext | undefined;
    let id = `sim-${seq}`;
    try {
      ctx = new RequestContext(this.world, this.links, this.doctor, active, active, req, now);
      // A caller's id is echoed for a mistake of the set-up; a failing request path is not read further. The last
      // resort is handed no body, so there is no caller id; and were an absent id hidden, the throw would be caught
      // below and answered with the simulator's id.
      // Stryker disable next-line ConditionalExpression,LogicalOperator: either way the id is the simulator's
      if (why.failure === undefined && ctx.callerId !== undefined) id = this.redactor.hide(ctx.callerId);
    } catch {
      // The id the simulator gives, then.
    }
    const body = internalErrorJson(active.responseStyle, id, now, base, result.message);
    try {
      if (why.failure !== undefined) ctx!.internalError = errorText(why.failure);
      this.report(ctx!, seq, result, body, startedAt, why.counts);
    } catch {
      // The answer matters more than its journal entry.
    }
    return { status: 500, body, contentType: JSON_TYPE };
  }

  /**
   * A request another answered (proxy mode: the upstream, src/proxy/): numbered among the path's own and told to
   * every observer of "answered", as the path tells its own. Returns its number.
   */
  answeredElsewhere(record: (seq: number) => AnsweredRequest, caller: (r: AnsweredRequest) => Caller): number {
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
    const latencyMs = monotonicMs() - startedAt;
    this.answered.emit(seq, () => ({
      record: recordOf(ctx, seq, result, sent, latencyMs, this.hide),
      counts,
      caller: ctx.caller,
    }));
  }

  /** Requests answered in this run. */
  get answeredCount(): number {
    return this.seq;
  }

  /** Numbering starts again (a new run). */
  restart(): void {
    this.seq = 0;
  }
}
