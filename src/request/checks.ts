import { answer, type Answer } from '../contract/answer.js';
import { judgeBody, judgeEnvelope, type BlockedBody, type ChallengeBody } from '../contract/bodies.js';
import { endpointTypes, TYPE_OPERATION } from '../contract/operations.js';
import { bodyUserToken } from '../doctor/other-token.js';
import { CALLER_CHECKS } from './caller-checks.js';
import type { NamedChecks } from './check.js';
import { HEADER_CHECKS } from './header-checks.js';

/**
 * The checks of a request, in the order of docs/behaviour.md#order-of-checks, each named after its row in the code
 * table, so a code forced by a scenario rule answers exactly where the real check would have failed: what the request
 * is (header-checks.ts), who sent it (caller-checks.ts), then what it asks for (here: permission, envelope, body, and
 * the API user's and account's own rules).
 */
export const CHECKS: NamedChecks = [
  ...HEADER_CHECKS,
  ...CALLER_CHECKS,
  [
    'permission',
    (ctx) => {
      const perms = ctx.apiUser!.permissions;
      const op = ctx.operation;
      if (op !== undefined)
        return perms.has(op) ? undefined : answer(-1026, `API user ${ctx.apiUser!.id} may not call ${op}`);
      // The operation is not known yet (the envelope is judged next): refused only if none of this endpoint's is
      // allowed.
      const ops = endpointTypes(ctx.endpoint!, ctx.sc.strict).map((t) => TYPE_OPERATION.get(t)!);
      return ops.some((o) => perms.has(o))
        ? undefined
        : answer(-1026, `API user ${ctx.apiUser!.id} may not call /v1/svc/${ctx.endpoint}`);
    },
  ],
  [
    'envelope',
    (ctx) => {
      if (ctx.endpoint === 'time') return undefined;
      const judged = judgeEnvelope(ctx.req.body, ctx.endpoint!, ctx.apiUser!.id, ctx.sc);
      if ('code' in judged) return judged;
      ctx.env = judged;
      return undefined;
    },
  ],
  [
    'body',
    (ctx) => {
      if (!ctx.env) return undefined;
      const judged = judgeBody(
        ctx.env.op,
        ctx.env.body,
        ctx.sc,
        // Read for a new challenge only (the one body whose IP address an API user's rules judge here).
        ctx.apiUser!.ipRules !== undefined,
      );
      if ('code' in judged) {
        if (judged.code === -5077) ctx.hint = bodyUserToken(ctx.env.body, ctx.sc.token);
        return judged as Answer;
      }
      ctx.body = judged;
      return undefined;
    },
  ],
  [
    'ip-rules',
    (ctx) => {
      const ip = (ctx.body as ChallengeBody | BlockedBody | undefined)?.ipAddress;
      const rules = ctx.apiUser!.ipRules;
      // Only a new challenge's and a blocked request's bodies carry an IP address.
      if (!ip || !rules) return undefined;
      return rules.blocks(ip) ? answer(-6021, `${ip} is blocked by API user ${ctx.apiUser!.id}'s rules`) : undefined;
    },
  ],
  [
    'auto-verify',
    (ctx) => {
      if (ctx.env?.op !== 'challenge' || !(ctx.body as ChallengeBody).autoVerify) return undefined;
      return ctx.apiUser!.permissions.has('autoVerify')
        ? undefined
        : answer(-1095, `API user ${ctx.apiUser!.id} may not use enableAutoVerify`);
    },
  ],
  [
    'account',
    (ctx) => {
      const user = (ctx.body as { user?: string } | undefined)?.user;
      if (!user) return undefined;
      const code = ctx.sc.accounts.codeFor(user);
      return code === 0 ? undefined : answer(code, `the account ${user} is not usable`);
    },
  ],
];
