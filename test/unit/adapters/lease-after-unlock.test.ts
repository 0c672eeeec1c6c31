// Scenario: `unlock` frees the lock of a run that is in fact still alive, and another apply takes it. The live run must
// find out before its next write to Ops Manager, not only when its lease is due for renewal (up to half a lifetime
// later, 7.5 minutes by default), or two applies write at once. The unlock is the real binary, in its own process.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { LeaseLostError } from '../../../lambdas/core/errors.ts';
import { acquireLease, DEFAULT_LEASE_OPTIONS } from '../../../lambdas/core/lease.ts';
import type { Clock } from '../../../lambdas/core/ports.ts';
import { runBinary } from '../../helpers/cli-run.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lease-after-unlock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const clock: Clock = { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

describe('a live run whose lock was removed by unlock', { timeout: 60_000 }, () => {
  it('finds its lease lost at its next keepAlive, with most of its lifetime left', async () => {
    const request = (runId: string) => ({ owner: `cli:${runId}@h`, runId, waitMs: 0 });
    const live = await acquireLease(new FsStateStore(dir), clock, request('run-a'), DEFAULT_LEASE_OPTIONS);
    // Nearly all of its 15 minutes left: no renewal is due.
    await live.keepAlive();

    const unlocked = await runBinary(['unlock', 'run-a', '--state-dir', dir]);
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect(unlocked.stderr).toContain('If that run is still alive');
    const next = await acquireLease(new FsStateStore(dir), clock, request('run-b'), DEFAULT_LEASE_OPTIONS);

    await expect(live.keepAlive()).rejects.toThrow(LeaseLostError);
    // The check took nothing from the run that holds the lease now, and releasing the lost lease leaves it alone.
    await live.release();
    expect(JSON.parse(await readFile(join(dir, 'lease.json'), 'utf8')).runId).toBe('run-b');
    await next.keepAlive();
    await next.release();
  });

  it('finds it lost when the lock was removed and nobody took it since', async () => {
    const live = await acquireLease(new FsStateStore(dir), clock, { owner: 'o', runId: 'run-a', waitMs: 0 });
    await rm(join(dir, 'lease.json'));
    await expect(live.keepAlive()).rejects.toThrow(LeaseLostError);
  });
});
