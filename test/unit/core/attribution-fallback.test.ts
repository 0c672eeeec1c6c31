// Scenario: drift attribution of a target without `lastReconciledAt` (its last apply failed, or the state is older):
// the events query takes its lower bound from the drifted records' own times (the tool's writes), less the clock-skew
// allowance; when nothing is known it reads without a bound but at most UNBOUNDED_EVENTS_LIMIT events, and says so.
import { describe, expect, it } from 'vitest';
import { attributeDrift, CLOCK_SKEW_ALLOWANCE_MS, UNBOUNDED_EVENTS_LIMIT } from '../../../lambdas/core/attribution.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import type { EventQuery, OpsManagerEvent } from '../../../lambdas/opsman/types.ts';
import { eventsOnlyApi as eventsApi } from '../../helpers/events-only-api.ts';
import { ownedId, P1, scenario } from './scenario-fixture.ts';

const P = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };

function drifted(key: string, id: string): Change {
  return {
    target: P,
    kind: 'alertConfig',
    key,
    action: 'drift',
    id,
    fields: [],
    reason: '',
    drift: { detected: true },
  };
}

function edit(n: number, alertConfigId: string): OpsManagerEvent {
  const created = new Date(Date.parse('2026-10-14T10:00:00Z') - n * 1000).toISOString();
  return {
    id: `e${String(n).padStart(6, '0')}`,
    created,
    eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
    alertConfigId,
    username: `user${n}@acme.example`,
  } as OpsManagerEvent;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

describe('drift attribution without lastReconciledAt', () => {
  it('bounds the query by the oldest of the drifted records’ newest writes, less the skew allowance', async () => {
    const { api, asked } = eventsApi([edit(1, 'c1')]);
    const records: Record<string, OwnedAlertConfig> = {
      // Created, later adopted again: the newest write is the adoption.
      disk: { id: 'c1', createdAt: '2026-08-01T00:00:00Z', adoptedAt: '2026-10-01T12:00:00.250Z' },
      cpu: { id: 'c2', createdAt: '2026-09-15T08:30:00Z' },
      // Not drifted: its newer time must not raise the bound above the drifted ones.
      other: { id: 'c3', createdAt: '2026-10-13T00:00:00Z' },
    };
    const changes = [drifted('disk', 'c1'), drifted('cpu', 'c2')];
    const warning = await attributeDrift(api, changes, undefined, { records });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.query?.minDate).toBe(iso(Date.parse('2026-09-15T08:30:00Z') - CLOCK_SKEW_ALLOWANCE_MS));
    expect(asked[0]?.limit).toEqual({ maxItems: UNBOUNDED_EVENTS_LIMIT });
    expect(warning).toBeUndefined();
    expect(changes[0]?.drift?.attribution?.[0]?.actor).toBe('user1@acme.example');
  });

  it('lastReconciledAt, when known, stays the bound', async () => {
    const { api, asked } = eventsApi([]);
    const records = { disk: { id: 'c1', createdAt: '2026-10-01T00:00:00Z' } };
    await attributeDrift(api, [drifted('disk', 'c1')], '2026-10-10T00:00:00Z', { records });
    expect(asked[0]?.query?.minDate).toBe(iso(Date.parse('2026-10-10T00:00:00Z') - CLOCK_SKEW_ALLOWANCE_MS));
  });

  it('with no time known for a drifted record, reads without a bound but at most the limit, and warns the history was cut', async () => {
    const all = Array.from({ length: UNBOUNDED_EVENTS_LIMIT + 700 }, (_, i) => edit(i + 1, 'c1'));
    const { api, asked } = eventsApi(all);
    // An older state: records without createdAt or adoptedAt.
    const records = { disk: { id: 'c1' }, cpu: { id: 'c2', createdAt: '2026-10-01T00:00:00Z' } };
    const changes = [drifted('disk', 'c1'), drifted('cpu', 'c2')];
    const warning = await attributeDrift(api, changes, undefined, { records });
    expect(asked[0]?.query?.minDate).toBeUndefined();
    expect(asked[0]?.limit).toEqual({ maxItems: UNBOUNDED_EVENTS_LIMIT });
    expect(warning).toContain('payments-prod');
    expect(warning).toContain(`newest ${UNBOUNDED_EVENTS_LIMIT.toLocaleString('en-US')} events`);
    expect(warning).toMatch(/history was cut/);
    expect(changes[0]?.drift?.attribution?.[0]?.actor).toBe('user1@acme.example');
  });

  it('an unbounded read under the limit says nothing was cut', async () => {
    const { api, asked } = eventsApi([edit(1, 'c1')]);
    const warning = await attributeDrift(api, [drifted('disk', 'c1')], undefined, {});
    expect(asked[0]?.limit).toEqual({ maxItems: UNBOUNDED_EVENTS_LIMIT });
    expect(warning).toBeUndefined();
  });

  it('a drifted singleton has no record time: unbounded and capped', async () => {
    const { api, asked } = eventsApi([]);
    const change: Change = {
      target: P,
      kind: 'defaultServerType',
      key: 'defaultServerType',
      action: 'drift',
      fields: [],
      reason: '',
      drift: { detected: true },
    };
    await attributeDrift(api, [change], undefined, {
      records: { disk: { id: 'c1', createdAt: '2026-10-01T00:00:00Z' } },
    });
    expect(asked[0]?.query?.minDate).toBeUndefined();
    expect(asked[0]?.limit).toEqual({ maxItems: UNBOUNDED_EVENTS_LIMIT });
  });

  it('through a run: a project whose state lost lastReconciledAt still finds the author, with a bounded query', async () => {
    const h = scenario();
    await h.run('apply');
    const state = h.state.state;
    const project = state?.projects[P1];
    expect(project?.lastReconciledAt).toBeDefined();
    if (project !== undefined) delete project.lastReconciledAt;
    h.state.text = JSON.stringify(state);
    h.clock.ms += 3_600_000;
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    const asked: (EventQuery | undefined)[] = [];
    const deps = h.deps.bind(h);
    h.deps = (actor) => {
      const made = deps(actor);
      const list = made.api.listProjectEvents.bind(made.api);
      made.api.listProjectEvents = (groupId, query, limit) => {
        asked.push(query);
        return list(groupId, query, limit);
      };
      return made;
    };
    const observed = await h.run('observe');
    const change = observed.plan.changes.find((c) => c.key === 'disk');
    expect(change?.drift?.attribution?.[0]).toMatchObject({ actor: 'jdoekey1' });
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((q) => q?.minDate !== undefined)).toBe(true);
  });
});
