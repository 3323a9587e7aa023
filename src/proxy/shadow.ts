import { isObject, own } from '../contract/response.js';
import { parseJson } from '../contract/envelope.js';
import type { JournalEntry } from '../run/answered.js';
import type { ApiRequest } from '../request/context.js';
import type { ApiResult } from '../request/path.js';
import type { StartOptions } from '../simulator/options.js';
import type { CompiledScenario } from '../scenario/compile.js';
import { Simulator } from '../simulator/simulator.js';
import type { PressAction } from '../scenario/accounts.js';
import { BoundedMap } from '../world/bounded-map.js';
import { envelopeOf } from './judge.js';

/** The upstream's challenge ids remembered, each with the shadow's. */
const CHALLENGES_KEPT = 10_000;

/** An upstream's challenge id longer than this is not followed. */
export const MAX_CHALLENGE_ID_CHARS = 256;

/** mfa-sim's decision on one request: its answer, and the journal entry it left (with the client doctor's hint). */
export interface Decision {
  result: ApiResult;
  entry?: JournalEntry;
}

export class Shadow {
  private readonly sim: Simulator;
  private followed: CompiledScenario | undefined;
  private readonly challengeIds = new BoundedMap<string, string>(CHALLENGES_KEPT);

  /** `options`: those of the simulator it shadows; its proxying, control token and public URL are left out. */
  constructor(
    private readonly main: Simulator,
    options: StartOptions,
  ) {
    const own: StartOptions = { ...options, journalSize: 16 };
    for (const key of ['upstream', 'upstreamCa', 'upstreamTimeout', 'record', 'publicUrl', 'controlToken'] as const)
      delete own[key];
    this.sim = new Simulator(own);
  }

  /** Whether mfa-sim's answers are compared with the service's. */
  get comparing(): boolean {
    return this.main.world.secretGiven || this.main.scenario.apiUsers !== undefined;
  }

  /** What mfa-sim answers this request, decided at once: the comparison is of what it answers, not when. */
  decide(req: ApiRequest): Decision | undefined {
    try {
      const active = this.main.scenario;
      // The service's own people answer its challenges: no scripted person answers the shadow's copies.
      if (active !== this.followed) this.sim.loadScenario({ ...active.input, people: {}, magicAddresses: false });
      this.followed = active;
      this.sim.clock.follow(this.main.clock);
      const result = this.sim.path.answerAtOnce({ ...req, body: this.translated(req.body) });
      // A decision and its journal entry are written in the same step, with no other between.
      return { result, entry: this.sim.journal({ limit: 1 })[0] };
    } catch {
      return undefined;
    }
  }

  /** Both created a challenge for the same request: the upstream's id, when a later request names it, names mine. */
  learn(theirs: string, mine: string): void {
    this.challengeIds.set(theirs, mine);
  }

  /** The state of the shadow's copy of a challenge the upstream created (the client doctor asks if it still waits). */
  stateOf(theirs: string): string | undefined {
    return this.sim.findChallenge(this.mine(theirs))?.state;
  }

  /** The shadow's id for an upstream's challenge id: the one learned, or the same id when none was. */
  private mine(theirs: string): string {
    return this.challengeIds.get(theirs) ?? theirs;
  }

  /** Whether the shadow's waiting copy took the answer a person gave on the service's phone (so later ones agree). */
  answeredAtService(requestBody: string, action: PressAction): boolean {
    const theirs = challengeIdIn(requestBody);
    if (theirs === undefined || this.stateOf(theirs) !== 'waiting') return false;
    this.sim.world.challenges.answeredAtService(this.mine(theirs), action);
    return true;
  }

  /** The body with an upstream challenge id replaced by the shadow's, when it names one the shadow knows. */
  private translated(body: string): string {
    const theirs = challengeIdIn(body);
    const mine = theirs === undefined ? undefined : this.challengeIds.get(theirs);
    return mine === undefined ? body : body.split(theirs!).join(mine);
  }
}

/** The challenge id a message names (JSON text): the one reader of the upstream's ids, so none too long is kept. */
export function challengeIdOf(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined;
  const id = envelopeOf(message)?.challengeId;
  return typeof id === 'string' && id !== '' && id.length <= MAX_CHALLENGE_ID_CHARS ? id : undefined;
}

/** The challenge id a request's body names (read as leniently as the simulator reads it), if any. */
function challengeIdIn(text: string): string | undefined {
  const env = parseJson(text, true);
  if (env.kind !== 'value' || !isObject(env.value)) return undefined;
  let body = own(env.value, 'body');
  if (typeof body === 'string') {
    const inner = parseJson(body, true);
    body = inner.kind === 'value' ? inner.value : undefined;
  }
  if (!isObject(body)) return undefined;
  const id = own(body, 'challengeId') ?? own(body, 'challngeId');
  return typeof id === 'string' && id !== '' ? id : undefined;
}
