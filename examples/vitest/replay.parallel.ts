import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { signedHeaders } from 'mfa-sim';
import { claimedApiUser } from './claimed.js';

const worker = claimedApiUser();

it('a request sent twice with one nonce is refused the second time with -4034', async () => {
  const headers = signedHeaders({ apiUser: worker.me.apiUser, secret: worker.me.secret, time: Date.now(), nonce: randomUUID() });
  const codes = [];
  for (let i = 0; i < 2; i++) codes.push(((await (await fetch(`${worker.me.url}/v1/svc/time`, { headers })).json()) as { code: number }).code);
  expect(codes).toEqual([15000, -4034]);
});

it("each test's journal starts afresh with its scenario", async () => {
  expect((await worker.client.time()).code).toBe(15000);
  expect((await worker.me.journal()).map((e) => e.code)).toEqual([15000]);
});
