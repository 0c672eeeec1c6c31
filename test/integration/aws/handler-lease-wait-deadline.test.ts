// Scenario: the reconcile Lambda, set to wait for a held lease (OPSMAN_LEASE_WAIT_MS), reaches its time limit while
// another run still holds it: it stops waiting and ends `skipped` with LEASE_HELD (retried, no RunFailed alarm),
// naming the holder and the time waited, as a plain refusal does; never `failed` with the CLI's INTERRUPTED.
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fakeLambdaContext, WORLD } from '../../helpers/aws-world.ts';
import { holdLeaseAsAnotherRun, useHandlerWorld } from '../../helpers/handler-world.ts';

describe('the reconcile handler out of time while waiting for a held lease', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({
    prepare: (world) => {
      world.env.OPSMAN_LEASE_WAIT_MS = '600000';
    },
  });

  it('is skipped (LEASE_HELD, retryable), naming the holder; the holder keeps its lease', async () => {
    const holder = holdLeaseAsAnotherRun(h.world);
    const started = Date.now();
    // 8 s left: the run is stopped a quarter of that (2 s) before the limit, 6 s into its wait. The wait sees the stop
    // at its next try (up to 500 ms later), then the run ends: 2 s leave room for that on a loaded machine (with 4 s
    // left, runs beside two busy cores ended 3.4 s in, 0.6 s short of the limit).
    const limitMs = 8_000;
    const short = {
      ...fakeLambdaContext('req-short'),
      getRemainingTimeInMillis: () => limitMs - (Date.now() - started),
    } as unknown as Context;
    const summary = await h.reconcile({ source: 'aws.scheduler', 'detail-type': 'Scheduled Event' }, short);
    expect(Date.now() - started).toBeLessThan(limitMs);
    // It did wait (OPSMAN_LEASE_WAIT_MS reached the run), until the stop 6 s in: not a refusal at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    expect(summary).toMatchObject({ status: 'skipped', error: { code: 'LEASE_HELD', retryable: true } });
    expect((summary.error as { message: string }).message).toMatch(
      /^another run holds the lease: lambda:other\/req-0 \(run 20261121T000000Z-00000000, expires \S+\); waited \d+ ms$/,
    );
    expect(JSON.parse(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json') ?? '{}')).toMatchObject(holder);
  });
});
