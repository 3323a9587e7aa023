import type { Operation } from '../codes.js';
import type { Answer } from '../contract/answer.js';
import type { CancelBody, ChallengeBody, LookupBody } from '../contract/bodies.js';
import { cancelOutcome, lookUpOutcome } from '../world/challenges.js';
import { jsonText } from '../output/json.js';
import { qrDataUrl } from '../world/qr.js';
import type { RequestContext } from './context.js';

/**
 * The operation (docs/behaviour.md#order-of-checks, step 9): what the service answers, read from the world
 * (world/challenges.ts owns the challenges' life), and the step it takes staged for commit.ts; or the success a
 * scenario rule forces, with the step taken where it makes sense.
 */

const json = (o: unknown) => JSON.stringify(o);

/** The time operation's message, `{"utc-time":"<seconds>"}`. */
const timeMessage = (now: number) => json({ 'utc-time': String(Math.floor(now / 1000)) });

/**
 * A new challenge's message, `{"challengeId", "challengeQRcodeUrl", "challengeQRcode"?}`, written out rather than
 * stringified as an object: every new challenge pays for it, and its values are two plain strings and a data URL.
 */
function challengeMessage(id: string, url: string, qr: boolean): string {
  const image = qr ? `,"challengeQRcode":${jsonText(qrDataUrl(url))}` : '';
  return `{"challengeId":${jsonText(id)},"challengeQRcodeUrl":${jsonText(url)}${image}}`;
}

/** The operation's answer, or the success a rule forces (`forced`, a code of 0 or more). */
export function operate(ctx: RequestContext, forced?: { code: number; message?: string }): Answer {
  const op = ctx.env?.op ?? 'time';
  const natural = serve(ctx, op, forced !== undefined);
  // A forced success: the step was staged where it makes sense, and the code is the one serve() answers, since a rule
  // forcing a success matches only the operations that code is answered to (scenario/compile-rule.ts); the message
  // is the rule's when it gives one.
  if (!forced || forced.message === undefined) return natural;
  return { code: forced.code, message: forced.message };
}

/**
 * What the service answers for each operation, and the step it stages. `forced`: a rule forces a success, so a
 * cancel cancels a waiting challenge and a verify verifies a waiting or approved one, whatever they would answer.
 */
function serve(ctx: RequestContext, op: Operation, forced: boolean): Answer {
  const challenges = ctx.world.challenges;
  const apiUser = ctx.apiUser!.id;
  switch (op) {
    case 'time':
      return { code: 15000, message: timeMessage(ctx.now) };
    case 'challenge': {
      const body = ctx.body as ChallengeBody;
      const c = challenges.make(apiUser, body, ctx.now, ctx.sc.autoVerifyDelay, ctx.actor);
      ctx.challenge = c;
      ctx.staged.challenge = { made: c };
      const url = ctx.links.challenge(c.id, ctx.req.headers.host);
      return { code: 2025, message: challengeMessage(c.id, url, body.qr) };
    }
    case 'cancel': {
      const { user, challengeId } = ctx.body as CancelBody;
      const c = challenges.find(apiUser, user, challengeId, ctx.now);
      ctx.challenge = c;
      const outcome = cancelOutcome(c);
      if (c?.state === 'waiting') ctx.staged.challenge = { cancelled: c };
      return forced ? { code: 2028, message: json({ status: 'CANCELLED' }) } : outcome;
    }
    case 'status':
    case 'verify': {
      const body = ctx.body as LookupBody;
      const c = challenges.find(apiUser, body.user, body.challengeId, ctx.now);
      ctx.challenge = c;
      const outcome = lookUpOutcome(op, c, body.authCode);
      if (forced) {
        if (c && op === 'verify' && (c.state === 'waiting' || c.state === 'approved'))
          ctx.staged.challenge = { verified: c };
        return {
          code: 3080,
          message: json({ challengeId: body.challengeId, status: op === 'verify' ? 'VERIFIED' : 'APPROVED' }),
        };
      }
      // Verifying a verified challenge again changes nothing (world/challenges.ts).
      if (op === 'verify' && outcome.code === 3080) ctx.staged.challenge = { verified: c! };
      return outcome;
    }
    case 'blocked':
      return { code: 6020, message: json({ blocked: false }) };
  }
}
