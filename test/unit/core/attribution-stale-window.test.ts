// Scenario: a project left in observe mode for months keeps its old lastReconciledAt, so the drift it keeps showing is
// attributed every run from that old bound: each run's events read stays capped instead of growing with the history.
import { describe, expect, it } from 'vitest';
import { UNBOUNDED_EVENTS_LIMIT } from '../../../lambdas/core/attribution-window.ts';
import type { EventQuery } from '../../../lambdas/opsman/types.ts';
import { ownedId, P1, scenario, setP1 } from './scenario-fixture.ts';

describe('drift attribution from a months-old lastReconciledAt', () => {
  it('reads at most the newest UNBOUNDED_EVENTS_LIMIT events per run, still finds the author, and says the history was cut', async () => {
    const h = scenario();
    await h.run('apply');
    const stamp = h.state.state?.projects[P1]?.lastReconciledAt;
    expect(stamp).toBeDefined();
    setP1(h, { mode: 'observe' });
    // Months of audit events since: the tool's and people's edits of the project's other configs.
    for (let i = 0; i < UNBOUNDED_EVENTS_LIMIT + 1_500; i++) {
      h.clock.ms += 3_600_000;
      h.world.event('ALERT_CONFIG_CHANGED_AUDIT', 'gitopsbt', {
        groupId: P1,
        alertConfigId: `6c0f${String(i).padStart(20, '0')}`,
      });
    }
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);

    // The client stops at maxItems (test/unit/opsman/pagination.test.ts); the fake does not, so the view below does.
    const reads: { query: EventQuery | undefined; limit: { maxItems: number } | undefined; delivered: number }[] = [];
    const deps = h.deps.bind(h);
    h.deps = (actor) => {
      const made = deps(actor);
      const list = made.api.listProjectEvents.bind(made.api);
      made.api.listProjectEvents = async (groupId, query, limit) => {
        const events = (await list(groupId, query, limit)).slice(0, limit?.maxItems);
        reads.push({ query, limit, delivered: events.length });
        return events;
      };
      return made;
    };
    for (let run = 0; run < 2; run++) {
      const report = await h.run('apply');
      const change = report.plan.changes.find((c) => c.key === 'disk');
      expect(change?.action).toBe('drift');
      expect(change?.drift?.attribution?.[0]).toMatchObject({ actor: 'jdoekey1' });
      expect((report.warnings ?? []).join('\n')).toMatch(/events since .*only the newest 2,000 events were read/);
    }
    // The bound stayed the old stamp (observe mode writes nothing), yet no read delivered more than the cap.
    expect(h.state.state?.projects[P1]?.lastReconciledAt).toBe(stamp);
    expect(reads.length).toBe(2);
    for (const read of reads) {
      expect(read.query?.minDate).toBeDefined();
      expect(read.limit).toEqual({ maxItems: UNBOUNDED_EVENTS_LIMIT });
      expect(read.delivered).toBe(UNBOUNDED_EVENTS_LIMIT);
    }
  });
});
