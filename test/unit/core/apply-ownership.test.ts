// Scenario: apply re-checks ownership against the state it holds. A saved plan is applied without a re-diff, so
// without this check a plan made under another state (another installation, a state since lost or corrupted, a
// hand-edited file) would delete or overwrite alert configs this installation does not own.
import { describe, expect, it } from 'vitest';
import { SavedPlanStateChangedError, StateCorruptError } from '../../../lambdas/core/errors.ts';
import type { Change, Plan } from '../../../lambdas/core/model.ts';
import { ReconcileHarness } from '../../helpers/reconcile-world.ts';
import { DISK_BODY, ownedId, P1, p1Alerts, SECRETS, scenario, setP1 } from './scenario-fixture.ts';

/** A saved plan (JSON round trip) in which `disk` left project 1's git with prune on. */
async function planDeletingDisk(h: ReconcileHarness): Promise<Plan> {
  await h.run('apply');
  setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk') });
  const planned = await h.run('plan');
  expect(planned.plan.changes.filter((c) => c.action === 'delete').map((c) => c.key)).toEqual(['disk']);
  return JSON.parse(JSON.stringify(planned.plan)) as Plan;
}

/** The version of the state `h` holds now (a corrupt one's too). */
async function heldVersion(h: ReconcileHarness): Promise<string | null> {
  try {
    return (await h.state.read()).version;
  } catch (error) {
    if (error instanceof StateCorruptError) return error.version;
    throw error;
  }
}

/**
 * `saved` with the state version `h` holds: such a plan is refused as stale before anything is read (first asserted
 * here), so only a forged version (an in-process caller, or stores whose versions coincide) reaches the ownership
 * re-check these tests are about.
 */
async function forgedForState(h: ReconcileHarness, saved: Plan): Promise<Plan> {
  const writes = h.world.writes().length;
  await expect(h.run('apply', { savedPlan: saved })).rejects.toThrow(SavedPlanStateChangedError);
  expect(h.world.writes().length).toBe(writes);
  return { ...saved, stateVersion: await heldVersion(h) };
}

function deletes(h: ReconcileHarness): number {
  return h.world.writes().filter((w) => w.method === 'deleteAlertConfig').length;
}

