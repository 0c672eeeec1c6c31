// The rules of late creates (lambdas/core/late-creates.ts) on their own: which markers count, which unmanaged
// configs a marker may claim, and how far back the audit is read.
import { describe, expect, it } from 'vitest';
import { eventsSince } from '../../../lambdas/core/attribution-window.ts';
import {
  confirmLateCreate,
  confirmLateCreatesByAudit,
  findLateCreates,
  lateCreateDigest,
  undigestedLateCreates,
} from '../../../lambdas/core/late-creates.ts';
import type { Change, TargetRef } from '../../../lambdas/core/model.ts';
import type { LiveView } from '../../../lambdas/core/normalise.ts';
import type { OpsManagerApi, OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const T: TargetRef = { type: 'project', id: '5e2211c17a3e5a48f5497de3', name: 'prod' };
const marker = (desiredDigest?: string, extra: Partial<NonNullable<OwnedAlertConfig['pendingCreate']>> = {}) => ({
  pendingCreate: { runId: 'r1', startedAt: '2026-01-01T00:00:00Z', desiredDigest, ...extra },
});
/** Live configs `ids`, each of digest `d`, with their views (findLateCreates reads the digest from the view). */
function liveOf(ids: string[], digest = 'd'): [AlertConfig[], Map<string, LiveView>] {
  const live = ids.map((id) => ({ id }) as AlertConfig);
  return [live, new Map(ids.map((id) => [id, { digest } as LiveView]))];
}

describe('late create markers', () => {
  it('a record that has an id is no late create, whatever marker it kept', () => {
    expect(lateCreateDigest({ ...marker('d') })).toBe('d');
    expect(lateCreateDigest({ id: 'a1', ...marker('d') })).toBeUndefined();
  });

  it('warns only of an undigested marker whose key left git', () => {
    const records = { gone: marker(), kept: marker() };
    expect(undigestedLateCreates(records, ['gone', 'kept'], new Set(['kept'])).map((m) => m.key)).toEqual(['gone']);
  });
});

describe('findLateCreates', () => {
  it('never claims a config already owned by another key', () => {
    const [live, views] = liveOf(['a1', 'a2']);
    const found = findLateCreates({ gone: marker('d') }, new Set(), live, views, new Set(['a1']), new Set());
    expect(found.map((l) => l.ids)).toEqual([['a2']]);
  });

  it('never claims a config the marker released (spec.release)', () => {
    const [live, views] = liveOf(['a1', 'a2']);
    const found = findLateCreates(
      { gone: marker('d', { releasedIds: ['a1'] }) },
      new Set(),
      live,
      views,
      new Set(),
      new Set(),
    );
    expect(found.map((l) => l.ids)).toEqual([['a2']]);
  });

  it('a config one marker claimed is not offered to the next', () => {
    const [live, views] = liveOf(['a1']);
    const claimed = new Set<string>();
    const found = findLateCreates({ k1: marker('d'), k2: marker('d') }, new Set(), live, views, new Set(), claimed);
    expect(found.map((l) => [l.key, l.ids])).toEqual([
      ['k1', ['a1']],
      ['k2', []],
    ]);
    expect([...claimed]).toEqual(['a1']);
  });
});

describe('confirmLateCreatesByAudit', () => {
  it('reads the audit from the earliest of the lost creates', async () => {
    const records: Record<string, OwnedAlertConfig> = {
      late: marker('d', { startedAt: '2026-03-01T00:00:00Z' }),
      early: marker('d', { startedAt: '2026-01-01T00:00:00Z' }),
    };
    const del = (key: string, id: string): Change => ({
      target: T,
      kind: 'alertConfig',
      key,
      action: 'delete',
      id,
      fields: [],
      reason: 'x',
    });
    const queries: unknown[] = [];
    const api = {
      listProjectEvents: async (_project: string, query: unknown) => {
        queries.push(query);
        return [];
      },
    } as unknown as Pick<OpsManagerApi, 'listProjectEvents'>;
    await confirmLateCreatesByAudit(api, T, [del('late', 'a1'), del('early', 'a2')], records, 'ownkey');
    expect(queries).toEqual([expect.objectContaining({ minDate: eventsSince('2026-01-01T00:00:00.000Z') })]);
  });
});

describe('confirmLateCreate', () => {
  const change = { target: T, kind: 'alertConfig', key: 'gone', action: 'delete', id: 'a1' } as Change;
  /** An API whose GET of the alert config answers 404, from Ops Manager or from something in front of it. */
  const notFound = (fromOpsManager: boolean) =>
    ({
      getAlertConfig: async () => {
        throw new OpsManagerApiError(
          404,
          'HTTP_404',
          'Not Found',
          { method: 'GET', pathTemplate: '/groups/{groupId}/alertConfigs/{alertConfigId}' },
          { fromOpsManager },
        );
      },
    }) as unknown as OpsManagerApi;

  it("takes Ops Manager's 404 as already gone", async () => {
    await expect(confirmLateCreate(notFound(true), change, 'a1', marker('d'))).resolves.toBeUndefined();
  });

  it("rethrows a 404 that did not come from Ops Manager (a proxy's page): the config is not known to be gone", async () => {
    await expect(confirmLateCreate(notFound(false), change, 'a1', marker('d'))).rejects.toMatchObject({
      status: 404,
      fromOpsManager: false,
    });
  });
});
