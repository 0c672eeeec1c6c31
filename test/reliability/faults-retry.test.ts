// Scenario: 503 bursts and 429s with Retry-After hit reads and creates during an apply; a later run converges with nothing lost or duplicated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, pendingChanges, startHarness, statusCounts } from '../helpers/reliability-harness.ts';

const ALERTS = 'POST /groups/{groupId}/alertConfigs';
const LIST = 'GET /groups/{groupId}/alertConfigs';

describe('503 bursts and 429 with Retry-After during apply', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ projects: 3, alerts: 5 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('absorbs read faults by retrying, converges on the next run, and duplicates nothing', async () => {
    // The inventory check is not vacuous: before any apply every project misses its desired alerts.
    const before = await h.inventory();
    expect(before.map((d) => d.missing.length)).toEqual([5, 5, 5]);
    await h.admin.fault({
      method: 'GET',
      path: '/groups/*/alertConfigs',
      status: 503,
      errorCode: 'UNEXPECTED_ERROR',
      times: 3,
    });
    await h.admin.fault({
      method: 'POST',
      path: '/groups/*/alertConfigs',
      status: 429,
      errorCode: 'RATE_LIMITED',
      retryAfter: 1,
      times: 2,
    });
    await h.admin.fault({ method: 'POST', path: '/groups/*/alertConfigs', status: 503, times: 2 });

    const first = await h.run({ command: 'apply' });
    expect(first.error).toBeUndefined();
    const log = statusCounts(await h.admin.requests());
    expect(log[`${LIST} 503`]).toBe(3);
    expect(log[`${ALERTS} 429`]).toBe(2);
    expect(log[`${ALERTS} 503`]).toBe(2);
    // Read faults never fail a target: the client retried them.
    expect(first.report?.failures.filter((f) => f.phase === 'read')).toEqual([]);
    expect(first.counts.attempts).toBeGreaterThan(first.counts.total);

    const second = await h.run({ command: 'apply' });
    expect(second.error).toBeUndefined();
    expect(second.report?.summary.failed).toBe(0);
    const third = await h.run({ command: 'plan' });
    expect(pendingChanges(third.report)).toEqual({});
    expect(await h.inventory()).toEqual([]);
  });
});
