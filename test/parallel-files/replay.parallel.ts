import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { signedHeaders } from '../../src/index.js';
import { claimedWorker } from './worker.js';

const worker = claimedWorker();

it('a replayed nonce is refused (-4034)', async () => {
  for (let i = 0; i < 10; i++) {
    const headers = signedHeaders({
      apiUser: worker.me.apiUser,
      secret: worker.me.secret,
      time: Date.now() + i,
      nonce: randomUUID(),
    });
    const first = await fetch(`${worker.me.url}/v1/svc/time`, { headers });
    const again = await fetch(`${worker.me.url}/v1/svc/time`, { headers });
    expect([((await first.json()) as { code: number }).code, ((await again.json()) as { code: number }).code]).toEqual([
      15000, -4034,
    ]);
  }
});

it("this test's journal starts afresh: the last test's replays are not in it", async () => {
  expect((await worker.client.time()).code).toBe(15000);
  expect((await worker.me.journal()).map((e) => e.code)).toEqual([15000]);
});
