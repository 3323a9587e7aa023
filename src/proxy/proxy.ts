import type { IncomingMessage, ServerResponse } from 'node:http';
import { CHECKS, codeInfo, type Operation } from '../contract/codes.js';
import { clipText, envelopeJson, isoTime, MAX_MESSAGE_CHARS, own } from '../contract/response.js';
import { endpointOf, endpointTypes, peek, TYPE_OPERATION } from '../contract/envelope.js';
import type { Caller, Deviation, Forwarding, JournalEntry } from '../run/answered.js';
import { bodyAsKept, requestAsKept, type ApiRequest } from '../request/context.js';
import type { StartOptions } from '../simulator/options.js';
import type { Simulator } from '../simulator/simulator.js';
import type { PressAction } from '../scenario/accounts.js';
import { answerText, compareAnswers, isIsoUtc, judgeAnswer, seenAnswer } from './judge.js';
import { Recorder, type RecordedExchange } from './recorder.js';
import { challengeIdOf, Shadow, type Decision } from './shadow.js';
import { rawHeader, readWithin, towardsClient, towardsUpstream, Upstream, type UpstreamAnswer } from './upstream.js';

/** What proxy mode needs of the HTTP layer that makes it (src/http/server.ts): the simulator's own answers. */
export interface HttpAnswers {
  /** Answers a request as the simulator itself does (-404 for a path of no endpoint, -413 when `tooLarge`). */
  serveApi(sim: Simulator, req: IncomingMessage, res: ServerResponse, tooLarge?: boolean): void;
  /** Answers -5000 for an exception outside the request path. */
  answerInternalError(sim: Simulator, req: IncomingMessage, res: ServerResponse, e: unknown): void;
}

/** What a forwarded request came to, for the journal and the recorder (`code`: its envelope's integer code). */
interface Outcome extends Pick<RecordedExchange, 'answer' | 'code'> {
  envelope?: Record<string, unknown>;
  /** The challenge the service's answer names (a new one's, a status's). */
  challengeId?: string;
  forwarding: Forwarding;
}

/** The checks from here on need the API user's secret (or are the service's own decisions). */
const NEEDS_SECRET = CHECKS.indexOf('api-user-known');

/** A simulator's proxy mode: its upstream, its shadow and its recorder, and the path of a forwarded request. */
export class ProxyMode {
  private readonly upstream: Upstream;
  private readonly shadow: Shadow;
  private readonly recorder: Recorder | undefined;
  /** The exchanges under way: a stop waits for them (within its grace) before the recording is written. */
  private readonly exchanges = new Set<Promise<void>>();

  constructor(
    private readonly sim: Simulator,
    options: StartOptions & { upstream: string },
    private readonly http: HttpAnswers,
  ) {
    this.upstream = new Upstream(options);
    this.shadow = new Shadow(sim, options);
    // The challenges are the upstream's: whether one still waits is read from the shadow's copy of it.
    sim.challengeState = (id) => this.shadow.stateOf(id);
    this.recorder = options.record === undefined ? undefined : new Recorder(options.record, this.upstream.url, sim);
  }

