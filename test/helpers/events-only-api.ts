/**
 * An Ops Manager API for attribution tests whose only answer is a list of events: project and organization events
 * reads both return a fresh copy of `events` (at most `limit.maxItems` of them, as the client stops there), or throw
 * `fail()`. Every query is kept (`queries`, `{}` for none), and with its limit (`asked`).
 */
import type { Change } from '../../lambdas/core/model.ts';
import type { OpsManagerApi } from '../../lambdas/core/ports.ts';
import type { EventQuery, OpsManagerEvent } from '../../lambdas/opsman/types.ts';

/** What the API was asked, in order. */
export interface AskedEvents {
  query: EventQuery | undefined;
  limit: { maxItems: number } | undefined;
}

/** See the file comment. */
export function eventsOnlyApi(
  events: readonly unknown[],
  fail?: () => Error,
): { api: OpsManagerApi; queries: EventQuery[]; asked: AskedEvents[] } {
  const queries: EventQuery[] = [];
  const asked: AskedEvents[] = [];
  const list = async (_id: string, query?: EventQuery, limit?: { maxItems: number }): Promise<OpsManagerEvent[]> => {
    queries.push(query ?? {});
    asked.push({ query, limit });
    if (fail !== undefined) throw fail();
    const copy = structuredClone(events) as OpsManagerEvent[];
    return copy.slice(0, limit?.maxItems ?? copy.length);
  };
  return { api: { listProjectEvents: list, listOrgEvents: list } as unknown as OpsManagerApi, queries, asked };
}

/** The project and alert config id the attribution tests' drift is of. */
export const DRIFTED_PROJECT = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
export const DRIFTED_CONFIG = '6c0100000000000000000001';

/**
 * A drifted alert config change of key `disk` in payments-prod, as planning hands it to attribution: `update` with its
 * `enabled` field differing, or `drift` (observe mode) with no fields.
 */
export function driftedAlertChange(action: 'update' | 'drift' = 'update'): Change {
  return {
    target: DRIFTED_PROJECT,
    kind: 'alertConfig',
    key: 'disk',
    action,
    id: DRIFTED_CONFIG,
    fields: action === 'update' ? [{ path: 'enabled', before: false, after: true }] : [],
    reason: 'changed on live',
    drift: { detected: true },
  };
}
