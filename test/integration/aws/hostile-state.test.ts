// Scenario: the reconcile handler over a state object in S3 that it cannot use: one written by a newer version is
// refused untouched with nothing written to Ops Manager; a malformed one deep inside (organizations, alert records) is
// reported corrupt before any write, recovered by adoption and replaced, instead of failing with a TypeError mid-apply.
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

const STATE_KEY = 'state/state.json';

describe('the reconcile handler over an unusable state object', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const ctx = () => h.ctx();
  const writes = async () => {
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as { entries: { method: string }[] };
    return log.entries.filter((e) => e.method !== 'GET').length;
  };

  it('a state of a newer format version: the run fails STATE_TOO_NEW, writes nothing and leaves the state as it is', async () => {
    const newer = JSON.stringify({ formatVersion: 2, updatedAt: 'x', projects: {}, owners: { added: 'in v2' } });
    h.world.s3.putDirect(WORLD.dataBucket, STATE_KEY, newer);
    const summary = await h.reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({
      status: 'failed',
      error: {
        code: 'STATE_TOO_NEW',
        message: `state s3://${WORLD.dataBucket}/${STATE_KEY} has formatVersion 2; this version reads formatVersion 1: deploy the version that wrote it (the state is left as it is)`,
        retryable: false,
      },
    });
    expect(h.world.s3.getText(WORLD.dataBucket, STATE_KEY)).toBe(newer);
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    expect(await writes()).toBe(0);
  });

  it.each([
    ['organizations a number', { organizations: 5 }],
    ['an organization null', { organizations: { '5e2211c17a3e5a48f5497de0': null } }],
    ['singleton digests a list', { organizations: { '5e2211c17a3e5a48f5497de0': { singletons: [] } } }],
    ['an alert record null', { projects: { '5e2211c17a3e5a48f5497de3': { alertConfigs: { 'no-primary': null } } } }],
  ])('a state with %s: reported corrupt, the apply completes and the state is replaced', async (_name, fields) => {
    h.world.s3.putDirect(
      WORLD.dataBucket,
      STATE_KEY,
      JSON.stringify({ formatVersion: 1, updatedAt: 'x', projects: {}, ...fields }),
    );
    const summary = await h.reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({ status: 'ok', failed: 0 });
    expect(summary.applied).toBeGreaterThan(0);
    const state = JSON.parse(h.world.s3.getText(WORLD.dataBucket, STATE_KEY) ?? '{}') as {
      organizations?: Record<string, { singletons?: Record<string, string> }>;
    };
    expect(typeof state.organizations).toBe('object');
    for (const org of Object.values(state.organizations ?? {})) expect(Array.isArray(org.singletons)).toBe(false);
    const again = await h.reconcile({ mode: 'apply' }, ctx());
    expect(again).toMatchObject({ status: 'ok', applied: 0, failed: 0 });
  });
});
