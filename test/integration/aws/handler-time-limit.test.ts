// Scenario: the reconcile Lambda near its time limit (a context with 8 s left, writes answered in 1 s): it stops
// starting writes 2 s before the limit, finishes those in flight, saves the state in S3 without stale create markers,
// releases the S3 lease and reports 'partial' with what it left; the next invocation writes the rest, no duplicate.
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { emulatorAdmin, fakeLambdaContext, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { captureProcessOutput, jsonLogLines } from '../../helpers/process-output.ts';

// The lines an operator filters on (WARN and above), not the test default (ERROR).
process.env.TEST_LOG_LEVEL = 'WARN';

describe('the reconcile handler near its time limit', { timeout: 60_000 }, () => {
  const h = useHandlerWorld();

  it('stops starting writes, saves state, releases the lease; the next invocation finishes', async () => {
    await emulatorAdmin(h.world.emulator.origin, 'POST', 'faults', {
      method: 'POST',
      path: '/groups/*/alertConfigs',
      latencyMs: 1_000,
      times: 1_000,
    });
    const started = Date.now();
    const short = {
      ...fakeLambdaContext('req-short'),
      getRemainingTimeInMillis: () => 8_000 - (Date.now() - started),
    } as unknown as Context;
    const captured = await captureProcessOutput(() => h.reconcile({ mode: 'apply' }, short));
    await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'faults');
    const first = captured.result as Record<string, unknown> & { status: string };

    expect(first.status).toBe('partial');
    const interrupted = first.interrupted as { reason: string; notStarted: number };
    expect(interrupted.reason).toBe("the Lambda's time limit is 2 s away");
    expect(interrupted.notStarted).toBeGreaterThan(0);
    // One WARN line says it, with the way out (the summary is an INFO line a level filter leaves out).
    const lines = jsonLogLines(captured.text).filter((l) => l.message === 'run interrupted');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'WARN', code: 'INTERRUPTED', ...interrupted });
    expect(lines[0]?.runId).toBe(first.runId);
    expect(lines[0]?.nextStep).toMatch(/reconcileTimeoutMinutes/);
    expect(first.failed).toBe(0);
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    const state = JSON.parse(h.world.s3.getText(WORLD.dataBucket, 'state/state.json') ?? '{}') as ReconcileState;
    const records = Object.values(state.projects).flatMap((p) => Object.values(p.alertConfigs));
    expect(records.filter((r) => r.pendingCreate !== undefined)).toEqual([]);

    const second = await h.reconcile({ mode: 'apply' }, fakeLambdaContext('req-next') as unknown as Context);
    expect(second).toMatchObject({ status: 'ok', failed: 0 });
    expect(second.interrupted).toBeUndefined();
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as {
      byRoute: Record<string, number>;
    };
    // Every create of the first plan was sent exactly once over the two invocations.
    expect(log.byRoute['POST /groups/{groupId}/alertConfigs']).toBe(
      (first.planned as Record<string, number> | undefined)?.create,
    );
  });
});
