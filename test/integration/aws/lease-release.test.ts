// Scenario: the lease cannot be released after an apply (its DELETE fails through the SDK's retries). The work is
// done and the status stands, but the runs of the next 15 minutes end `skipped` (LEASE_HELD): the summary carries the
// warning and a warn line says so, instead of a report warning nobody reads.
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createAppContext } from '../../../lambdas/handlers/app-context.ts';
import { createReconcileHandler } from '../../../lambdas/handlers/reconcile.ts';
import { WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

const LEASE = `${WORLD.dataBucket}/state/lease.json`;

describe('a lease the reconcile handler cannot release', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });

  it('the run stays ok, its summary carries the warning, a warn line names it; the next run is skipped', async () => {
    const app = createAppContext();
    const warn = vi.spyOn(app.logger, 'warn');
    const reconcile = createReconcileHandler(app);
    h.world.s3.injectFault({ method: 'DELETE', key: LEASE, status: 503, code: 'SlowDown', count: 99 });

    const summary = await reconcile({ mode: 'apply' }, h.ctx() as Context);
    expect(summary).toMatchObject({ status: 'ok', failedChanges: [] });
    expect(summary.applied).toBeGreaterThan(0);
    expect(summary.warnings).toEqual([
      expect.stringMatching(/^lease release failed \(it stays until \S+; runs until then are skipped\): .*503/),
    ]);
    expect(warn).toHaveBeenCalledWith('lease not released: runs are skipped (LEASE_HELD) until it expires', {
      warning: summary.warnings?.[0],
    });
    // Only that warning's line: a lease left behind is not a corrupt state.
    expect(warn.mock.calls.map(([message]) => message)).not.toContain('state was corrupt');
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeDefined();

    h.world.s3.clearFaults();
    const next = await reconcile({ mode: 'apply' }, h.ctx() as Context);
    expect(next).toMatchObject({ status: 'skipped', error: { code: 'LEASE_HELD' } });
  });
});
