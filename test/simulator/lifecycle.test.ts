import { describe, expect, it } from 'vitest';
import { challengeEnvelope, expectEnvelope, lookupEnvelope, send, simulator, cancelEnvelope } from '../helpers.js';

/** The whole life of a challenge, as a client's code meets it: send, poll, the user answers, verify. */
describe('life of a challenge (docs/behaviour.md#challenges)', async () => {
  const sim = await simulator({ clock: { frozenAt: '2026-07-01T08:00:00Z' }, autoVerify: { delay: '10s' } });
  const who = { apiUser: sim.apiUser.id, secret: sim.apiUser.secret };
  const control = (path: string, body?: unknown) =>
    fetch(`${sim.url}/__sim/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const create = async (body: Record<string, unknown> = {}) =>
    (
      JSON.parse(
        expectEnvelope(
          await send(sim, '/v1/svc/challenge', { as: who, body: challengeEnvelope(who.apiUser, body) }),
          202,
          2025,
        ).message,
      ) as { challengeId: string }
    ).challengeId;
  const status = (id: string) => send(sim, '/v1/svc/status', { as: who, body: lookupEnvelope(who.apiUser, 171, id) });
  const verify = (id: string, authCode?: string) =>
    send(sim, '/v1/svc/verify', {
      as: who,
      body: lookupEnvelope(who.apiUser, 170, id, { authCode, verifyType: 'Manual' }),
    });

  it('send -> status waiting -> the user approves (control API) -> status -> verify 3080', async () => {
    const id = await create();
    expectEnvelope(await status(id), 400, -3091);
    expectEnvelope(await verify(id, '000000'), 400, -3091);
    const approved = await control(`challenges/${id}/approve`, { authCode: '424242' });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ id, state: 'approved', authCode: '424242' });
    expect(JSON.parse(expectEnvelope(await status(id), 200, 3080).message)).toEqual({
      challengeId: id,
      status: 'APPROVED',
    });
    expectEnvelope(await verify(id, '111111'), 400, -3087);
    expect(JSON.parse(expectEnvelope(await verify(id, '424242'), 200, 3080).message)).toEqual({
      challengeId: id,
      status: 'VERIFIED',
    });
    expect(JSON.parse(expectEnvelope(await status(id), 200, 3080).message).status).toBe('VERIFIED');
  });

  it('the user denies: status and verify -3092', async () => {
    const id = await create();
    expect((await control(`challenges/${id}/deny`)).status).toBe(200);
    expect(expectEnvelope(await status(id), 400, -3092).message).toMatch(/denied/);
    expectEnvelope(await verify(id, '1'), 400, -3092);
    expect((await control(`challenges/${id}/approve`)).status).toBe(409);
  });

  it('the user never answers: after challengeExpiry (the clock advanced) -3092, and cancel is refused', async () => {
    const id = await create({ challengeExpiry: 'FiveMins' });
    expectEnvelope(await status(id), 400, -3091);
    expect((await control('clock/advance', { by: '5m' })).status).toBe(200);
    expect(expectEnvelope(await status(id), 400, -3092).message).toMatch(/expired/);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: who, body: cancelEnvelope(who.apiUser, id) }),
      400,
      -2035,
    );
  });

  it('the client cancels: status -3092 (cancelled), a second cancel -2035', async () => {
    const id = await create();
    expectEnvelope(await send(sim, '/v1/svc/challenge', { as: who, body: cancelEnvelope(who.apiUser, id) }), 202, 2028);
    expect(expectEnvelope(await status(id), 400, -3092).message).toMatch(/cancelled/);
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: who, body: cancelEnvelope(who.apiUser, id) }),
      400,
      -2035,
    );
  });

  it('expire through the control API works at once', async () => {
    const id = await create();
    expect(await (await control(`challenges/${id}/expire`)).json()).toMatchObject({ state: 'expired' });
    expectEnvelope(await status(id), 400, -3092);
  });

  it('auto-verify completes by itself after the scenario delay', async () => {
    const id = await create({ enableAutoVerify: true });
    expectEnvelope(await status(id), 400, -3091);
    await control('clock/advance', { by: '10s' });
    expectEnvelope(await status(id), 200, 3080);
    expectEnvelope(await verify(id), 200, 3080);
  });

  it("another user's or another API user's challenge is unknown (-3087, -2035)", async () => {
    const id = await create();
    expectEnvelope(
      await send(sim, '/v1/svc/status', {
        as: who,
        body: lookupEnvelope(who.apiUser, 171, id, {}, 'other@example.com'),
      }),
      400,
      -3087,
    );
    expectEnvelope(
      await send(sim, '/v1/svc/challenge', { as: who, body: cancelEnvelope(who.apiUser, id, 'other@example.com') }),
      400,
      -2035,
    );
  });
});
