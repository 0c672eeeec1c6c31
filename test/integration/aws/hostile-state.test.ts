// Scenario: the reconcile handler over a state object in S3 that it cannot use: one written by a newer version is
// refused untouched with nothing written to Ops Manager; a malformed one deep inside (organizations, alert records) is
// reported corrupt before any write, recovered by adoption and replaced, instead of failing with a TypeError mid-apply.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AwsWorld, emulatorAdmin, fakeLambdaContext, startAwsWorld, WORLD } from '../../helpers/aws-world.ts';

type Handler = (event: unknown, context: Context) => Promise<Record<string, unknown> & { status: string }>;

const STATE_KEY = 'state/state.json';

describe('the reconcile handler over an unusable state object', { timeout: 60_000 }, () => {
  let world: AwsWorld;
  let reconcile: Handler;
  const saved = { ...process.env };
  let n = 0;
  const ctx = () => fakeLambdaContext(`req-${++n}`) as unknown as Context;
  const writes = async () => {
    const log = (await emulatorAdmin(world.emulator.origin, 'GET', 'requests')) as { entries: { method: string }[] };
    return log.entries.filter((e) => e.method !== 'GET').length;
  };

  beforeAll(async () => {
    world = await startAwsWorld({ mode: 'apply' });
    Object.assign(process.env, world.env);
    reconcile = (await import('../../../lambdas/handlers/reconcile.ts')).handler as unknown as Handler;
  });
  afterAll(async () => {
    process.env = saved;
    await world?.close();
  });
  beforeEach(async () => {
    await emulatorAdmin(world.emulator.origin, 'POST', 'reset');
    world.s3.buckets.get(WORLD.dataBucket)?.clear();
  });

  it('a state of a newer format version: the run fails STATE_TOO_NEW, writes nothing and leaves the state as it is', async () => {
    const newer = JSON.stringify({ formatVersion: 2, updatedAt: 'x', projects: {}, owners: { added: 'in v2' } });
    world.s3.putDirect(WORLD.dataBucket, STATE_KEY, newer);
    const summary = await reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({
      status: 'failed',
      error: {
        code: 'STATE_TOO_NEW',
        message: `state s3://${WORLD.dataBucket}/${STATE_KEY} has formatVersion 2; this version reads formatVersion 1: deploy the version that wrote it (the state is left as it is)`,
        retryable: false,
      },
    });
    expect(world.s3.getText(WORLD.dataBucket, STATE_KEY)).toBe(newer);
    expect(world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    expect(await writes()).toBe(0);
  });

  it.each([
    ['organizations a number', { organizations: 5 }],
    ['an organization null', { organizations: { '5e2211c17a3e5a48f5497de0': null } }],
    ['singleton digests a list', { organizations: { '5e2211c17a3e5a48f5497de0': { singletons: [] } } }],
    ['an alert record null', { projects: { '5e2211c17a3e5a48f5497de3': { alertConfigs: { 'no-primary': null } } } }],
  ])('a state with %s: reported corrupt, the apply completes and the state is replaced', async (_name, fields) => {
    world.s3.putDirect(
      WORLD.dataBucket,
      STATE_KEY,
      JSON.stringify({ formatVersion: 1, updatedAt: 'x', projects: {}, ...fields }),
    );
    const summary = await reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({ status: 'ok', failed: 0 });
    expect(summary.applied).toBeGreaterThan(0);
    const state = JSON.parse(world.s3.getText(WORLD.dataBucket, STATE_KEY) ?? '{}') as {
      organizations?: Record<string, { singletons?: Record<string, string> }>;
    };
    expect(typeof state.organizations).toBe('object');
    for (const org of Object.values(state.organizations ?? {})) expect(Array.isArray(org.singletons)).toBe(false);
    const again = await reconcile({ mode: 'apply' }, ctx());
    expect(again).toMatchObject({ status: 'ok', applied: 0, failed: 0 });
  });
});
