// Scenario: spec.release lets go of an owned alert config without deleting it: planned as a release (not a delete,
// whatever prune, maxDeletes, allowEmpty or a state record's marker, guard or streak say), applied with no API write,
// listed unmanaged from the next run; an entry the state does not own is a note; a saved plan's release is re-checked.
import { describe, expect, it } from 'vitest';
import { StateCorruptError } from '../../../lambdas/core/errors.ts';
import type { Change, Plan } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { renderPlanJson } from '../../../lambdas/core/render/json.ts';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import type { ReconcileHarness } from '../../helpers/reconcile-world.ts';
import { actions, ownedId, P1, P2, p1Alerts, p2Alerts, SECRETS, scenario, setP1, setP2 } from './scenario-fixture.ts';

function records(h: ReconcileHarness): Record<string, OwnedAlertConfig> {
  return h.state.state?.projects[P1]?.alertConfigs ?? {};
}

function change(report: { plan: { changes: Change[] } }, key: string): Change | undefined {
  return report.plan.changes.find((c) => c.key === key);
}

/** Project 1 with `disk` moved from alertConfigs to release (and `extra` on its spec). */
function releaseDisk(h: ReconcileHarness, extra: Record<string, unknown> = {}): void {
  setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk'), release: ['disk'], ...extra });
}

/** Alert config writes of project 1 (every write the fake API saw: POST, PUT, PATCH, DELETE). */
function writesOfP1(h: ReconcileHarness): number {
  return h.world.writes(P1).length;
}

describe('release of an owned alert config', () => {
  it.each([true, false])(
    'with prune %s: planned as a release, applied with no write, unmanaged next run',
    async (prune) => {
      const h = scenario();
      await h.run('apply');
      const disk = ownedId(h, 'disk');
      releaseDisk(h, { prune });
      const writes = writesOfP1(h);
      const report = await h.run('apply');
      expect(actions(report)).toEqual(['disk:release']);
      expect(change(report, 'disk')).toMatchObject({ action: 'release', id: disk });
      expect(change(report, 'disk')?.reason).toMatch(/^released \(spec\.release\): left in Ops Manager as it is/);
      expect(report.summary.planned.release).toBe(1);
      expect(report.summary.planned.delete).toBe(0);
      expect(report.results.find((r) => r.change.key === 'disk')).toMatchObject({ status: 'applied', id: disk });
      expect(writesOfP1(h)).toBe(writes);
      expect(h.world.groups.get(P1)?.alerts.has(disk)).toBe(true);
      expect(records(h).disk).toBeUndefined();
      // The next plan: nothing to do, and the config is one of the unmanaged ones (never adopted back, never deleted).
      const next = await h.run('plan');
      expect(actions(next)).toEqual([]);
      expect(next.plan.unmanaged?.map((u) => u.id)).toContain(disk);
      expect(next.plan.notes).toEqual([
        'project payments-prod: released key "disk" is not owned by this state (already released, or never managed): nothing to release; the entry can be removed from spec.release',
      ]);
    },
  );

  it('is counted by no prune gate: maxDeletes 0 and an empty desired set release every key', async () => {
    const h = scenario({}, {}, { prune: { maxDeletes: 0, allowEmpty: false } });
    await h.run('apply');
    const ids = [ownedId(h, 'disk'), ownedId(h, 'no-primary')];
    setP1(h, { alertConfigs: [], release: ['disk', 'no-primary'] });
    const report = await h.run('apply');
    expect(actions(report)).toEqual(['disk:release', 'no-primary:release']);
    expect(records(h)).toEqual({});
    for (const id of ids) expect(h.world.groups.get(P1)?.alerts.has(id)).toBe(true);
  });

  it('is not claimed by a new key with an equal body in the same commit (no rename): the new key is created', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    const copy = { ...(p1Alerts().find((a) => a.key === 'disk') as Record<string, unknown>), key: 'disk-new' };
    setP1(h, { alertConfigs: [...p1Alerts().filter((a) => a.key !== 'disk'), copy], release: ['disk'] });
    const report = await h.run('plan');
    expect(actions(report)).toEqual(['disk-new:create', 'disk:release']);
    expect(change(report, 'disk-new')?.movedFrom).toBeUndefined();
    expect(change(report, 'disk')?.id).toBe(disk);
  });

  it('forgets the non-convergence guard and the drift streak with the record', async () => {
    const h = scenario();
    await h.run('apply');
    const held = h.state.state;
    if (held === null) throw new Error('no state');
    const record = held.projects[P1]?.alertConfigs.disk as OwnedAlertConfig;
    record.notConverging = { since: '2026-01-01T00:00:00.000Z', desiredDigest: 'x', fields: ['enabled'] };
    (held.projects[P1] as { driftStreaks?: unknown }).driftStreaks = {
      'alertConfig:disk': { runs: 2, since: '2026-01-01T00:00:00.000Z', actors: ['user:bob'], fields: ['enabled'] },
    };
    releaseDisk(h);
    await h.run('apply');
    expect(records(h).disk).toBeUndefined();
    expect(h.state.state?.projects[P1]?.driftStreaks).toBeUndefined();
  });

  it('of a config already gone from Ops Manager forgets only the record (no re-create, no write)', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    h.world.groups.get(P1)?.alerts.delete(disk);
    releaseDisk(h);
    const writes = writesOfP1(h);
    const report = await h.run('apply');
    expect(actions(report)).toEqual(['disk:release']);
    expect(change(report, 'disk')).toMatchObject({ action: 'release', id: disk });
    expect(change(report, 'disk')?.before).toBeUndefined();
    expect(change(report, 'disk')?.reason).toBe(
      `released (spec.release): its config ${disk} is no longer in Ops Manager; only its state record is forgotten`,
    );
    expect(writesOfP1(h)).toBe(writes);
    expect(records(h).disk).toBeUndefined();
  });

  it('in plan mode (or a plan run) is shown and not applied: the record stays', async () => {
    const h = scenario();
    await h.run('apply');
    releaseDisk(h, { mode: 'plan' });
    const report = await h.run('apply');
    expect(change(report, 'disk')?.action).toBe('release');
    expect(report.results.find((r) => r.change.key === 'disk')?.status).toBe('skipped');
    expect(records(h).disk?.id).toBeDefined();
  });

  it('in observe mode stays a release (no drift counted), and is not applied', async () => {
    const h = scenario();
    await h.run('apply');
    releaseDisk(h, { mode: 'observe' });
    const report = await h.run('apply');
    expect(change(report, 'disk')?.action).toBe('release');
    expect(report.summary.drift).toBe(0);
    expect(records(h).disk?.id).toBeDefined();
  });
});

