import { mustCode } from '../codes.js';
import type { Answer } from '../contract/answer.js';
import type { RequestContext } from './context.js';

/**
 * The one step that changes the world for a request, once its answer is decided (decide.ts): its nonce and time
 * remembered (and who used them first, for the replay hints), and the step it took in a challenge's life. Called in the
 * same synchronous turn as the checks that read the world, so of many identical requests exactly one is first.
 */
export function commit(ctx: RequestContext, answered: Answer): void {
  const { replay, challenge } = ctx.staged;
  if (replay) {
    const entry = {
      seq: ctx.seq,
      at: ctx.now,
      arrived: replay.arrived,
      http: mustCode(answered.code).http,
      code: answered.code,
      fault: ctx.rule?.fault,
      until: replay.until,
    };
    replay.memory.remember(replay.nonce, replay.time, entry, ctx.replayNow);
  }
  if (!challenge) return;
  const challenges = ctx.world.challenges;
  if ('made' in challenge) challenges.add(challenge.made);
  else if ('cancelled' in challenge) challenges.cancel(challenge.cancelled, ctx.now, ctx.actor);
  else challenges.verify(challenge.verified, ctx.now, ctx.actor);
}
