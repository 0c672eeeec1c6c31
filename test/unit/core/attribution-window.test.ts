// Scenario: the events window of drift attribution. An edit made while a run was applying, or stamped by an Ops Manager
// whose clock is behind the tool's, must still find its author on the next run; a human edit that our own later
// write overwrote is not an author of the drift standing now.
import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OpsManagerEvent } from '../../../lambdas/opsman/types.ts';
import { eventsOnlyApi } from '../../helpers/events-only-api.ts';
import { ownedId, P1, P2, scenario } from './scenario-fixture.ts';

describe('drift attribution window', () => {
  it('finds the author of an edit made while the previous run was applying', async () => {
    const h = scenario();
    await h.run('apply');
    const disk = ownedId(h, 'disk');
    // The next apply has one write, in payments-staging; payments-prod is edited by hand while it is being made,
    // after that run read payments-prod and before it finished.
    await h.world.as('jdoekey1').deleteAlertConfig(P2, ownedId(h, 'host-down', P2));
    h.world.onStore = (stored) => {
      if (stored.groupId !== P2) return;
      h.world.onStore = undefined;
      const live = h.world.groups.get(P1)?.alerts.get(disk);
      if (live !== undefined) live.enabled = false;
      h.world.event('ALERT_CONFIG_DISABLED_AUDIT', 'jdoekey1', { groupId: P1, alertConfigId: disk });
      // The rest of the apply (its answer, verification, the state write) takes a few seconds.
      h.clock.ms += 5000;
    };
    await h.run('apply');
    const observed = await h.run('observe');
    const change = observed.plan.changes.find((c) => c.key === 'disk');
    expect(change?.drift?.detected).toBe(true);
    expect(change?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT',
    });
  });

  it('finds the author when the Ops Manager clock is two minutes behind the tool', async () => {
    const h = scenario();
    h.world.timeSource = () => new Date(h.clock.now().getTime() - 120_000);
    await h.run('apply');
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    const observed = await h.run('observe');
    const change = observed.plan.changes.find((c) => c.key === 'disk');
    expect(change?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT',
    });
  });

  it('a human edit that our own later write overwrote is not an author of the drift', async () => {
    const id = '6c0100000000000000000001';
    const events: OpsManagerEvent[] = [
      { id: 'e1', created: '2026-10-14T09:00:00Z', eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT', alertConfigId: id },
      { id: 'e2', created: '2026-10-14T09:30:00Z', eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT', alertConfigId: id },
      { id: 'e3', created: '2026-10-14T10:00:00Z', eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT', alertConfigId: id },
    ];
    Object.assign(events[0] as OpsManagerEvent, { username: 'old.edit@acme.example' });
    Object.assign(events[1] as OpsManagerEvent, { publicKey: 'gitopsbt' });
    Object.assign(events[2] as OpsManagerEvent, { username: 'j.doe@acme.example' });
    const { api } = eventsOnlyApi(events);
    const change: Change = {
      target: { type: 'project', id: P1, name: 'payments-prod' },
      kind: 'alertConfig',
      key: 'disk',
      action: 'drift',
      id,
      fields: [],
      reason: '',
      drift: { detected: true },
    };
    await attributeDrift(api, [change], '2026-10-14T08:00:00Z', { ignoreActor: 'gitopsbt' });
    expect(change.drift?.attribution?.map((a) => a.actor)).toEqual(['j.doe@acme.example']);
  });
});
