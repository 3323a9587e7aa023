import type { AnsweredRequest, Caller } from '../observers/answered.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Operation } from '../codes.js';
import { MAX_MESSAGE_CHARS } from '../contract/answer.js';
import { peek } from '../contract/envelope.js';
import { endpointOf, endpointTypes, TYPE_OPERATION } from '../contract/operations.js';
import { envelopeJson } from '../contract/response.js';
import { answerInternalError, serveApi } from '../http/serve-api.js';
import type { ApiRequest } from '../request/context.js';
import { bodyAsKept } from '../request/record.js';
import type { StartOptions } from '../run-options.js';
import type { Simulator } from '../simulator.js';
import { monotonicMs } from '../world/monotonic.js';
import { answerText } from './answer-text.js';
import { compareAnswers } from './compare.js';
import type { AnswerShown, Deviation } from './deviation.js';
import { rawHeader, towardsClient, towardsUpstream } from './headers.js';
import { envelopeOf, judgeAnswer, type SeenAnswer } from './judge.js';
import { Recorder } from './recorder.js';
import { forwardedRecord, type ForwardedAnswer } from './record.js';
import { challengeIdOf, Shadow, type Decision } from './shadow.js';
import { Upstream, type UpstreamAnswer } from './upstream.js';

/**
 * Proxy mode (`--upstream <url>`): API requests go to the upstream unchanged and its answers come back unchanged,
 * while mfa-sim judges both sides. The request path of proxy mode reads top to bottom in ProxyMode.exchange.
 */

const JSON_TYPE = 'application/json; charset=utf-8';

/** What the client is sent. */
interface Reply {
  status: number;
  headers: string[];
  body: Buffer;
}

/** A simulator's proxy mode: its upstream, its shadow and its recorder, and the request path of a forwarded request. */
export class ProxyMode {
  readonly upstream: Upstream;
  private readonly shadow: Shadow;
  private readonly recorder: Recorder | undefined;
  /** The exchanges under way: a stop waits for them (within its grace) before the recording is written. */
  private readonly exchanges = new Set<Promise<void>>();

  constructor(
    private readonly sim: Simulator,
    options: StartOptions & { upstream: string },
  ) {
    this.upstream = new Upstream(options);
    this.shadow = new Shadow(sim, options);
    // The challenges are the upstream's: whether one still waits is read from the shadow's copy of it.
    sim.challengeState = (id) => this.shadow.stateOf(id);
    const sc = sim.scenario;
    this.recorder =
      options.record === undefined
        ? undefined
        : new Recorder(
            options.record,
            {
              upstream: this.upstream.url,
              token: sc.token,
              names: sc.names,
              strict: sc.strict,
              responseStyle: sc.responseStyle,
            },
            (text) => sim.redact(text),
            (e, seq) => sim.run.failures.record('recorder', e, seq),
          );
  }

