// Scenario: a manual invocation of the reconcile Lambda can lower the run's mode, never raise it. Under a deployment
// whose mode (OPSMAN_MODE) is plan, `{"mode": "apply"}` plans and writes nothing; under an observe deployment a dry run
// observes (a dry run is at most plan, and never more than the deployment). Real handler, loopback S3 and Secrets
// Manager, the emulator.
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Mode } from '../../../lambdas/core/model.ts';
import type { RunSummary } from '../../../lambdas/handlers/summary.ts';
import { emulatorAdmin } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

/** A reconcile handler built under OPSMAN_MODE=`mode` (the world's own handler runs at apply). */
async function handlerUnder(mode: Mode): Promise<(event: unknown, context: Context) => Promise<RunSummary>> {
  const saved = process.env.OPSMAN_MODE;
  process.env.OPSMAN_MODE = mode;
  try {
    const { createReconcileHandler } = await import('../../../lambdas/handlers/reconcile.ts');
    const { createAppContext } = await import('../../../lambdas/handlers/app-context.ts');
    return createReconcileHandler(createAppContext());
  } finally {
    process.env.OPSMAN_MODE = saved;
  }
}

/** The writes the emulator received since its last reset. */
async function writes(origin: string): Promise<unknown[]> {
  const log = (await emulatorAdmin(origin, 'GET', 'requests')) as { entries: { method: string }[] };
  return log.entries.filter((e) => e.method !== 'GET');
}

describe('the mode of a manual invocation is capped by the deployment', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });

  it('"mode": "apply" under a plan deployment plans and writes nothing', async () => {
    const handler = await handlerUnder('plan');
    const summary = await handler({ mode: 'apply' }, h.ctx());
    expect(summary).toMatchObject({ status: 'ok', trigger: 'manual', command: 'plan', mode: 'plan', applied: 0 });
    expect((summary.planned as Record<string, number>).create).toBeGreaterThan(0);
    expect(await writes(h.world.emulator.origin)).toEqual([]);
  });

  it('a dry run under an observe deployment observes, whatever mode the event asks for', async () => {
    const handler = await handlerUnder('observe');
    for (const event of [{ dryRun: true }, { mode: 'apply', dryRun: true }]) {
      const summary = await handler(event, h.ctx());
      expect(summary, JSON.stringify(event)).toMatchObject({ status: 'ok', command: 'observe', mode: 'observe' });
    }
    expect(await writes(h.world.emulator.origin)).toEqual([]);
  });

  it('a dry run without a mode under an apply deployment plans', async () => {
    const summary = await h.reconcile({ dryRun: true }, h.ctx());
    expect(summary).toMatchObject({ status: 'ok', command: 'plan', applied: 0 });
    expect(await writes(h.world.emulator.origin)).toEqual([]);
  });
});