  /** Serves one request to `/v1/`: a path of no endpoint, and a body over the limit, never reach the upstream. */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const startedAt = performance.now();
    if (endpointOf(req.url ?? '', this.sim.token) === undefined) return this.http.serveApi(this.sim, req, res);
    const exchange = readWithin(req, this.sim.bodyLimit)
      .then((body) => {
        if (body === 'too-large') return this.http.serveApi(this.sim, req, res, true);
        if (body !== 'gone') return this.exchange(req, res, body, startedAt);
      })
      .catch((e) => this.http.answerInternalError(this.sim, req, res, e))
      .finally(() => this.exchanges.delete(exchange));
    this.exchanges.add(exchange);
  }

  /** Stops proxying: the exchanges under way get `graceMs` to finish, each recorded as the service answered it. */
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
    const [method, url] = [req.method ?? 'GET', req.url ?? '/'];
    const request: ApiRequest = { method, url, headers: req.headers, body: body.toString('utf8') };
    // 1. What mfa-sim answers, decided at once in the shadow's own world (a rule's delay holds nothing here).
    const mine = this.shadow.decide(request);
    // 2. The request as the client sent it, to the upstream: its whole answer within the bounds, or why there is none.
    const answer = await this.upstream.send({ method, target: url, headers: towardsUpstream(req.rawHeaders), body });
    // Cut past the grace of a stop: the client's connection is gone, and the service is not to blame.
    if (answer.kind === 'failure' && answer.stopped) return void res.destroy();
    // 3. To the client at once: the upstream's answer as it came, or -5000 with the reason there is none.
    const reply =
      answer.kind === 'answer'
        ? { status: answer.status, headers: towardsClient(answer.headers), body: answer.body }
        : this.internalError(request, answer.reason);
    if (!res.writableEnded && !res.destroyed) {
      res.writeHead(reply.status, [...reply.headers, 'Content-Length', String(reply.body.length)]);
      res.end(reply.body);
    }
    // 4. Judged against the contract and compared with mfa-sim's, and reported to the journal, coverage, the doctor.
    let outcome: Outcome | undefined;
    const seq = this.sim.path.answeredElsewhere((n) => {
      outcome = this.judged(request, answer, mine);
      return this.record(n, request, startedAt, reply, outcome, mine?.entry);
    }, callerOf);
    // 5. Written down, when recording.
    const recorded = { method, url, headers: req.rawHeaders, body: request.body };
    if (outcome)
      this.recorder?.add({ seq, request: recorded, answer: outcome.answer, http: reply.status, code: outcome.code });
  }

  /** The contract's -5000 with the reason the upstream gave no answer, the caller's id echoed. */
  private internalError(req: ApiRequest, reason: string) {
    const { responseStyle, names } = this.sim.scenario;
    const peeked = peek(req.body, names.userKey, false).id;
    const id = peeked !== undefined && peeked.length <= 25 ? this.sim.redact(peeked) : 'sim-upstream';
    const base = this.sim.links.base(req.headers.host);
    const text = envelopeJson(responseStyle, id, this.sim.now(), -5000, `Internal error: ${reason}`, base);
    return { status: 500, headers: ['Content-Type', 'application/json; charset=utf-8'], body: Buffer.from(text) };
  }

  /** The answer judged against the contract and compared with mfa-sim's: its deviations, mfa-sim's answer beside. */
  private judged(req: ApiRequest, answer: UpstreamAnswer, mine: Decision | undefined): Outcome {
    const redact = this.sim.redact;
    const decided = mine && seenAnswer(mine.result.status, mine.result.contentType, mine.result.body);
    const ours = this.shadow.comparing ? decided : undefined;
    const code = ours?.envelope?.code;
    const mfaSim = ours && {
      http: ours.status,
      code: Number.isInteger(code) ? (code as number) : undefined,
      body: bodyAsKept(redact(ours.body), redact),
    };
    const also = ours ? `; mfa-sim would have answered ${answerText(ours)}` : '';
    // What differs may quote the upstream's keys and headers whole: cut as a message is, its secrets redacted first.
    const deviation = (kind: Deviation['kind'], what: string, said: string): Deviation => ({
      kind,
      detail: `${this.sim.echo(what, MAX_MESSAGE_CHARS)}. ${redact(`The service answered ${said}${also}`)}`,
    });
    const url = this.upstream.url;
    if (answer.kind === 'failure') {
      const deviations = [deviation('service-no-answer', answer.reason, 'nothing')];
      return { answer: { failure: answer.reason }, forwarding: { url, failure: answer.reason, mfaSim, deviations } };
    }
    const theirs = seenAnswer(answer.status, rawHeader(answer.headers, 'content-type'), answer.body.toString('utf8'));
    const sc = this.sim.scenario;
    const operation =
      (mine?.entry?.operation as Operation | undefined) ??
      operationOf(endpointOf(req.url, sc.token), peek(req.body, sc.names.userKey, false).type, sc.strict);
    const { envelope, code: theirCode, problems } = judgeAnswer(theirs, sc.responseStyle, operation);
    let compared = ours ? compareAnswers(theirs, ours) : [];
    // A person answered on the service's own phone app: no deviation; the shadow's copy takes the same answer.
    const pressed = ours && personPressed(operation, theirCode, ours.envelope?.code);
    if (pressed && this.shadow.answeredAtService(req.body, pressed))
      compared = compared.filter((f) => f.kind !== 'service-differs-status');
    const found = [...problems, ...compared];
    const said = answerText(theirs);
    const challengeId = challengeIdOf(envelope?.message);
    const myId = theirCode === 2025 ? challengeIdOf(decided?.envelope?.message) : undefined;
    if (challengeId !== undefined && myId !== undefined) this.shadow.learn(challengeId, myId);
    const deviations = found.map((f) => deviation(f.kind, f.what, said));
    const forwarding = { url, mfaSim, deviations };
    return { answer: { ...theirs, headers: answer.headers }, envelope, code: theirCode, challengeId, forwarding };
  }

  /** The journal record of a forwarded request, with the upstream's answer. */
  private record(
    seq: number,
    req: ApiRequest,
    startedAt: number,
    reply: { status: number; body: Buffer },
    outcome: Outcome,
    shadow: JournalEntry | undefined,
  ): JournalEntry {
    const { sim } = this;
    const { envelope, code, forwarding } = outcome;
    const message = envelope && own(envelope, 'message');
    const time = envelope && (own(envelope, 'utctime') ?? own(envelope, 'utcTime'));
    const diagnosed =
      code !== undefined &&
      shadow?.code === code &&
      (this.shadow.comparing || CHECKS.indexOf(codeInfo(code)!.check) < NEEDS_SECRET);
    const nonce = req.headers[sim.scenario.names.nonce];
    return {
      seq,
      // The service's time as its answer says it (the doctor measures a client's clock against it), else mfa-sim's.
      at: isoTime(typeof time === 'string' && isIsoUtc(time) ? Date.parse(time) : sim.now()),
      method: req.method,
      path: req.url,
      endpoint: endpointOf(req.url, sim.token),
      ...(shadow && { operation: shadow.operation, type: shadow.type, apiUser: shadow.apiUser, user: shadow.user }),
      http: reply.status,
      code,
      // An error's message is cut as the request path cuts its own, a success's (a new challenge's QR code) as a body.
      message:
        typeof message !== 'string'
          ? forwarding.failure
          : code !== undefined && code >= 0
            ? bodyAsKept(message, sim.redact)
            : clipText(sim.redact(message), MAX_MESSAGE_CHARS),
      latencyMs: Math.round((performance.now() - startedAt) * 100) / 100,
      scenario: sim.scenario.name,
      // No answer from the upstream is, to the client, a failure on the way (as a rule's fault is).
      fault: forwarding.failure === undefined ? undefined : 'upstream',
      challengeId: outcome.challengeId,
      expectedStringToSign: diagnosed ? shadow.expectedStringToSign : undefined,
      hint: diagnosed ? shadow.hint : undefined,
      by: sim.doctor.sentItself(typeof nonce === 'string' ? nonce : undefined) ? 'explorer' : undefined,
      request: requestAsKept(req, sim.redact),
      response: { body: bodyAsKept(reply.body.toString('utf8'), sim.redact) },
      upstream: forwarding,
    };
  }
}

/** The operation a request asks for, as far as its endpoint and `type` tell before anything is judged. */
function operationOf(endpoint: ReturnType<typeof endpointOf>, type: number | undefined, strict: boolean) {
  if (!endpoint) return undefined;
  const types = endpointTypes(endpoint, strict);
  if (types.length === 1) return TYPE_OPERATION.get(types[0]);
  return type !== undefined && types.includes(type) ? TYPE_OPERATION.get(type) : undefined;
}

/** Who sent a forwarded request, as the service's answer shows it. */
function callerOf(r: JournalEntry): Caller {
  const c = r.code;
  if (c === undefined) return 'known';
  if (c === -1001) return 'unknown';
  return c <= -4000 && c > -4100 && c !== -4034 && c !== -4035 ? 'known' : 'signed';
}

/** What a person did on the service's phone when it answers a status or verify as ended while mfa-sim's copy waits. */
function personPressed(operation: Operation | undefined, theirs: unknown, mine: unknown): PressAction | undefined {
  if ((operation !== 'status' && operation !== 'verify') || mine !== -3091) return undefined;
  return theirs === 3080 ? 'approve' : theirs === -3092 ? 'deny' : undefined;
}
