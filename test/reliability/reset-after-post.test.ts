// Scenario: the connection is reset right after POSTs were performed (ambiguous writes); the run or the next one adopts them instead of creating duplicates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, pendingChanges, startHarness, statusCounts } from '../helpers/reliability-harness.ts';

describe('connection reset after POST', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ projects: 3, alerts: 5 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('leaves exactly one config per desired key after the next run', async () => {
    await h.admin.fault({ method: 'POST', path: '/groups/*/alertConfigs', reset: true, phase: 'after', times: 3 });
    const first = await h.run({ command: 'apply' });
    expect(first.error).toBeUndefined();
    // Three POSTs were performed and then lost their connection (logged with status 0); the client saw them fail.
    const posts = statusCounts(await h.admin.requests());
    expect(posts['POST /groups/{groupId}/alertConfigs 0']).toBe(3);
    expect(first.counts.failed).toBeGreaterThanOrEqual(3);

    const second = await h.run({ command: 'apply' });
    expect(second.error).toBeUndefined();
    expect(second.report?.summary.failed).toBe(0);
    const third = await h.run({ command: 'plan' });
    expect(pendingChanges(third.report)).toEqual({});
    expect(await h.inventory()).toEqual([]);
    // The second run wrote nothing: the ambiguous creates were resolved by re-reading, never by posting again.
    expect(second.counts.byMethod.POST ?? 0).toBe(0);
  });
});
