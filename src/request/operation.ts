import { codeApplies, codeInfo, type Operation } from '../codes.js';
import type { Answer } from '../contract/answer.js';
import type { CancelBody, ChallengeBody, LookupBody } from '../contract/bodies.js';
import { qrDataUrl } from '../world/qr.js';
import type { RequestContext } from './context.js';

/**
 * The last check (docs/behaviour.md#order-of-checks, step 9): the operation itself, done by the world's verbs
 * (world/challenges.ts owns the challenges' life), or the success a scenario rule forces, with the side effects where
 * they make sense.
 */

const json = (o: unknown) => JSON.stringify(o);

/** The operation's answer, or the one a rule forces. */
export function operate(ctx: RequestContext): Answer {
  const forced = ctx.forced;
  if (forced && forced.code < 0) return ctx.forcedError();
  const op = ctx.env?.op ?? 'time';
  const natural = serve(ctx, op, forced !== undefined);
  if (!forced) return natural;
  // A forced success: the side effects happened where they make sense; the code and message are the rule's.
  if (forced.message !== undefined) return { code: forced.code, message: forced.message };
  if (natural.code === forced.code) return natural;
  return { code: forced.code, message: codeApplies(codeInfo(forced.code)!, op) ? natural.message : defaultSuccessMessage(ctx, forced.code) };
}

/** What the service does for each operation. `forced`: a rule forces a success, which some verbs then make happen. */
function serve(ctx: RequestContext, op: Operation, forced: boolean): Answer {
  const challenges = ctx.world.challenges;
  const apiUser = ctx.apiUser!.id;
  // Who takes a step in a challenge's life, for the dashboard: a client, or the explorer's own request.
  const by = ctx.doctor.sendsAny && ctx.doctor.sentItself(ctx.nonce) ? 'explorer' : 'client';
  switch (op) {
    case 'time':
      return { code: 15000, message: json({ 'utc-time': String(Math.floor(ctx.now / 1000)) }) };
    case 'challenge': {
      const body = ctx.body as ChallengeBody;
      const c = challenges.create(apiUser, body, ctx.now, ctx.sc.autoVerifyDelay, by);
      ctx.challenge = c;
      const url = ctx.links.challenge(c.id, ctx.req.headers.host);
      const message: Record<string, string> = { challengeId: c.id, challengeQRcodeUrl: url };
      if (body.qr) message.challengeQRcode = qrDataUrl(url);
      return { code: 2025, message: json(message) };
    }
    case 'cancel': {
      const { challenge, ...outcome } = challenges.cancel(apiUser, ctx.body as CancelBody, ctx.now, forced, by);
      ctx.challenge = challenge;
      return outcome;
    }
    case 'status':
    case 'verify': {
      const { challenge, ...outcome } = challenges.lookUp(op, apiUser, ctx.body as LookupBody, ctx.now, forced, by);
      ctx.challenge = challenge;
      return outcome;
    }
    case 'blocked':
      return { code: 6020, message: json({ blocked: false }) };
  }
}

function defaultSuccessMessage(ctx: RequestContext, code: number): string {
  switch (code) {
    case 15000:
      return json({ 'utc-time': String(Math.floor(ctx.now / 1000)) });
    case 2028:
      return json({ status: 'CANCELLED' });
    default:
      return codeInfo(code)!.title;
  }
}
