// Scenario: the reconcile Lambda near its time limit (a context with 8 s left, writes answered in 1 s): it stops
// starting writes 2 s before the limit, finishes those in flight, saves the state in S3 without stale create markers,
// releases the S3 lease and reports 'partial' with what it left; the next invocation writes the rest, no duplicate.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { type AwsWorld, emulatorAdmin, fakeLambdaContext, startAwsWorld, WORLD } from '../../helpers/aws-world.ts';

type Handler = (event: unknown, context: Context) => Promise<Record<string, unknown> & { status: string }>;

describe('the reconcile handler near its time limit', { timeout: 60_000 }, () => {
  let world: AwsWorld;
  let reconcile: Handler;
  const saved = { ...process.env };

  beforeAll(async () => {
    world = await startAwsWorld({ mode: 'apply' });
    Object.assign(process.env, world.env);
    reconcile = (await import('../../../lambdas/handlers/reconcile.ts')).handler as unknown as Handler;
  });
  afterAll(async () => {
    process.env = saved;
    await world?.close();
  });

  it('stops starting writes, saves state, releases the lease; the next invocation finishes', async () => {
    await emulatorAdmin(world.emulator.origin, 'POST', 'faults', {
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
    const first = await reconcile({ mode: 'apply' }, short);
    await emulatorAdmin(world.emulator.origin, 'DELETE', 'faults');

    expect(first.status).toBe('partial');
    const interrupted = first.interrupted as { reason: string; notStarted: number };
    expect(interrupted.reason).toBe("the Lambda's time limit is 2 s away");
    expect(interrupted.notStarted).toBeGreaterThan(0);
    expect(first.failed).toBe(0);
    expect(world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    const state = JSON.parse(world.s3.getText(WORLD.dataBucket, 'state/state.json') ?? '{}') as ReconcileState;
    const records = Object.values(state.projects).flatMap((p) => Object.values(p.alertConfigs));
    expect(records.filter((r) => r.pendingCreate !== undefined)).toEqual([]);

    const second = await reconcile({ mode: 'apply' }, fakeLambdaContext('req-next') as unknown as Context);
    expect(second).toMatchObject({ status: 'ok', failed: 0 });
    expect(second.interrupted).toBeUndefined();
    const log = (await emulatorAdmin(world.emulator.origin, 'GET', 'requests')) as { byRoute: Record<string, number> };
    // Every create of the first plan was sent exactly once over the two invocations.
    expect(log.byRoute['POST /groups/{groupId}/alertConfigs']).toBe(
      (first.planned as Record<string, number> | undefined)?.create,
    );
  });
});