  /**
   * Serves one request to `/v1/`. Only the service's endpoints are forwarded: any other path, and a body over the
   * limit, get the simulator's own answer (-404, -413) and never reach the upstream.
   */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const startedAt = monotonicMs();
    if (endpointOf(req.url ?? '', this.sim.token) === undefined) return serveApi(this.sim, req, res);
    const exchange = readBody(req, this.sim.bodyLimit)
      .then((body) => {
        if (body === 'too-large') return serveApi(this.sim, req, res, true);
        if (body !== 'gone') return this.exchange(req, res, body, startedAt);
      })
      .catch((e) => answerInternalError(this.sim, req, res, e))
      .finally(() => this.exchanges.delete(exchange));
    this.exchanges.add(exchange);
  }

  /**
   * Stops proxying: the exchanges under way get `graceMs` to finish, each recorded as the service answered it; then
   * those still waiting for the upstream are cut (recorded nowhere: the service did not fail, mfa-sim stopped
   * waiting), and the recording is written as it stands.
   */
  async close(graceMs: number): Promise<void> {
    const cut = setTimeout(() => this.upstream.close(), graceMs);
    cut.unref();
    // A request may come during the grace (on a connection already open): each is waited for.
    while (this.exchanges.size > 0) await Promise.allSettled(this.exchanges);
    clearTimeout(cut);
    this.upstream.close();
    this.recorder?.close();
  }

  /** One forwarded request, top to bottom. */
  private async exchange(req: IncomingMessage, res: ServerResponse, body: Buffer, startedAt: number): Promise<void> {
    const request: ApiRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body: body.toString('utf8'),
    };
    // 1. What mfa-sim answers, decided in the shadow's own world before the upstream is asked (at once: a rule's delay
    // holds nothing here): it never reaches the upstream.
    const mine = this.decide(request);
    // 2. The request as the client sent it, to the upstream: its whole answer within the bounds, or why there is none.
    const answer = await this.upstream.send({
      method: request.method,
      target: request.url,
      headers: towardsUpstream(req.rawHeaders),
      body,
    });
    // mfa-sim stopped waiting for it, past the grace of a stop: the client's connection is gone, and the service is
    // not to blame.
    if (answer.kind === 'failure' && answer.stopped) return void res.destroy();
    // 3. To the client at once: the upstream's answer as it came, or -5000 with the reason there is none.
    const reply = this.reply(request, answer);
    if (!res.writableEnded && !res.destroyed) {
      res.writeHead(reply.status, [...reply.headers, 'Content-Length', String(reply.body.length)]);
      res.end(reply.body);
    }
    // 4. The answer judged against the contract and compared with mfa-sim's, and told to the journal, coverage and the
    // client doctor when it came.
    let told!: ForwardedAnswer;
    const seq = this.sim.path.answeredElsewhere((n) => {
      told = this.judged(request, answer, reply, mine);
      return forwardedRecord(this.sim, n, request, startedAt, told, mine?.entry, this.shadow.comparing);
    }, callerOf);
    // 5. Written down, when recording.
    const message = told.envelope?.message;
    this.recorder?.add({
      seq,
      at: new Date().toISOString(),
      request: { method: request.method, url: request.url, headers: req.rawHeaders, body: request.body },
      answer,
      sent: {
        http: told.http,
        body: told.body,
        code: told.code,
        message: typeof message === 'string' ? message : undefined,
      },
    });
  }

  /**
   * mfa-sim's decision; a failure of the shadow (a bug of mfa-sim's) leaves the request forwarded all the same, without
   * a comparison.
   */
  private decide(request: ApiRequest): Decision | undefined {
    try {
      return this.shadow.decide(request);
    } catch {
      return undefined;
    }
  }

  /**
   * What the client is sent: the upstream's answer, or the contract's -5000 with the reason (the caller's id echoed).
   */
  private reply(req: ApiRequest, answer: UpstreamAnswer): Reply {
    if (answer.kind === 'answer')
      return { status: answer.status, headers: towardsClient(answer.headers), body: answer.body };
    const sc = this.sim.scenario;
    const looked = peek(req.body, sc.names.userKey, false);
    const id = looked.id !== undefined && looked.id.length <= 25 ? this.sim.redact(looked.id) : 'sim-upstream';
    const text = envelopeJson(
      sc.responseStyle,
      id,
      this.sim.now(),
      -5000,
      `Internal error: ${answer.reason}`,
      this.sim.links.base(req.headers.host),
    );
    return { status: 500, headers: ['Content-Type', JSON_TYPE], body: Buffer.from(text) };
  }

  /** What the journal records: the answer, its deviations, mfa-sim's answer beside it. */
  private judged(req: ApiRequest, answer: UpstreamAnswer, reply: Reply, mine: Decision | undefined): ForwardedAnswer {
    const sc = this.sim.scenario;
    const comparing = this.shadow.comparing && mine !== undefined;
    const ours: SeenAnswer | undefined = comparing
      ? { status: mine.result.status, contentType: mine.result.contentType, body: mine.result.body }
      : undefined;
    const hide = (text: string) => this.sim.redact(text);
    const mfaSim: AnswerShown | undefined = ours && {
      http: ours.status,
      code: codeOf(envelopeOf(ours.body)),
      body: bodyAsKept(hide(ours.body), hide),
    };
    const both = (theirs: string) =>
      `The service answered ${theirs}${ours ? `; mfa-sim would have answered ${answerText(ours)}` : ''}`;
    // What differs may quote the upstream's keys and headers whole: cut as a message is, its secrets hidden first.
    const deviation = (kind: Deviation['kind'], what: string, theirs: string): Deviation => ({
      kind,
      detail: `${this.sim.echo(what, MAX_MESSAGE_CHARS)}. ${hide(both(theirs))}`,
    });

    if (answer.kind === 'failure') {
      const forwarding = {
        url: this.upstream.url,
        failure: answer.reason,
        mfaSim,
        deviations: [deviation('service-no-answer', answer.reason, 'nothing')],
      };
      return { http: reply.status, body: reply.body.toString('utf8'), forwarding };
    }
    const seen: SeenAnswer = {
      status: answer.status,
      contentType: rawHeader(answer.headers, 'content-type'),
      body: answer.body.toString('utf8'),
    };
    const operation =
      (mine?.entry?.operation as Operation | undefined) ??
      operationOf(endpointOf(req.url, sc.token), peek(req.body, sc.names.userKey, false).type, sc.strict);
    const judged = judgeAnswer(seen, sc.responseStyle, operation);
    const found = [...judged.problems, ...(ours ? compareAnswers(seen, ours) : [])];
    const theirs = answerText(seen);
    const challengeId = judged.code === 2025 ? challengeIdOf(judged.envelope?.message) : undefined;
    if (challengeId !== undefined && mine) this.shadow.learn(challengeId, mine.result);
    return {
      http: answer.status,
      body: seen.body,
      envelope: judged.envelope,
      code: judged.code,
      forwarding: { url: this.upstream.url, mfaSim, deviations: found.map((f) => deviation(f.kind, f.what, theirs)) },
    };
  }
}

