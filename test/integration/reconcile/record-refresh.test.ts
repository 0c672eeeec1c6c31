import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Change, RunReport } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { EmulatorWorld, PROJECTS } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

const PROD = PROJECTS.paymentsProd;
const KEY = 'host-ssl-certificate-stale';

// What the next run reads back must pass the state's shape check (EmulatorWorld.storedState).
const storedState = () => world.storedState();

async function record(): Promise<OwnedAlertConfig> {
  return (await storedState()).projects[PROD]?.alertConfigs[KEY] as OwnedAlertConfig;
}

function changeOf(report: RunReport): Change | undefined {
  return report.plan.changes.find((c) => c.target.id === PROD && c.key === KEY);
}

/** The config's `enabled` set by the other key (jdoekey1), as a person in the Ops Manager UI would. */
async function personSets(enabled: boolean): Promise<void> {
  await world.client('jdoekey1').setAlertConfigEnabled(PROD, (await record()).id as string, enabled);
}

/** Git: the config disabled (`enabled: false` added to its entry). */
async function gitDisables(): Promise<void> {
  await world.editDesired('projects/payments.yaml', (text) =>
    text.replace(
      `    - key: ${KEY}\n      eventTypeName: HOST_SSL_CERTIFICATE_STALE\n`,
      `    - key: ${KEY}\n      eventTypeName: HOST_SSL_CERTIFICATE_STALE\n      enabled: false\n`,
    ),
  );
}

/** The apply after the person put `enabled` back to true reports a drift by jdoekey1 and reverts it. */
async function expectDriftReverted(): Promise<void> {
  await personSets(true);
  const applied = await world.run('apply');
  const change = changeOf(applied);
  expect(change?.action).toBe('disable');
  expect(change?.drift?.detected).toBe(true);
  expect(change?.drift?.attribution?.map((a) => a.actor)).toContain('jdoekey1');
  expect(applied.results.find((r) => r.change.key === KEY && r.change.target.id === PROD)?.status).toBe('applied');
  // The revert is the first run of an update fight: its streak is counted.
  expect((await storedState()).projects[PROD]?.driftStreaks?.[`alertConfig:${KEY}`]).toMatchObject({
    runs: 1,
    actors: ['apiKey:jdoekey1'],
    fields: ['enabled'],
  });
}

describe('a record that fell behind a config in sync', () => {
  it('is brought up to date after a PATCH that landed but whose answer was lost', async () => {
    await world.run('apply');
    const before = await record();
    await gitDisables();
    // Every attempt's PATCH is applied by the server, then its connection is reset: the run cannot tell it landed.
    await world.admin('POST', 'faults', {
      method: 'PATCH',
      path: '/groups/*/alertConfigs/*',
      reset: true,
      phase: 'after',
      times: 20,
    });
    const failed = await world.run('apply');
    expect(failed.results.find((r) => r.change.key === KEY && r.change.target.id === PROD)?.status).toBe('failed');
    await world.admin('DELETE', 'faults');
    expect((await record()).appliedDigest).toBe(before.appliedDigest);

    // The plan finds it in sync and saves nothing; the apply finds it in sync and refreshes the record, writing nothing.
    const plan = await world.run('plan');
    expect(changeOf(plan)).toMatchObject({ action: 'noop', reason: 'in sync' });
    expect(changeOf(plan)?.after).toBeUndefined();
    expect((await record()).appliedDigest).toBe(before.appliedDigest);
    await world.admin('DELETE', 'requests');
    const quiet = await world.run('apply');
    expect(changeOf(quiet)).toMatchObject({ action: 'noop', reason: 'in sync' });
    expect(await world.writes()).toEqual([]);
    const refreshed = await record();
    expect(refreshed.appliedDigest).not.toBe(before.appliedDigest);
    expect(refreshed.fingerprint).not.toBe(before.fingerprint);
    expect({ id: refreshed.id, createdAt: refreshed.createdAt }).toEqual({
      id: before.id,
      createdAt: before.createdAt,
    });

    // The next apply finds the record current: nothing more to refresh.
    const again = await world.run('apply');
    expect(changeOf(again)?.after).toBeUndefined();
    expect(await record()).toEqual(refreshed);

    await expectDriftReverted();
  });

  it('is brought up to date when a person made the edit that was then committed to git', async () => {
    await world.run('apply');
    await personSets(false);
    await gitDisables();
    const inSync = await world.run('apply');
    expect(changeOf(inSync)).toMatchObject({ action: 'noop', reason: 'in sync' });
    await expectDriftReverted();
  });

  it('is brought up to date by applying a plan made to be applied (plan --out, an interactive apply), not by a plain plan', async () => {
    await world.run('apply');
    const before = await record();
    await personSets(false);
    await gitDisables();
    const plain = await world.run('plan');
    expect(changeOf(plain)?.after).toBeUndefined();
    const toApply = await world.run('plan', { planForApply: true });
    expect(changeOf(toApply)).toMatchObject({ action: 'noop', reason: 'in sync', after: { enabled: false } });
    expect(await record()).toEqual(before);
    await world.admin('DELETE', 'requests');
    const applied = await world.run('apply', { savedPlan: toApply.plan });
    expect(applied.failures).toEqual([]);
    expect(await world.writes()).toEqual([]);
    expect((await record()).appliedDigest).not.toBe(before.appliedDigest);
    await expectDriftReverted();
  });

  it('drops a member taken out of ignoreFields while in sync, so a later edit of it is drift again', async () => {
    const withIgnore = (text: string) =>
      text.replace(
        `    - key: ${KEY}\n      eventTypeName: HOST_SSL_CERTIFICATE_STALE\n`,
        `    - key: ${KEY}\n      eventTypeName: HOST_SSL_CERTIFICATE_STALE\n      enabled: false\n      ignoreFields: [enabled]\n`,
      );
    await world.editDesired('projects/payments.yaml', withIgnore);
    await world.run('apply');
    expect((await record()).ignoredFields).toEqual(['enabled']);
    // The list shrinks; the live value (false, as created) equals git's.
    await world.editDesired('projects/payments.yaml', (text) => text.replace('      ignoreFields: [enabled]\n', ''));
    const inSync = await world.run('apply');
    expect(changeOf(inSync)).toMatchObject({ action: 'noop', reason: 'in sync' });
    expect((await record()).ignoredFields).toBeUndefined();
    await expectDriftReverted();
  });

  it('is left as it is in a target whose mode keeps it unwritten', async () => {
    await world.run('apply');
    const before = await record();
    await personSets(false);
    await gitDisables();
    await world.editDesired('projects/payments.yaml', (text) => text.replace('  mode: apply\n', '  mode: plan\n'));
    const applied = await world.run('apply');
    expect(changeOf(applied)).toMatchObject({ action: 'noop', reason: 'in sync' });
    expect(await record()).toEqual(before);
  });
});
