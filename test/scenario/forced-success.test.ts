import { describe, expect, it } from 'vitest';
import {
  cancelEnvelope,
  challengeEnvelope,
  expectEnvelope,
  lookupEnvelope,
  send,
  simulator,
  type SendOptions,
} from '../helpers.js';

/**
 * A success a scenario rule forces (`respond: { code: <success> }`) runs the operation, which makes happen what makes
 * sense: a forced 2028 cancels a waiting challenge, a forced 3080 on verify verifies a waiting or approved one (never
 * one that ended otherwise), and on status changes nothing. Its message is the one the service would give. Without a
 * rule, status never verifies, and only a verify with the right code does.
 */

const ME = { apiUser: '123456789', secret: 'forced-success-secret' };

describe('forced successes', async () => {
  const sim = await simulator({
    name: 'forced-success',
    apiUsers: [{ id: ME.apiUser, secret: ME.secret }],
    rules: [
      { when: { headers: { 'x-force': 'cancel' } }, respond: { code: 2028 } },
      { when: { headers: { 'x-force': 'ok' } }, respond: { code: 3080 } },
    ],
  });
  const force = (what: string): SendOptions => ({ headers: { 'x-force': what } });
  const post = (path: string, body: unknown, opts: SendOptions = {}) => send(sim, path, { as: ME, ...opts, body });
  const make = async () => {
    const r = expectEnvelope(await post('/v1/svc/challenge', challengeEnvelope(ME.apiUser)), 202, 2025);
    return (JSON.parse(r.message) as { challengeId: string }).challengeId;
  };
  const state = (id: string) => sim.challenges().find((c) => c.id === id)?.state;
  const status = (id: string, opts: SendOptions = {}, extra = {}) =>
    post('/v1/svc/status', lookupEnvelope(ME.apiUser, 171, id, extra), opts);
  const verify = (id: string, opts: SendOptions = {}, extra = {}) =>
    post('/v1/svc/verify', lookupEnvelope(ME.apiUser, 170, id, extra), opts);

  it("2028 on a challenge that is not waiting: the service's message, nothing cancelled", async () => {
    const e = expectEnvelope(
      await post('/v1/svc/challenge', cancelEnvelope(ME.apiUser, 'no-such-challenge'), force('cancel')),
      202,
      2028,
    );
    expect(JSON.parse(e.message)).toEqual({ status: 'CANCELLED' });
  });

  it('3080 on verify of a waiting challenge verifies it: VERIFIED', async () => {
    const id = await make();
    const e = expectEnvelope(await verify(id, force('ok')), 200, 3080);
    expect(JSON.parse(e.message)).toEqual({ challengeId: id, status: 'VERIFIED' });
    expect(state(id)).toBe('verified');
  });

  it('3080 on verify of an approved challenge (with the wrong code) verifies it', async () => {
    const id = await make();
    sim.approve(id, '123456');
    expectEnvelope(await verify(id, force('ok'), { authCode: '000000' }), 200, 3080);
    expect(state(id)).toBe('verified');
  });

  it('3080 on status of a waiting challenge: APPROVED, and the challenge still waits', async () => {
    const id = await make();
    const e = expectEnvelope(await status(id, force('ok')), 200, 3080);
    expect(JSON.parse(e.message)).toEqual({ challengeId: id, status: 'APPROVED' });
    expect(state(id)).toBe('waiting');
  });

  it('3080 on verify of a cancelled or denied challenge: answered, and it stays as it ended', async () => {
    const cancelled = await make();
    expectEnvelope(await post('/v1/svc/challenge', cancelEnvelope(ME.apiUser, cancelled)), 202, 2028);
    expectEnvelope(await verify(cancelled, force('ok')), 200, 3080);
    expect(state(cancelled)).toBe('cancelled');
    const denied = await make();
    sim.deny(denied);
    expectEnvelope(await verify(denied, force('ok')), 200, 3080);
    expect(state(denied)).toBe('denied');
  });

  it('3080 on verify of an unknown challenge: answered, nothing made or verified', async () => {
    const before = sim.challenges().map((c) => [c.id, c.state]);
    expectEnvelope(await verify('no-such-challenge', force('ok')), 200, 3080);
    expect(sim.challenges().map((c) => [c.id, c.state])).toEqual(before);
  });

  it('without a rule: status of an approved challenge leaves it approved; a wrong code verifies nothing', async () => {
    const id = await make();
    sim.approve(id, '123456');
    expect(JSON.parse(expectEnvelope(await status(id), 200, 3080).message)).toEqual({
      challengeId: id,
      status: 'APPROVED',
    });
    expect(state(id)).toBe('approved');
    expectEnvelope(await verify(id, {}, { authCode: '000000' }), 400, -3087);
    expect(state(id)).toBe('approved');
    const waiting = await make();
    expectEnvelope(await verify(waiting, {}, { authCode: '123456' }), 400, -3091);
    expect(state(waiting)).toBe('waiting');
    expectEnvelope(await verify(id, {}, { authCode: '123456' }), 200, 3080);
    expect(state(id)).toBe('verified');
  });
});
