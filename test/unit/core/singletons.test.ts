// Scenario: default server types and audit-log rotation: written when they differ (rotation only with enforce), drift attributed from events.
import { describe, expect, it } from 'vitest';
import { settingsYaml } from '../../helpers/reconcile-world.ts';
import { ORG, P1, scenario, setP1 } from './scenario-fixture.ts';

function orgYaml(serverType: string): string {
  return `apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata: {name: acme, orgId: ${ORG}}\nspec: {defaultServerType: ${serverType}}\n`;
}

describe('singletons', () => {
  it('sets project and organization server types, then reports a hand change as drift with its author', async () => {
    const h = scenario({ defaultServerType: 'PRODUCTION_SERVER' });
    h.source.files.set('org.yaml', orgYaml('TEST_SERVER'));
    const first = await h.run('apply');
    expect(
      first.plan.changes.filter((c) => c.kind === 'defaultServerType').map((c) => `${c.target.type}:${c.action}`),
    ).toEqual(['project:update', 'organization:update']);
    expect(h.world.serverTypes.get(P1)).toEqual({ name: 'PRODUCTION_SERVER', label: 'Production Server' });
    expect(h.world.serverTypes.get(`org:${ORG}`)?.name).toBe('TEST_SERVER');
    expect(
      (await h.run('plan')).plan.changes.filter((c) => c.kind === 'defaultServerType' && c.action !== 'noop'),
    ).toEqual([]);

    await h.world.as('jdoekey1').setProjectDefaultServerType(P1, { name: 'DEV_SERVER' });
    const plan = await h.run('plan');
    const change = plan.plan.changes.find((c) => c.kind === 'defaultServerType' && c.target.id === P1);
    expect(change).toMatchObject({ action: 'update', before: 'DEV_SERVER', after: 'PRODUCTION_SERVER' });
    expect(change?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      eventTypeName: 'DEFAULT_SERVER_TYPE_CHANGED_AUDIT',
    });
  });

  it("a change made with the tool's own key outside its runs is named as that, for projects and organizations", async () => {
    const h = scenario({ defaultServerType: 'PRODUCTION_SERVER' });
    h.source.files.set('org.yaml', orgYaml('TEST_SERVER'));
    await h.run('apply');
    h.clock.ms += 10 * 60_000;
    await h.world.as('gitopsbt').setProjectDefaultServerType(P1, { name: 'DEV_SERVER' });
    await h.world.as('gitopsbt').setOrgDefaultServerType(ORG, { name: 'DEV_SERVER' });
    const plan = await h.run('plan');
    const drifted = plan.plan.changes.filter((c) => c.kind === 'defaultServerType' && c.action === 'update');
    expect(drifted.map((c) => [c.target.type, c.drift?.attribution?.map((a) => [a.actor, a.viaOwnKey])])).toEqual([
      ['project', [['gitopsbt', true]]],
      ['organization', [['gitopsbt', true]]],
    ]);
  });

  it('audit-log rotation: drift without enforce, PUT with enforce; server-filled defaults are not a difference', async () => {
    const rotation = { sizeThresholdMB: 1000, timeThresholdHrs: 24, numUncompressed: 5 };
    const h = scenario({ auditLogRotation: { enforce: false, ...rotation } });
    const observed = await h.run('apply');
    const change = observed.plan.changes.find((c) => c.kind === 'auditLogRotation');
    expect(change?.action).toBe('drift');
    expect(change?.fields.map((f) => f.path)).toEqual(['sizeThresholdMB', 'timeThresholdHrs']);
    expect(h.world.auditLog.get(P1)).toBeUndefined();
    // A difference reported and never written keeps the project unstamped (README: drift attribution's window).
    expect(h.state.state?.projects[P1]?.lastReconciledAt).toBeUndefined();

    const enforced = scenario({ auditLogRotation: { enforce: true, ...rotation } });
    const applied = await enforced.run('apply');
    expect(applied.plan.changes.find((c) => c.kind === 'auditLogRotation')?.action).toBe('update');
    expect(enforced.world.auditLog.get(P1)).toEqual({ ...rotation, percentOfDiskspace: 0.02, numTotal: 0 });
    const again = await enforced.run('plan');
    expect(again.plan.changes.find((c) => c.kind === 'auditLogRotation')?.action).toBe('noop');

    await enforced.world.as('jdoekey1').setAuditLogRotateConfig(P1, { ...rotation, sizeThresholdMB: 50 });
    const drifted = await enforced.run('plan');
    const d = drifted.plan.changes.find((c) => c.kind === 'auditLogRotation');
    expect(d?.fields).toEqual([{ path: 'sizeThresholdMB', before: 50, after: 1000 }]);
    expect(d?.drift?.attribution?.[0]?.actor).toBe('jdoekey1');
  });

  it('an unenforced rotation drift keeps its author across later applies', async () => {
    const rotation = { sizeThresholdMB: 1000, timeThresholdHrs: 24 };
    const h = scenario({ auditLogRotation: { enforce: false, ...rotation } });
    h.world.auditLog.set(P1, { ...rotation, numUncompressed: 5, percentOfDiskspace: 0.02, numTotal: 0 });
    await h.run('apply');
    await h.world.as('jdoekey1').setAuditLogRotateConfig(P1, { ...rotation, timeThresholdHrs: 1 });
    await h.run('apply');
    await h.run('apply');
    const plan = await h.run('plan');
    const change = plan.plan.changes.find((c) => c.kind === 'auditLogRotation');
    expect(change?.action).toBe('drift');
    expect(change?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      eventTypeName: 'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
    });
  });

  it('a rotation field added to or dropped from git is a pending change, not drift nor a fight', async () => {
    const rotation = { enforce: true, sizeThresholdMB: 1000, timeThresholdHrs: 24 };
    const h = scenario({ auditLogRotation: rotation });
    await h.run('apply');
    setP1(h, { auditLogRotation: { ...rotation, numTotal: 10 } });
    const added = (await h.run('apply')).plan.changes.find((c) => c.kind === 'auditLogRotation');
    expect(added).toMatchObject({ action: 'update', fields: [{ path: 'numTotal', before: 0, after: 10 }] });
    expect(added?.drift).toBeUndefined();
    setP1(h, { auditLogRotation: { ...rotation, sizeThresholdMB: 2000 } });
    const dropped = (await h.run('apply')).plan.changes.find((c) => c.kind === 'auditLogRotation');
    expect(dropped).toMatchObject({
      action: 'update',
      fields: [{ path: 'sizeThresholdMB', before: 1000, after: 2000 }],
    });
    expect(dropped?.drift).toBeUndefined();
    expect(h.state.state?.projects[P1]?.driftStreaks).toBeUndefined();

    // A hand change of a field set then is still drift.
    await h.world.as('jdoekey1').setAuditLogRotateConfig(P1, { sizeThresholdMB: 2000, timeThresholdHrs: 2 });
    setP1(h, { auditLogRotation: { ...rotation, sizeThresholdMB: 2000, numTotal: 3 } });
    const moved = (await h.run('plan')).plan.changes.find((c) => c.kind === 'auditLogRotation');
    expect(moved?.drift?.detected).toBe(true);
  });

  it('observe mode in Settings turns singleton updates into drift', async () => {
    const h = scenario({ defaultServerType: 'PRODUCTION_SERVER', mode: undefined });
    h.source.files.set('settings.yaml', settingsYaml({ mode: 'observe' }));
    const report = await h.run('apply');
    expect(report.plan.changes.find((c) => c.kind === 'defaultServerType')?.action).toBe('drift');
    expect(h.world.writes()).toEqual([]);
  });
});
