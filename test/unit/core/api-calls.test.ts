// Scenario: a run makes the fewest requests its work needs (one list per project, one write per change, events only on drift); the report counts them.
import { describe, expect, it } from 'vitest';
import { ownedId, P1, scenario } from './scenario-fixture.ts';

describe('API calls', () => {
  it('a no-op plan reads one list per project and nothing else', async () => {
    const h = scenario();
    await h.run('apply');
    h.world.calls = [];
    const report = await h.run('plan');
    expect(report.apiCalls).toEqual({ total: 2, byEndpoint: { 'GET /groups/{groupId}/alertConfigs': 2 } });
  });

  it('a corrective apply costs the lists, one events read and one write; write echoes verify without a re-read', async () => {
    const h = scenario();
    await h.run('apply');
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    h.world.calls = [];
    const report = await h.run('apply');
    expect(report.results.map((r) => r.status)).toEqual(['applied']);
    expect(report.apiCalls.byEndpoint).toEqual({
      'GET /groups/{groupId}/alertConfigs': 2,
      'GET /groups/{groupId}/events': 1,
      'PATCH /groups/{groupId}/alertConfigs/{alertConfigId}': 1,
    });
  });

  it('a write whose echo differs is confirmed by one re-read before it is flagged', async () => {
    const h = scenario();
    h.world.onStore = (stored) => {
      if (stored.metricThreshold) stored.metricThreshold.threshold = 85;
    };
    const report = await h.run('apply');
    expect(report.results.find((r) => r.change.key === 'disk')?.status).toBe('not-converging');
    expect(report.apiCalls.byEndpoint['GET /groups/{groupId}/alertConfigs']).toBe(3);
  });

  it("counts only the run's own calls on a client that made others before (a warm Lambda's, a long-lived CLI's)", async () => {
    const h = scenario();
    await h.run('apply');
    await h.run('plan');
    // The client's counter still holds the earlier runs' calls: the report subtracts what it read at the start.
    expect(h.world.calls.length).toBeGreaterThan(2);
    const report = await h.run('plan');
    expect(report.apiCalls).toEqual({ total: 2, byEndpoint: { 'GET /groups/{groupId}/alertConfigs': 2 } });
  });
});
