import { describe, expect, it } from 'vitest';
import { cancelEnvelope, challengeEnvelope, expectEnvelope, send, simulator } from '../helpers.js';

/**
 * What an API user may do (docs/behaviour.md#accounts-and-api-users): each operation its permissions list, auto-verify
 * apart, and IPv4 rules on the operations that carry an address (a new challenge, the blocked check).
 */
const MAIN = { apiUser: '123456789', secret: 'main-secret' };
const CHALLENGE_ONLY = { apiUser: '200000002', secret: 'challenge-only-secret' };
const CANCEL_ONLY = { apiUser: '200000005', secret: 'cancel-only-secret' };
const TIME_ONLY = { apiUser: '200000001', secret: 'time-only-secret' };
const IP_USER = { apiUser: '200000004', secret: 'ip-secret' };
const ALLOW_LIST = { apiUser: '200000006', secret: 'allow-secret' };

describe('permissions, auto-verify and IP rules', async () => {
  const sim = await simulator({
    name: 'permissions',
    apiUsers: [
      { id: MAIN.apiUser, secret: MAIN.secret },
      { id: CHALLENGE_ONLY.apiUser, secret: CHALLENGE_ONLY.secret, permissions: ['challenge'] },
      { id: CANCEL_ONLY.apiUser, secret: CANCEL_ONLY.secret, permissions: ['cancel'] },
      { id: TIME_ONLY.apiUser, secret: TIME_ONLY.secret, permissions: ['time'] },
      { id: IP_USER.apiUser, secret: IP_USER.secret, ipRules: { block: ['203.0.113.0/24'] } },
      { id: ALLOW_LIST.apiUser, secret: ALLOW_LIST.secret, ipRules: { allow: ['198.51.100.0/24'] } },
    ],
  });
  const challenge = (as: typeof MAIN, body: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    send(sim, '/v1/svc/challenge', { as, body: challengeEnvelope(as.apiUser, body, extra) });
  const blocked = (as: typeof MAIN, ipAddress?: string) =>
    send(sim, '/v1/svc/blocked', {
      as,
      body: {
        id: 'b',
        utctime: '1',
        apiUser: as.apiUser,
        type: 950,
        body: { svcUser: 'user@example.com', ...(ipAddress ? { ipAddress } : {}) },
      },
    });

  it('an operation is judged on its own permission, on an endpoint shared with others', async () => {
    expectEnvelope(await challenge(CHALLENGE_ONLY), 202, 2025);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: CHALLENGE_ONLY, body: cancelEnvelope(CHALLENGE_ONLY.apiUser, 'x') }),
      400,
      -1026,
    );
    expect(expectEnvelope(await challenge(CANCEL_ONLY), 400, -1026).message).toContain(
      'API user 200000005 may not call challenge',
    );
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: CANCEL_ONLY, body: cancelEnvelope(CANCEL_ONLY.apiUser, 'x') }),
      400,
      -2035,
    );
  });

  it('a type the endpoint does not take is -1026 only when none of its operations is permitted', async () => {
    expectEnvelope(await challenge(CANCEL_ONLY, {}, { type: 999 }), 400, -5072);
    expect(expectEnvelope(await challenge(TIME_ONLY, {}, { type: 999 }), 400, -1026).message).toContain(
      'API user 200000001 may not call /v1/svc/challenge',
    );
  });

  it('once authenticated, an envelope in relaxed JSON is read whole: its operation is judged', async () => {
    const relaxed = `{'id': 'r', 'utctime': '1', 'apiUser': '${CANCEL_ONLY.apiUser}', 'type': 150, 'body': {'svcUser': 'user@example.com', 'challengeType': 'UserKeyAndPattern'}}`;
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: CANCEL_ONLY, body: relaxed }), 400, -1026);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: MAIN, body: relaxed.replace(CANCEL_ONLY.apiUser, MAIN.apiUser) }),
      202,
      2025,
    );
  });

  it('auto-verify needs its own permission; a challenge without it needs none', async () => {
    expectEnvelope(await challenge(CHALLENGE_ONLY, { enableAutoVerify: true }), 400, -1095);
    expectEnvelope(await challenge(CHALLENGE_ONLY, { enableAutoVerify: false }), 202, 2025);
    expectEnvelope(await challenge(MAIN, { enableAutoVerify: true }), 202, 2025);
  });

  it('IP rules: a new challenge must carry an address, which is judged; a cancel carries none', async () => {
    expectEnvelope(await challenge(IP_USER), 400, -5075);
    expectEnvelope(await challenge(IP_USER, { ipAddress: '203.0.113.7' }), 400, -6021);
    expectEnvelope(await challenge(IP_USER, { ipAddress: '198.51.100.7' }), 202, 2025);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: IP_USER, body: cancelEnvelope(IP_USER.apiUser, 'x') }),
      400,
      -2035,
    );
    expectEnvelope(await challenge(MAIN), 202, 2025);
    expectEnvelope(await challenge(MAIN, { ipAddress: '203.0.113.7' }), 202, 2025);
  });

  it('IP rules on the blocked check; an allow list blocks every address outside it', async () => {
    expectEnvelope(await blocked(IP_USER, '203.0.113.7'), 400, -6021);
    expectEnvelope(await blocked(IP_USER, '198.51.100.7'), 200, 6020);
    expectEnvelope(await blocked(ALLOW_LIST, '198.51.100.7'), 200, 6020);
    expectEnvelope(await blocked(ALLOW_LIST, '192.0.2.1'), 400, -6021);
    expectEnvelope(await blocked(MAIN, '203.0.113.7'), 200, 6020);
    expectEnvelope(await blocked(MAIN), 400, -5075);
  });
});
