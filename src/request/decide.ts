import { codeInfo } from '../codes.js';
import { answer, type Answer } from '../contract/answer.js';
import { CHECKS } from './checks.js';
import type { RequestContext } from './context.js';
import { operate } from './operation.js';

/**
 * What a request is answered, decided in one place: the checks in order, then the operation, and a code a scenario
 * rule forces. Nothing here changes the world; what the request leaves behind is staged for commit.ts.
 */

/** The answer, and whether what the request staged is committed (never for a forced error). */
export interface Decision {
  answer: Answer;
  commits: boolean;
}

/**
 * The first failing check decides. A forced error answers at its own check, after every earlier check passed, exactly
 * as the real failure would, and leaves no trace (docs/behaviour.md#scenarios-and-forced-codes): no challenge made, no
 * nonce or time remembered. A forced success runs the operation, which makes happen what makes sense.
 */
export function decide(ctx: RequestContext): Decision {
  const forced = ctx.forced;
  // A success's check is the operation, which comes after every check: only a forced error stops one of them.
  const forcedAt = forced ? codeInfo(forced.code)!.check : undefined;
  for (const [name, check] of CHECKS) {
    if (name === forcedAt) return forcedError(forced!);
    const refused = check(ctx);
    if (refused) return { answer: refused, commits: true };
  }
  // An error forced at the operation's own check (-2035, -3087, ...).
  // Stryker disable next-line EqualityOperator: no code is 0 (rules are checked against the code table)
  if (forced && forced.code < 0) return forcedError(forced);
  return { answer: operate(ctx, forced), commits: true };
}

function forcedError(forced: { code: number; message?: string }): Decision {
  const base = answer(forced.code);
  return { answer: { code: base.code, message: forced.message ?? base.message }, commits: false };
}
