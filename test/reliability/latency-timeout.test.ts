// Scenario: responses slower than the client's header timeout on reads and on a create; reads are retried, the late create is adopted, nothing is duplicated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, pendingChanges, startHarness, statusCounts } from '../helpers/reliability-harness.ts';

const TIMEOUTS = { connectMs: 1_000, headersMs: 1_000, bodyMs: 1_000 };

describe('latency past the client timeout', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ projects: 2, alerts: 4 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('retries slow reads, survives a slow create, and converges without duplicates', async () => {
    await h.admin.fault({ method: 'GET', path: '/groups/*/alertConfigs', latencyMs: 2_500, times: 1 });
    // Ops Manager performs the create, then answers 2.5 s late: past the client's 1 s header timeout, so ambiguous.
    await h.admin.fault({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 2_500, times: 1, phase: 'after' });
    const first = await h.run({ command: 'apply' }, { timeouts: TIMEOUTS });
    expect(first.error).toBeUndefined();
    expect(first.report?.failures.filter((f) => f.phase === 'read')).toEqual([]);
    expect(first.counts.attempts).toBeGreaterThan(first.counts.total);
    // The late create is adopted within the run: one ambiguous POST, resolved by re-reading, nothing failed.
    expect(first.report?.summary.failed).toBe(0);
    expect(
      first.report?.results
        .filter((r) => r.message?.includes('the POST was ambiguous'))
        .map((r) => [r.status, /re-read found exactly one matching config \w+, adopted/.test(r.message ?? '')]),
    ).toEqual([['applied', true]]);

    // Let the slow create land on the server before the next run reads.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const second = await h.run({ command: 'apply' }, { timeouts: TIMEOUTS });
    expect(second.error).toBeUndefined();
    expect(second.report?.summary.failed).toBe(0);
    // Nothing was left to create: the slow create was never sent again.
    expect(second.counts.byMethod.POST ?? 0).toBe(0);
    const third = await h.run({ command: 'plan' }, { timeouts: TIMEOUTS });
    expect(pendingChanges(third.report)).toEqual({});
    expect(await h.inventory()).toEqual([]);
    // Over the three runs the emulator performed exactly one create per desired alert config.
    expect(statusCounts(await h.admin.requests())['POST /groups/{groupId}/alertConfigs 200']).toBe(
      h.world.projects.reduce((n, p) => n + p.alerts.length, 0),
    );
  });
});
