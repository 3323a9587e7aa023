import { parseAuthorization } from '../auth/authorization.js';
import { answer } from '../contract/answer.js';
import { API_USER_ID } from '../contract/api-user.js';
import { endpointMethods, endpointOf } from '../contract/operations.js';
import { authorizationShape, nonceShape, timeShape } from '../doctor/shapes.js';
import { algorithmToken, headerToken, pathToken, signedHeadersToken } from '../doctor/other-token.js';
import { authFail, signedRequest, type NamedChecks } from './check.js';
import type { RequestContext } from './context.js';

/**
 * The checks of what a request is before anyone is known to have sent it: its size, its route, and the shape of each
 * signing header and Authorization part. Each answers only from the request's own text.
 */

/**
 * The shapes the checks hold a request's values to (also the benchmark's one-function server,
 * bench/checks-baseline.ts).
 */
export const UTCTIME = /^\d{1,16}$/;
export const NONCE = /^[A-Za-z0-9_-]{8,128}$/;
export const HEX128 = /^[0-9a-fA-F]{128}$/;

const isAuthChecked = (ctx: RequestContext) => ctx.sc.auth !== 'off';

export const HEADER_CHECKS: NamedChecks = [
  [
    'transport',
    (ctx) =>
      ctx.req.tooLarge !== undefined ? answer(-413, `the body is larger than ${ctx.req.tooLarge} bytes`) : undefined,
  ],
  ['internal', () => undefined],
  [
    'route',
    (ctx) => {
      const endpoint = endpointOf(ctx.req.url, ctx.sc.token);
      if (!endpoint) {
        ctx.hint = pathToken(ctx.req.url, ctx.sc.token);
        return answer(-404, `no endpoint at ${ctx.req.url.split('?')[0]}`);
      }
      if (!endpointMethods(endpoint).includes(ctx.req.method))
        return answer(-405, `${ctx.req.method} is not allowed on /v1/svc/${endpoint}`);
      ctx.endpoint = endpoint;
      return undefined;
    },
  ],
  [
    'authorization-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const value = ctx.header('authorization');
      if (!value) return authFail(ctx, -4000);
      ctx.parts = parseAuthorization(value, ctx.sc.token) ?? null;
      if (ctx.parts) return undefined;
      return authFail(
        ctx,
        -4001,
        `expected \`${ctx.sc.token}-hmac: apiuser=...,signedheaders=...,algorithm=...,signature=...\``,
        authorizationShape(value, ctx.sc.token),
      );
    },
  ],
  [
    'utctime-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const name = ctx.sc.names.utctime;
      const v = ctx.header(name);
      if (!v) return authFail(ctx, -4004, undefined, headerToken(ctx.req.headers, ctx.sc.token));
      if (!UTCTIME.test(v)) return authFail(ctx, -4005, `${name} must be 1 to 16 digits`, timeShape(v));
      ctx.utctime = v;
      return undefined;
    },
  ],
  [
    'nonce-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const name = ctx.sc.names.nonce;
      const v = ctx.header(name);
      if (!v) return authFail(ctx, -4006, undefined, headerToken(ctx.req.headers, ctx.sc.token));
      if (!NONCE.test(v))
        return authFail(ctx, -4007, `${name} must be 8 to 128 letters, digits, - or _`, nonceShape(v));
      ctx.nonce = v;
      return undefined;
    },
  ],
  [
    'apiuser-header',
    (ctx) => {
      if (!isAuthChecked(ctx)) return undefined;
      const v = ctx.header(ctx.sc.names.apiUser);
      if (!v) return authFail(ctx, -4008, undefined, headerToken(ctx.req.headers, ctx.sc.token));
      if (!API_USER_ID.test(v)) return authFail(ctx, -4009, 'the API user id must be 9 digits');
      ctx.apiUserId = v;
      return undefined;
    },
  ],
  [
    'signature-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.signature;
      if (!v) return authFail(ctx, -4026);
      if (HEX128.test(v)) {
        ctx.signature = v;
        return undefined;
      }
      const hint = ctx.doctor.misshapenSignature(v, signedRequest(ctx, ctx.apiUserId ?? ctx.parts.apiuser));
      return authFail(ctx, -4027, 'the signature must be 128 hexadecimal characters', hint);
    },
  ],
  [
    'apiuser-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.apiuser;
      if (!v) return authFail(ctx, -4028);
      if (!API_USER_ID.test(v)) return authFail(ctx, -4029, 'apiuser must be 9 digits');
      if (ctx.apiUserId !== undefined && v !== ctx.apiUserId)
        return authFail(ctx, -4029, `apiuser differs from the ${ctx.sc.names.apiUser} header`);
      return undefined;
    },
  ],
  [
    'algorithm-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.algorithm;
      if (!v) return authFail(ctx, -4030);
      return v.toLowerCase() === ctx.sc.names.algorithm
        ? undefined
        : authFail(ctx, -4031, `the algorithm must be ${ctx.sc.names.algorithm}`, algorithmToken(v, ctx.sc.token));
    },
  ],
  [
    'signedheaders-part',
    (ctx) => {
      if (!ctx.parts) return undefined;
      const v = ctx.parts.signedheaders;
      if (!v) return authFail(ctx, -4032);
      const want = ctx.sc.names.signedHeaders;
      return v.toLowerCase() === want
        ? undefined
        : authFail(ctx, -4033, `signedheaders must be ${want}`, signedHeadersToken(v, ctx.sc.token));
    },
  ],
];
