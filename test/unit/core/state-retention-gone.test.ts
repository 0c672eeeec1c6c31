// Scenario: forgetGoneDeparted is given one departed project's records and one answer of Ops Manager, and must forget
// only the records proved gone: never a planned project's, a pending create's, or any on an answer that proves nothing.
import { describe, expect, it } from 'vitest';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { forgetGoneDeparted } from '../../../lambdas/core/state-retention.ts';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const departed = '5e2211c17a3e5a48f5400001';
const planned = '5e2211c17a3e5a48f5400002';
const live = '6c0100000000000000000001';
const gone = '6c0100000000000000000002';

function state(): ReconcileState {
  const records = () => ({
    kept: { id: live, fingerprint: 'f1' },
    deleted: { id: gone, fingerprint: 'f2' },
    pending: {
      id: gone,
      pendingCreate: { runId: '20261127T070000Z-0a1b2c3d', startedAt: '2026-11-27T07:00:00.000Z' },
    },
  });
  return {
    formatVersion: 1,
    updatedAt: '2026-11-27T07:00:00.000Z',
    projects: { [departed]: { alertConfigs: records() }, [planned]: { alertConfigs: records() } },
  };
}

const answering = (answer: () => Promise<AlertConfig[]>) => ({ listAlertConfigs: answer });
const keys = (s: ReconcileState, id: string) => Object.keys(s.projects[id]?.alertConfigs ?? {}).sort();
const notFound = (fromOpsManager: boolean, status = 404) =>
  new OpsManagerApiError(
    status,
    'GROUP_NOT_FOUND',
    'No group with ID exists.',
    { method: 'GET', pathTemplate: '/groups/{groupId}/alertConfigs' },
    { fromOpsManager },
  );

describe('forgetGoneDeparted', () => {
  it('forgets a departed project’s record of a deleted config, never a pending create’s or a planned project’s', async () => {
    const s = state();
    const api = answering(async () => [{ id: live, eventTypeName: 'HOST_DOWN', enabled: true } as AlertConfig]);
    expect(await forgetGoneDeparted(s, new Set([`project:${planned}`]), api, 2)).toBe(1);
    expect(keys(s, departed)).toEqual(['kept', 'pending']);
    expect(keys(s, planned)).toEqual(['deleted', 'kept', 'pending']);
  });

  it('forgets the records of a project Ops Manager itself says is gone (GROUP_NOT_FOUND), but a pending create’s', async () => {
    const s = state();
    const api = answering(async () => Promise.reject(notFound(true)));
    expect(await forgetGoneDeparted(s, new Set([`project:${planned}`]), api, 2)).toBe(2);
    expect(keys(s, departed)).toEqual(['pending']);
  });

  it('keeps every record on a 404 GROUP_NOT_FOUND that did not come from Ops Manager (a proxy)', async () => {
    const s = state();
    const api = answering(async () => Promise.reject(notFound(false)));
    expect(await forgetGoneDeparted(s, new Set([`project:${planned}`]), api, 2)).toBe(0);
    expect(keys(s, departed)).toEqual(['deleted', 'kept', 'pending']);
  });

  it('keeps every record on GROUP_NOT_FOUND with another status than 404 (not the "no such project" answer)', async () => {
    const s = state();
    const api = answering(async () => Promise.reject(notFound(true, 403)));
    expect(await forgetGoneDeparted(s, new Set([`project:${planned}`]), api, 2)).toBe(0);
    expect(keys(s, departed)).toEqual(['deleted', 'kept', 'pending']);
  });

  it('keeps every record when the list answers a config without its id (it must not pass for a deleted one)', async () => {
    const s = state();
    const api = answering(async () => [
      { id: live, eventTypeName: 'HOST_DOWN', enabled: true } as AlertConfig,
      { eventTypeName: 'HOST_DOWN', enabled: true } as AlertConfig,
    ]);
    expect(await forgetGoneDeparted(s, new Set([`project:${planned}`]), api, 2)).toBe(0);
    expect(keys(s, departed)).toEqual(['deleted', 'kept', 'pending']);
  });
});
