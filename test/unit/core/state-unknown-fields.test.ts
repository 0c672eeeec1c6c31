// Scenario: a rollback. A later release wrote fields this one does not know into the state (top level, a project, an organization, an alert record); an apply of this release, rewriting that very record, keeps them all, so upgrading again loses nothing.
import { describe, expect, it } from 'vitest';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { ORG, P1, p1Alerts, scenario, setP1 } from './scenario-fixture.ts';

describe('fields a later release added to the state', () => {
  it('survive an apply of this release that rewrites the records holding them', async () => {
    const h = scenario();
    await h.run('apply');
    const later = h.state.state as ReconcileState & Record<string, unknown>;
    const project = later.projects[P1] as unknown as Record<string, unknown>;
    const disk = later.projects[P1]?.alertConfigs.disk as unknown as Record<string, unknown>;
    later.owners = { teams: { ops: 'owned since v2' } };
    project.labels = { tier: 'gold' };
    disk.lastVerifiedAt = '2026-03-01T09:00:00.000Z';
    later.organizations = { ...later.organizations, [ORG]: { singletons: {}, policies: ['p1'] } as never };
    h.state.text = JSON.stringify(later);

    const alerts = p1Alerts();
    (alerts[1] as { metricThreshold: { threshold: number } }).metricThreshold.threshold = 95;
    setP1(h, { alertConfigs: alerts });
    const report = await h.run('apply');
    expect(report.plan.changes.find((c) => c.key === 'disk')?.action).toBe('update');
    expect(report.results.find((r) => r.change.key === 'disk')?.status).toBe('applied');

    const after = h.state.state as ReconcileState & Record<string, unknown>;
    expect(after.owners).toEqual({ teams: { ops: 'owned since v2' } });
    expect((after.projects[P1] as unknown as Record<string, unknown>).labels).toEqual({ tier: 'gold' });
    expect(after.projects[P1]?.alertConfigs.disk).toMatchObject({ lastVerifiedAt: '2026-03-01T09:00:00.000Z' });
    expect(after.organizations?.[ORG]).toMatchObject({ policies: ['p1'] });
  });
});
