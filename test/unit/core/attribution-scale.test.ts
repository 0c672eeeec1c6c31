// Scenario: a project with many drifted alert configs and many events has each config's authors found by looking its events up, not by checking every event against every drifted config; each config still gets its own events, newest first.
import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import type { OpsManagerEvent } from '../../../lambdas/opsman/types.ts';

const P = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };

describe('attributeDrift with many drifted configs and events', () => {
  it("reads each change's id a bounded number of times and attributes each config its own events", async () => {
    const configs = 40;
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < configs * 10; i++) {
      events.push({
        id: `e${String(i).padStart(4, '0')}`,
        eventTypeName: i % 7 === 0 ? 'OUTSIDE_METRIC_THRESHOLD' : 'ALERT_CONFIG_CHANGED_AUDIT',
        created: `2026-10-14T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`,
        alertConfigId: `c${i % configs}`,
        username: `user${i}`,
      });
    }
    const api = {
      listProjectEvents: async () => structuredClone(events) as unknown as OpsManagerEvent[],
    } as unknown as OpsManagerApi;
    let idReads = 0;
    const changes: Change[] = Array.from({ length: configs }, (_, i) => {
      const change = {
        target: P,
        kind: 'alertConfig',
        key: `k${i}`,
        action: 'drift',
        fields: [],
        reason: 'changed on live',
        drift: { detected: true },
      } as unknown as Change;
      Object.defineProperty(change, 'id', {
        enumerable: true,
        get: () => {
          idReads++;
          return `c${i}`;
        },
      });
      return change;
    });
    await attributeDrift(api, changes, '2026-10-14T08:00:00Z');
    expect(idReads).toBeLessThanOrEqual(2 * configs);
    // Config 3's audit events are 3, 43, 83, ... (every 7th event fired an alert instead); the newest five are kept.
    const own = events.filter((e) => e.alertConfigId === 'c3' && e.eventTypeName === 'ALERT_CONFIG_CHANGED_AUDIT');
    const expected = own
      .reverse()
      .slice(0, 5)
      .map((e) => e.id);
    expect(changes[3]?.drift?.attribution?.map((a) => a.eventId)).toEqual(expected);
    expect(changes[3]?.drift?.attribution?.[0]?.actor).toBe(`user${Number((expected[0] as string).slice(1))}`);
  });
});
