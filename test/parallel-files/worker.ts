import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, inject } from 'vitest';
import { createClient, type MfaClient } from '../../src/client.js';
import { connect, type ClaimedApiUser, type ControlScenario } from '../../src/control.js';

/**
 * What every worker file does, as the docs' recipe: claim an API user of its own before its tests, load the default
 * scenario for it before each test, release it after. `me` and `client` are set once claimed.
 */
export function claimedWorker() {
  const control = connect(inject('simUrl'));
  const worker = {} as { me: ClaimedApiUser; client: MfaClient; control: typeof control };
  beforeAll(async () => {
    worker.me = await control.claimApiUser();
    worker.client = createClient({ baseUrl: worker.me.url, apiUser: worker.me.apiUser, secret: worker.me.secret });
    worker.control = control;
  });
  beforeEach(() => worker.me.loadScenario('default'));
  afterAll(async () => {
    await expectOnlyMine(worker.me);
    expect(await worker.me.release()).toBe(true);
  });
  return worker;
}

/** Every journal entry this worker's API user can see is its own, run under its own scenarios. */
export async function expectOnlyMine(me: ClaimedApiUser) {
  const entries = await me.journal();
  expect(entries.every((e) => e.apiUser === me.apiUser)).toBe(true);
}

/** A rule that would break every other worker, were it to reach them: every new challenge refused -2038. */
export const BREAKS_EVERYONE: ControlScenario = {
  name: 'breaks-everyone',
  rules: [{ name: 'refuse every challenge', when: { endpoint: 'challenge' }, respond: { code: -2038 } }],
};

export const user = () => `${randomUUID().slice(0, 8)}@example.com`;
