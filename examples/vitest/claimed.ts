// What each worker file does first: claim an API user of its own for its tests, the default scenario before each test.
import { afterAll, beforeAll, beforeEach, expect, inject } from 'vitest';
import { connect, type ClaimedApiUser } from 'mfa-sim/control';
import { createClient, type MfaClient } from 'mfa-sim/client';

export function claimedApiUser(): { me: ClaimedApiUser; client: MfaClient } {
  const worker = {} as { me: ClaimedApiUser; client: MfaClient };
  beforeAll(async () => {
    worker.me = await connect(inject('mfaSimUrl')).claimApiUser();
    worker.client = createClient({ baseUrl: worker.me.url, apiUser: worker.me.apiUser, secret: worker.me.secret });
  });
  beforeEach(() => worker.me.loadScenario('default'));
  afterAll(async () => {
    // Nothing another worker sent is in this one's journal.
    expect((await worker.me.journal()).every((e) => e.apiUser === worker.me.apiUser)).toBe(true);
    await worker.me.release();
  });
  return worker;
}