describe('apply only writes what the applying state owns', () => {
  it('a saved plan applied by another installation (its own state) deletes nothing it does not own', async () => {
    const a = scenario();
    const saved = await planDeletingDisk(a);
    const disk = ownedId(a, 'disk');
    // Installation B manages the same Ops Manager with its own state store; it never created or adopted `disk`.
    const b = new ReconcileHarness(a.world);
    b.secrets.values = { ...SECRETS };
    b.source.files = new Map(a.source.files);
    const before = deletes(b);
    const report = await b.run('apply', { savedPlan: await forgedForState(b, saved) });
    expect(deletes(b)).toEqual(before);
    expect(a.world.groups.get(P1)?.alerts.has(disk)).toBe(true);
    const result = report.results.find((r) => r.change.key === 'disk');
    expect(result?.status).toBe('failed');
    expect(result?.message).toMatch(/not owned/);
  });

  it('a saved plan applied after the state turned corrupt prunes nothing', async () => {
    const h = scenario();
    const saved = await planDeletingDisk(h);
    const disk = ownedId(h, 'disk');
    h.state.text = '{ this is not json';
    const report = await h.run('apply', { savedPlan: await forgedForState(h, saved) });
    expect(report.warnings?.[0]).toMatch(/STATE WAS CORRUPT/);
    expect(h.world.groups.get(P1)?.alerts.has(disk)).toBe(true);
    expect(report.results.find((r) => r.change.key === 'disk')?.status).toBe('failed');
  });

  it('a hand-edited saved plan cannot delete or overwrite an unmanaged config, nor adopt an owned one', async () => {
    const h = scenario();
    await h.run('apply');
    const planned = await h.run('plan');
    const unmanaged = planned.plan.unmanaged?.[0];
    if (unmanaged === undefined) throw new Error('the scenario seeds one unmanaged alert');
    const target = unmanaged.target;
    const forged: Change[] = [
      { target, kind: 'alertConfig', key: 'intruder', action: 'delete', id: unmanaged.id, fields: [], reason: 'x' },
      {
        target,
        kind: 'alertConfig',
        key: 'intruder-2',
        action: 'disable',
        id: unmanaged.id,
        after: { eventTypeName: 'HOST_DOWN', enabled: false, notifications: [] },
        fields: [],
        reason: 'x',
      },
      {
        target,
        kind: 'alertConfig',
        key: 'intruder-3',
        action: 'adopt',
        id: ownedId(h, 'disk'),
        after: { eventTypeName: 'HOST_DOWN', enabled: true, notifications: [] },
        fields: [],
        reason: 'x',
      },
    ];
    const saved = { ...planned.plan, changes: [...planned.plan.changes, ...forged] };
    const writes = h.world.writes().length;
    const report = await h.run('apply', { savedPlan: JSON.parse(JSON.stringify(saved)) });
    expect(h.world.writes().length).toBe(writes);
    expect(h.world.groups.get(P1)?.alerts.get(unmanaged.id)?.enabled).toBe(true);
    expect(report.results.filter((r) => r.status === 'failed').map((r) => r.change.key)).toEqual([
      'intruder-2',
      'intruder-3',
    ]);
    // Deletes run last (a second wave) and only where no create or update failed: the forged delete never starts.
    expect(report.results.find((r) => r.change.key === 'intruder')).toMatchObject({
      status: 'skipped',
      message: 'not deleted: the disable of "intruder-2" in this project failed (and 1 other write)',
    });
    // Adopting another key's config would give it two owners: `disk` keeps its single owner.
    expect(h.state.state?.projects[P1]?.alertConfigs['intruder-3']).toBeUndefined();
  });

  it('a delete refused in the second wave holds the next one, naming the delete that failed', async () => {
    const h = scenario();
    await h.run('apply');
    const planned = await h.run('plan');
    const unmanaged = planned.plan.unmanaged?.[0];
    if (unmanaged === undefined) throw new Error('the scenario seeds one unmanaged alert');
    const target = unmanaged.target;
    const forged: Change[] = [
      { target, kind: 'alertConfig', key: 'intruder', action: 'delete', id: unmanaged.id, fields: [], reason: 'x' },
      { target, kind: 'alertConfig', key: 'disk', action: 'delete', id: ownedId(h, 'disk'), fields: [], reason: 'x' },
    ];
    const saved = { ...planned.plan, changes: [...planned.plan.changes, ...forged] };
    const report = await h.run('apply', { savedPlan: JSON.parse(JSON.stringify(saved)) });
    expect(report.results.find((r) => r.change.key === 'intruder')).toMatchObject({
      status: 'failed',
      code: 'NOT_OWNED',
    });
    expect(report.results.find((r) => r.change.key === 'disk')).toMatchObject({
      status: 'skipped',
      message: 'not deleted: the delete of "intruder" in this project failed',
    });
    expect(h.world.groups.get(P1)?.alerts.has(ownedId(h, 'disk'))).toBe(true);
  });

  it('an update whose secret cannot be resolved at apply holds the deletes, naming that update', async () => {
    const h = scenario();
    await h.run('apply');
    const [noPrimary] = p1Alerts() as [Record<string, unknown>];
    const notifications = [
      { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 10, delayMin: 0, emailEnabled: true },
    ];
    setP1(h, {
      alertConfigs: [
        { ...noPrimary, notifications: [...notifications, ...(noPrimary.notifications as object[]).slice(1)] },
      ],
    });
    const saved = JSON.parse(JSON.stringify((await h.run('plan')).plan)) as Plan;
    expect(saved.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}`)).toEqual([
      'no-primary:update',
      'disk:delete',
    ]);
    delete h.secrets.values['notify#url'];
    const report = await h.run('apply', { savedPlan: saved });
    expect(report.results.find((r) => r.change.key === 'no-primary')?.status).toBe('failed');
    expect(report.results.find((r) => r.change.key === 'disk')).toMatchObject({
      status: 'skipped',
      message: 'not deleted: the update of "no-primary" in this project failed',
    });
    expect(h.world.groups.get(P1)?.alerts.has(ownedId(h, 'disk'))).toBe(true);
  });

  it('a saved plan made under the same state still deletes its own config', async () => {
    const h = scenario();
    const saved = await planDeletingDisk(h);
    const disk = ownedId(h, 'disk');
    const report = await h.run('apply', { savedPlan: saved });
    expect(report.results.find((r) => r.change.key === 'disk')?.status).toBe('applied');
    expect(h.world.groups.get(P1)?.alerts.has(disk)).toBe(false);
  });
});

describe('a saved plan covers every target it writes', () => {
  it('refuses a plan that writes to a target whose live digest it does not carry (never re-read otherwise)', async () => {
    const h = scenario();
    const saved = await planDeletingDisk(h);
    // Without the digest the freshness check had nothing to compare: a hand edit since the plan went unseen.
    delete saved.liveDigests[`project:${P1}`];
    const writes = h.world.writes().length;
    await expect(h.run('apply', { savedPlan: saved })).rejects.toThrow(
      /writes to payments-prod \(project:5e2211c17a3e5a48f5497de3\) but has no live digest for it/,
    );
    expect(h.world.writes().length).toBe(writes);
  });
});

describe('what a prune of an adopted config says', () => {
  const withoutDisk = () => p1Alerts().filter((a) => a.key !== 'disk');

  it('a config adopted from a human is still pruned (adoption is ownership), and the plan says it was adopted', async () => {
    const h = scenario();
    const human = h.world.seedAlert(P1, DISK_BODY);
    await h.run('apply');
    expect(ownedId(h, 'disk')).toBe(human);
    setP1(h, { alertConfigs: withoutDisk() });
    const planned = await h.run('plan');
    const del = planned.plan.changes.find((c) => c.key === 'disk');
    expect(del?.action).toBe('delete');
    expect(del?.reason).toMatch(/^owned alert config no longer in the desired state; adopted at \S+, not created by/);
  });

  it('a config this tool created, renamed, or recovered after an interrupted create is not called adopted', async () => {
    const h = scenario();
    h.world.faults.push({
      method: 'createAlertConfig',
      groupId: P1,
      phase: 'after',
      error: () => new Error('socket hang up'),
    });
    await h.run('apply');
    const second = await h.run('apply');
    const recovered = second.plan.changes.find((c) => c.action === 'adopt');
    if (recovered === undefined) throw new Error('the interrupted create is recovered by adoption');
    const records = h.state.state?.projects[P1]?.alertConfigs ?? {};
    expect(records[recovered.key]?.createdAt).toBeDefined();
    // Renaming `disk` moves its record: where it came from moves with it.
    const renamed = p1Alerts().map((a) => (a.key === 'disk' ? { ...a, key: 'disk-space' } : a));
    setP1(h, { alertConfigs: renamed });
    await h.run('apply');
    expect(h.state.state?.projects[P1]?.alertConfigs['disk-space']?.createdAt).toBeDefined();
    setP1(h, { alertConfigs: [] });
    const planned = await h.run('plan', { overrides: { allowEmpty: true } });
    const dels = planned.plan.changes.filter((c) => c.action === 'delete');
    expect(dels.map((c) => c.key)).toEqual(['disk-space', 'no-primary']);
    for (const c of dels) expect(c.reason).toBe('owned alert config no longer in the desired state');
  });
});

describe('a prune of a config someone changed since this tool wrote it', () => {
  it('is marked as drift, with who changed it, so the plan shows whose edit the delete discards', async () => {
    const h = scenario();
    await h.run('apply');
    // `disk` left git while prune was off: still owned, no longer managed, and a person took it over in Ops Manager.
    setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk'), prune: false });
    await h.run('apply');
    h.clock.ms += 60_000;
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk'), prune: true });
    const planned = await h.run('plan');
    const del = planned.plan.changes.find((c) => c.key === 'disk');
    expect(del?.action).toBe('delete');
    expect(del?.reason).toMatch(/changed in Ops Manager since this tool last wrote it/);
    expect(del?.drift?.attribution?.[0]).toMatchObject({ actor: 'jdoekey1' });
  });

  it('an untouched owned config is deleted without a drift mark', async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk') });
    const del = (await h.run('plan')).plan.changes.find((c) => c.key === 'disk');
    expect(del?.action).toBe('delete');
    expect(del?.drift).toBeUndefined();
  });
});
