// Scenario: an emergency fix during a freeze through the reconcile Lambda (real handler, loopback S3 and Secrets
// Manager, the emulator over Digest). A deny window of Settings.changeWindows is open for payments-prod: a manual
// `{"mode": "apply"}` is held there, `{"mode": "apply", "ignoreWindows": true}` writes it (Argo CD's manualSync), and
// says so loudly: the summary and archived report name the override, each target written despite its window has a
// CHANGE WINDOW IGNORED warning, and the log has a WARN line. Under a deployment whose mode is plan the same event is
// refused (no run could write): a flag that lifts nothing is not ignored in silence.
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../lambdas/handlers/summary.ts';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { W } from '../../helpers/emulator-client.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { addLongFreeze, LONG_FREEZE_HOLD } from '../../helpers/long-freeze.ts';
import { captureProcessOutput, jsonLogLines } from '../../helpers/process-output.ts';

// The production level (the stack sets INFO): the lines an operator gets.
process.env.TEST_LOG_LEVEL = 'INFO';

const BY = 'manual event "ignoreWindows": true';

/** The writes the emulator received since its last reset, to payments-prod. */
async function paymentsProdWrites(origin: string): Promise<{ method: string; path: string }[]> {
  const log = (await emulatorAdmin(origin, 'GET', 'requests')) as { entries: { method: string; path: string }[] };
  return log.entries.filter((r) => r.method !== 'GET' && r.path.includes(W.paymentsProd));
}

describe('ignoreWindows in a manual invocation of the reconcile Lambda', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({
    resetEach: true,
    prepare: addLongFreeze,
  });

  it('without it the frozen project is held; with it the project is written, and the run says windows were ignored', async () => {
    let held: Record<string, unknown> & { status: string } = { status: '' };
    const heldRun = await captureProcessOutput(async () => {
      held = await h.reconcile({ mode: 'apply', projects: [W.paymentsProd] }, h.ctx());
    });
    // No override asked, none said: the WARN line is for an event that sets ignoreWindows.
    expect(jsonLogLines(heldRun.text).filter((l) => String(l.message).startsWith('change windows ignored'))).toEqual(
      [],
    );
    expect(held.status, JSON.stringify(held)).toBe('ok');
    expect(held.heldByWindows).toBe(1);
    expect(held.applied).toBe(0);
    expect(held.windowsIgnoredBy).toBeUndefined();
    expect(await paymentsProdWrites(h.world.emulator.origin)).toEqual([]);

    let summary: Record<string, unknown> & { status: string } = { status: '' };
    const { text } = await captureProcessOutput(async () => {
      summary = await h.reconcile({ mode: 'apply', projects: [W.paymentsProd], ignoreWindows: true }, h.ctx());
    });
    expect(summary.status, JSON.stringify(summary)).toBe('ok');
    expect(summary.heldByWindows).toBeUndefined();
    expect(summary.applied).toBeGreaterThan(0);
    expect((await paymentsProdWrites(h.world.emulator.origin)).length).toBeGreaterThan(0);
    expect(summary.windowsIgnoredBy).toBe(BY);
    const warning = `CHANGE WINDOW IGNORED (${BY}): project:${W.paymentsProd} ${LONG_FREEZE_HOLD}; written anyway`;
    expect(summary.warnings).toContain(warning);

    // The archived report records the override too (an audit of the freeze reads it there).
    const reportKey = [...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])].find(
      (k) => k.startsWith('archive/reports/') && k.endsWith(`${summary.runId}.json`),
    );
    expect(reportKey).toBeDefined();
    const report = JSON.parse(h.world.s3.getText(WORLD.dataBucket, reportKey as string) ?? '{}') as {
      windowsIgnoredBy?: string;
      warnings?: string[];
    };
    expect(report.windowsIgnoredBy).toBe(BY);
    expect(report.warnings).toContain(warning);

    const lines = jsonLogLines(text);
    expect(lines.find((l) => l.message === 'change windows ignored by a manual event')).toMatchObject({
      level: 'WARN',
      by: BY,
    });
    expect(lines.find((l) => l.message === 'run starting')).toMatchObject({ command: 'apply', ignoreWindows: BY });
    expect(lines.find((l) => l.message === 'change windows ignored')).toMatchObject({
      level: 'WARN',
      by: BY,
      writtenDespiteWindow: [warning],
    });
    expect(lines.filter((l) => l.message === 'writes held by change window')).toEqual([]);
  });

  it('is refused, before any call, under a deployment whose mode is plan', async () => {
    const saved = process.env.OPSMAN_MODE;
    process.env.OPSMAN_MODE = 'plan';
    let handler: (event: unknown, context: Context) => Promise<RunSummary>;
    try {
      const { createReconcileHandler } = await import('../../../lambdas/handlers/reconcile.ts');
      const { createAppContext } = await import('../../../lambdas/handlers/app-context.ts');
      handler = createReconcileHandler(createAppContext());
    } finally {
      process.env.OPSMAN_MODE = saved;
    }
    const summary = await handler({ ignoreWindows: true }, h.ctx());
    expect(summary).toMatchObject({ status: 'rejected', error: { code: 'INVALID_EVENT' } });
    expect(summary.error?.message).toContain(
      "ignoreWindows cannot be true here: this deployment's mode (OPSMAN_MODE) is plan",
    );
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as { entries: unknown[] };
    expect(log.entries).toEqual([]);
  });
});