describe('release of a pending create', () => {
  it('forgets the marker; the config the lost create made late stays unmanaged, even with prune on', async () => {
    const h = scenario();
    await h.run('apply');
    const before = new Set(h.world.groups.get(P1)?.alerts.keys());
    const late = {
      key: 'late',
      eventTypeName: 'HOST_DOWN',
      notifications: [{ typeName: 'EMAIL', emailAddress: 'late@acme.example', intervalMin: 60, delayMin: 0 }],
    };
    setP1(h, { alertConfigs: [...p1Alerts(), late] });
    h.world.faults.push({
      method: 'createAlertConfig',
      groupId: P1,
      phase: 'after',
      error: () => new Error('socket hang up'),
    });
    await h.run('apply');
    expect(records(h).late?.pendingCreate).toBeDefined();
    const created = [...(h.world.groups.get(P1)?.alerts.keys() ?? [])].filter((id) => !before.has(id));
    expect(created.length).toBe(1);
    setP1(h, { alertConfigs: p1Alerts(), release: ['late'] });
    const writes = writesOfP1(h);
    const report = await h.run('apply');
    const c = change(report, 'late');
    expect(c?.action).toBe('release');
    expect(c?.id).toBeUndefined();
    expect(c?.reason).toMatch(/only the marker of a create whose answer was lost \(run run-2/);
    expect(actions(report)).toEqual(['late:release']);
    expect(writesOfP1(h)).toBe(writes);
    expect(records(h).late).toBeUndefined();
    expect(h.world.groups.get(P1)?.alerts.has(created[0] as string)).toBe(true);
    const next = await h.run('plan');
    expect(actions(next)).toEqual([]);
    expect(next.plan.unmanaged?.map((u) => u.id)).toContain(created[0]);
  });
});

describe('rendering a release', () => {
  it('text and Markdown show `=>` with the count, never a `-` delete', async () => {
    const h = scenario();
    await h.run('apply');
    releaseDisk(h);
    const { plan } = await h.run('plan');
    const text = renderPlanText(plan);
    expect(text).toMatch(/^ {2}=> alertConfig "disk" \(id [0-9a-f]{24}\)$/m);
    expect(text).not.toMatch(/^ {2}- alertConfig "disk"/m);
    expect(text).toContain('Plan: 0 to create, 0 to update, 0 to delete, 1 to release, 0 to adopt,');
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain('| Target | Create | Update | Delete | Release | Adopt |');
    expect(markdown).toContain('=> alertConfig "disk"');
    expect(markdown).toContain('1 to release');
  });
});

describe('a saved plan with a release', () => {
  /** The version of the state `h` holds now. */
  async function heldVersion(h: ReconcileHarness): Promise<string | null> {
    try {
      return (await h.state.read()).version;
    } catch (error) {
      if (error instanceof StateCorruptError) return error.version;
      throw error;
    }
  }

  it('applies when the state is the one it was made against', async () => {
    const h = scenario();
    await h.run('apply');
    releaseDisk(h);
    const saved = JSON.parse(JSON.stringify((await h.run('plan')).plan)) as Plan;
    const report = await h.run('apply', { savedPlan: saved });
    expect(report.results.find((r) => r.change.key === 'disk')?.status).toBe('applied');
    expect(records(h).disk).toBeUndefined();
  });

  it('is refused when the applying state has the key own another config: nothing forgotten, nothing written', async () => {
    const h = scenario();
    await h.run('apply');
    releaseDisk(h);
    const saved = JSON.parse(JSON.stringify((await h.run('plan')).plan)) as Plan;
    // The state now records another id for `disk` (another installation's state, a hand edit): a forged plan with
    // its version reaches the ownership re-check (a real one is refused first as made against another state).
    const held = await h.state.read();
    const state = structuredClone(held.state);
    const record = state?.projects[P1]?.alertConfigs.disk;
    if (state === null || record === undefined) throw new Error('no disk record');
    record.id = '6c01000000000000000000ff';
    await h.state.write(state, held.version);
    const writes = writesOfP1(h);
    const report = await h.run('apply', { savedPlan: { ...saved, stateVersion: await heldVersion(h) } });
    const result = report.results.find((r) => r.change.key === 'disk');
    expect(result?.status).toBe('failed');
    expect(result?.code).toBe('NOT_OWNED');
    expect(result?.message).toBe(
      `not released: key "disk" owns alert config 6c01000000000000000000ff in this state, not alert config ${change({ plan: saved }, 'disk')?.id} as the plan says; make a new plan`,
    );
    expect(records(h).disk?.id).toBe('6c01000000000000000000ff');
    expect(writesOfP1(h)).toBe(writes);
  });

  // Review finding: the held delete said "an earlier create or update of this project failed" when neither had run;
  // the write that failed was the release, and the message now names it.
  it("refused, it holds the project's deletes back, naming the release that failed", async () => {
    const h = scenario();
    const extra = {
      key: 'extra',
      eventTypeName: 'HOST_DOWN',
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
    };
    setP1(h, { alertConfigs: [...p1Alerts(), extra] });
    await h.run('apply');
    const noPrimary = ownedId(h, 'no-primary');
    setP1(h, { alertConfigs: [extra], release: ['disk'] });
    const saved = JSON.parse(JSON.stringify((await h.run('plan')).plan)) as Plan;
    expect(actions({ plan: saved }).sort()).toEqual(['disk:release', 'no-primary:delete']);
    const held = await h.state.read();
    const state = structuredClone(held.state);
    const record = state?.projects[P1]?.alertConfigs.disk;
    if (state === null || record === undefined) throw new Error('no disk record');
    record.id = '6c01000000000000000000ff';
    await h.state.write(state, held.version);
    const report = await h.run('apply', { savedPlan: { ...saved, stateVersion: await heldVersion(h) } });
    expect(report.results.find((r) => r.change.key === 'disk')).toMatchObject({ status: 'failed', code: 'NOT_OWNED' });
    expect(report.results.find((r) => r.change.key === 'no-primary')).toMatchObject({
      status: 'skipped',
      message: 'not deleted: the release of "disk" in this project failed',
    });
    expect(h.world.groups.get(P1)?.alerts.has(noPrimary)).toBe(true);
  });
});

// Found by review: what the plan tells a user about a release, and about the ways out a release gives.
describe('what the plan says around a release', () => {
  it('a released config is taken over again by any desired key equal to it, as its reason says', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    releaseDisk(h);
    const released = await h.run('apply');
    expect(change(released, 'disk')?.reason).toBe(
      'released (spec.release): left in Ops Manager as it is and no longer managed; from the next run it is listed as unmanaged, taken over again only by adoption (a desired key equal to it in every non-secret field: its own back in alertConfigs, or another)',
    );
    // Not only its own key: another key with the same body adopts it (the old reason said only its key returning).
    const copy = { ...(p1Alerts().find((a) => a.key === 'disk') as Record<string, unknown>), key: 'disk-copy' };
    setP1(h, { alertConfigs: [...p1Alerts().filter((a) => a.key !== 'disk'), copy], release: ['disk'] });
    const next = await h.run('plan');
    expect(change(next, 'disk-copy')).toMatchObject({ action: 'adopt', id: disk });
  });

  it('its key back in git with a different body is a create: a second config beside the released one, as documented', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    releaseDisk(h);
    await h.run('apply');
    setP1(h, { alertConfigs: p1Alerts().map((a) => (a.key === 'disk' ? { ...a, enabled: false } : a)) });
    const report = await h.run('apply');
    expect(actions(report)).toEqual(['disk:create']);
    expect(ownedId(h, 'disk')).not.toBe(disk);
    expect(h.world.groups.get(P1)?.alerts.has(disk)).toBe(true);
    expect((await h.run('plan')).plan.unmanaged?.map((u) => u.id)).toContain(disk);
  });

  it('with a corrupt state, a released key is noted as unknown, not as already released or never managed', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    releaseDisk(h);
    h.state.text = '{"formatVersion": 1, "projects": [torn';
    const report = await h.run('apply');
    expect(actions(report)).not.toContain('disk:release');
    expect(report.plan.notes).toEqual([
      'project payments-prod: released key "disk": the state was unreadable (corrupt), so what it owned is unknown this run: nothing to release; a config it owned stays in Ops Manager unmanaged, as a release leaves it',
    ]);
    // As the note says: left in Ops Manager and unmanaged from then on.
    expect(h.world.groups.get(P1)?.alerts.has(disk)).toBe(true);
    expect((await h.run('plan')).plan.unmanaged?.map((u) => u.id)).toContain(disk);
  });

  it('prune off: the blocked delete of a key that left git names spec.release as the way out that keeps the config', async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'disk'), prune: false });
    const blocked = change(await h.run('plan'), 'disk');
    expect(blocked?.action).toBe('blocked');
    expect(blocked?.reason).toBe(
      'prune is off for project payments-prod: would delete 1 owned alert config(s) that left git (set spec.prune: true in its Project document to delete them, or list their keys in spec.release to stop managing them without deleting)',
    );
  });

  it('a project file removed from git: the warning gives the release way out, and following it ends the warning and keeps the configs', async () => {
    const h = scenario();
    await h.run('apply');
    const ids = [ownedId(h, 'disk'), ownedId(h, 'no-primary')];
    h.source.files.delete('p1.yaml');
    const [warning] = (await h.run('plan')).warnings ?? [];
    expect(warning).toMatch(
      /; to keep them but stop managing them \(and this warning\), restore its file with no alertConfigs or alertTemplates and their keys in spec\.release, apply, then remove the file$/,
    );
    setP1(h, { alertConfigs: [], release: ['disk', 'no-primary'] });
    const released = await h.run('apply');
    expect(actions(released)).toEqual(['disk:release', 'no-primary:release']);
    h.source.files.delete('p1.yaml');
    const after = await h.run('apply');
    expect(after.warnings).toBeUndefined();
    for (const id of ids) expect(h.world.groups.get(P1)?.alerts.has(id)).toBe(true);
  });
});

