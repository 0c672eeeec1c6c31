// Scenario: hand edits through the API by jdoekey1 (disable, threshold, notification removed, delete) are detected, attributed and corrected.
import { describe, expect, it } from 'vitest';
import { actions, ownedId, P1, scenario } from './scenario-fixture.ts';

describe('drift', () => {
  it('detects, attributes and corrects a disable, a threshold change and a removed notification', async () => {
    const h = scenario();
    await h.run('apply');
    const human = h.world.as('jdoekey1');
    const noPrimary = ownedId(h, 'no-primary');
    const disk = ownedId(h, 'disk');
    await human.setAlertConfigEnabled(P1, noPrimary, false);
    const current = (await human.getAlertConfig(P1, disk)) as unknown as {
      metricThreshold: object;
      notifications: object[];
    };
    await human.updateAlertConfig(P1, disk, {
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      enabled: true,
      metricThreshold: {
        ...(current.metricThreshold as { metricName: string; operator: string; threshold: number }),
        threshold: 75,
      },
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60, delayMin: 0, emailEnabled: true }],
    });

    const observed = await h.run('observe');
    expect(actions(observed)).toEqual(['disk:drift', 'no-primary:drift']);
    const byKey = new Map(observed.plan.changes.map((c) => [c.key, c]));
    expect(byKey.get('disk')?.fields.map((f) => f.path)).toEqual([
      'metricThreshold.threshold',
      'notifications[EMAIL:dba@acme.example]',
    ]);
    expect(byKey.get('no-primary')?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      actorType: 'apiKey',
      eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT',
    });
    expect(byKey.get('disk')?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
    });

    const writesBefore = h.world.writes().length;
    const fixed = await h.run('apply');
    expect(actions(fixed)).toEqual(['disk:update', 'no-primary:enable']);
    expect(
      h.world
        .writes()
        .slice(writesBefore)
        .map((w) => w.method),
    ).toEqual(['updateAlertConfig', 'setAlertConfigEnabled']);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('re-creates an owned config deleted by hand and attributes the delete', async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'disk');
    await h.world.as('jdoekey1').deleteAlertConfig(P1, id);
    const plan = await h.run('plan');
    const change = plan.plan.changes.find((c) => c.key === 'disk');
    expect(change?.action).toBe('create');
    expect(change?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      eventTypeName: 'ALERT_CONFIG_DELETED_AUDIT',
    });
    await h.run('apply');
    expect(ownedId(h, 'disk')).not.toBe(id);
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('a rotated secret is updated with a full PUT and reported without its value', async () => {
    const h = scenario();
    await h.run('apply');
    h.secrets.values['notify#secret'] = 'whsec-rotated-value-0000';
    const plan = await h.run('plan');
    const change = plan.plan.changes.find((c) => c.key === 'no-primary');
    expect(change?.action).toBe('update');
    expect(change?.fields).toEqual([{ path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'changed' }]);
    expect(JSON.stringify(plan)).not.toContain('whsec-rotated');
    await h.run('apply');
    const stored = h.world.groups.get(P1)?.alerts.get(ownedId(h, 'no-primary'));
    expect(stored?.notifications.find((n) => n.typeName === 'WEBHOOK')?.webhookSecret).toBe('whsec-rotated-value-0000');
    expect(actions(await h.run('plan'))).toEqual([]);
  });

  it('attribution failing never fails the run', async () => {
    const h = scenario();
    await h.run('apply');
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    h.world.faults.push({ method: 'listProjectEvents', error: () => new Error('events down') });
    const plan = await h.run('plan');
    expect(actions(plan)).toEqual(['disk:enable']);
    expect(plan.failures).toEqual([]);
    expect(plan.warnings?.[0]).toContain('drift attribution for payments-prod unavailable');
  });
});
