// Scenario: the reconcile Lambda near its time limit (a context with 8 s left) while Ops Manager hangs every create
// (30 s before it answers, past the limit). The writes in flight are cut when the run's requests must end (a third of
// the 4 s margin before the limit: REQUESTS_END_BEFORE_TIMEOUT_MS, scaled down), each reported honestly (a POST cut on the wire is an
// ambiguous create, its pending-create marker kept for the next run's adoption), and the run still saves its state
// and releases its S3 lease before the limit. Without the end time, the handler waited for the hung creates and
// Lambda would have killed it with the lease held and the state not saved.
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { emulatorAdmin, fakeLambdaContext, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

const LIMIT_MS = 16_000;

describe('the reconcile handler near its time limit with creates in flight that hang', { timeout: 60_000 }, () => {
  const h = useHandlerWorld();

  it('cuts the hung writes in time to save the state and release the lease before the limit', async () => {
    await emulatorAdmin(h.world.emulator.origin, 'POST', 'faults', {
      method: 'POST',
      path: '/groups/*/alertConfigs',
      latencyMs: 30_000,
      times: 1_000,
    });
    const started = Date.now();
    const short = {
      ...fakeLambdaContext('req-hung'),
      getRemainingTimeInMillis: () => LIMIT_MS - (Date.now() - started),
    } as unknown as Context;
    const first = await h.reconcile({ mode: 'apply' }, short);
    const took = Date.now() - started;
    await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'faults');

    // Ended before the limit, with the state saved and the lease released.
    expect(took).toBeLessThan(LIMIT_MS);
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    const state = JSON.parse(h.world.s3.getText(WORLD.dataBucket, 'state/state.json') ?? '{}') as ReconcileState;
    expect(state.lastRun?.runId).toBe(first.runId);
    // The creates cut on the wire are ambiguous: failed, their markers kept for the next run's adoption.
    expect(first.failed).toBeGreaterThan(0);
    const records = Object.values(state.projects).flatMap((p) => Object.values(p.alertConfigs));
    expect(records.filter((r) => r.pendingCreate !== undefined).length).toBeGreaterThan(0);
    expect(JSON.stringify(first)).toContain('the POST was ambiguous');
    expect(JSON.stringify(first)).toContain('the pending marker stays');
  });
});
