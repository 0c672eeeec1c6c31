/**
 * An Ops Manager API for attribution tests whose only answer is a list of events: project and organization events
 * reads both return a fresh copy of `events` (at most `limit.maxItems` of them, as the client stops there), or throw
 * `fail()`. Every query is kept (`queries`, `{}` for none), and with its limit (`asked`).
 */
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