/** The operation a request asks for, as far as its endpoint and `type` tell before anything is judged. */
function operationOf(
  endpoint: ReturnType<typeof endpointOf>,
  type: number | undefined,
  strict: boolean,
): Operation | undefined {
  if (!endpoint) return undefined;
  const types = endpointTypes(endpoint, strict);
  if (types.length === 1) return TYPE_OPERATION.get(types[0]);
  return type !== undefined && types.includes(type) ? TYPE_OPERATION.get(type) : undefined;
}

function codeOf(envelope: Record<string, unknown> | undefined): number | undefined {
  const code = envelope?.code;
  return Number.isInteger(code) ? (code as number) : undefined;
}

/** A request's body read whole, within the limit; 'too-large' past it, 'gone' when the client went away. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'gone'> {
  return new Promise((resolve) => {
    if (Number(req.headers['content-length']) > limit) return resolve('too-large');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.removeAllListeners('data');
      resolve('too-large');
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve('gone'));
    // Closed before its end came (the client went, or a stop cut it): nothing to forward.
    req.on('close', () => resolve('gone'));
  });
}

/**
 * Who sent a forwarded request, as the service's answer shows it (the client doctor judges only what a right
 * signature sent): the service knows no such API user (-1001), refused the authentication before its signature was
 * verified (-40xx but a replay, which is judged after it), or verified the signature. Without an answer, the request
 * named someone the doctor cannot vouch for.
 */
function callerOf(r: AnsweredRequest): Caller {
  const c = r.code;
  if (c === undefined) return 'known';
  if (c === -1001) return 'unknown';
  const refusedUnverified = c <= -4000 && c > -4100 && c !== -4034 && c !== -4035;
  return refusedUnverified ? 'known' : 'signed';
}