// Pins of what the review found sound (they pass without any change; they keep it so).
describe('a release, checked around its edges', () => {
  it("of a config with webhook secrets: `before` shows them as (secret), and no secret value is in the plan's JSON or text", async () => {
    const h = scenario();
    await h.run('apply');
    setP1(h, { alertConfigs: p1Alerts().filter((a) => a.key !== 'no-primary'), release: ['no-primary'] });
    const { plan } = await h.run('plan');
    const before = change({ plan }, 'no-primary')?.before as { notifications?: Record<string, unknown>[] } | undefined;
    const webhook = before?.notifications?.[1];
    expect(webhook).toMatchObject({ typeName: 'WEBHOOK', webhookUrl: '(secret)', webhookSecret: '(secret)' });
    for (const value of Object.values(SECRETS)) {
      expect(renderPlanJson(plan)).not.toContain(value);
      expect(renderPlanText(plan)).not.toContain(value);
      expect(renderPlanMarkdown(plan)).not.toContain(value);
    }
  });

  it('is per project: a key released in one project and declared in another is released there and created here', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    releaseDisk(h);
    setP2(h, { alertConfigs: [...p2Alerts(), p1Alerts().find((a) => a.key === 'disk') as Record<string, unknown>] });
    const report = await h.run('apply');
    expect(report.plan.changes.filter((c) => c.key === 'disk').map((c) => [c.target.id, c.action])).toEqual([
      [P1, 'release'],
      [P2, 'create'],
    ]);
    expect(records(h).disk).toBeUndefined();
    expect(ownedId(h, 'disk', P2)).not.toBe(disk);
    expect(h.world.groups.get(P1)?.alerts.has(disk)).toBe(true);
  });

  it('with --project naming another project: nothing is released, nor noted, and the record stays', async () => {
    const h = scenario();
    await h.run('apply');
    releaseDisk(h);
    const report = await h.run('apply', { projects: [P2] });
    expect(report.plan.changes.some((c) => c.action === 'release')).toBe(false);
    // The one note is the run's own: it covers only the projects asked for.
    expect(report.plan.notes).toHaveLength(1);
    expect(report.plan.notes?.[0]).toMatch(/^this run covers only 1 project of 2 /);
    expect(records(h).disk?.id).toBeDefined();
  });
});
