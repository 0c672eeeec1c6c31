// The local store checks its lease before every write to Ops Manager (checkLease): 20,000 creates, 20,000 checks. Each
// awaited file request (open, fstat, read, close) is a round trip through libuv's thread pool, and six of
// them per check cost about 0.15 ms of CPU where the same reads done at once cost about 0.01 ms (3 s of a 20,000-create
// apply, docs/load-and-archive-speed.md). Counted here as the asynchronous file requests a check starts.
import { createHook } from 'node:async_hooks';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { LeaseLostError } from '../../../lambdas/core/errors.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lease-check-cost-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `fn` and counts the asynchronous file requests (fs/promises requests and file handles) started meanwhile. */
async function countFileRequests(fn: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'FSREQPROMISE' || type === 'FILEHANDLE' || type === 'FSREQCALLBACK') count++;
    },
  });
  hook.enable();
  try {
    await fn();
  } finally {
    hook.disable();
  }
  return count;
}

describe('FsStateStore.checkLease', () => {
  it('reads lease.json without an asynchronous file request, and still finds a lost lease', async () => {
    const store = new FsStateStore(dir);
    const lease = await store.acquireLease({ owner: 'o', runId: 'run-a', ttlMs: 60_000 });
    const requests = await countFileRequests(async () => {
      for (let i = 0; i < 10; i++) await store.checkLease(lease);
    });
    // Before: six per check (open, fstat twice, the read to the end, close), 60 for these ten.
    expect(requests).toBe(0);

    await writeFile(join(dir, 'lease.json'), '{"torn":');
    await expect(store.checkLease(lease)).rejects.toThrow(LeaseLostError);
    await rm(join(dir, 'lease.json'));
    await expect(store.checkLease(lease)).rejects.toThrow(/it was removed/);
  });
});
