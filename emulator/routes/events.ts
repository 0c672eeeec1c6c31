/** Events of projects and organizations: newest first, filtered by eventType (repeatable), minDate, maxDate. */
import { renderEvent } from '../audit.ts';
import { apiErrors } from '../errors.ts';
import { boolParam } from '../http/query.ts';
import { parseIsoInstant } from '../ids.ts';
import type { EventRec } from '../store/state.ts';
import { param, type RequestContext, type Route } from './context.ts';
import { listResponse, okResponse, requireGroup, requireOrg } from './helpers.ts';

function dateParam(ctx: RequestContext, name: string): number | null {
  const value = ctx.query.get(name);
  if (value === null) return null;
  const ms = parseIsoInstant(value);
  if (ms === null) throw apiErrors.invalidQuery(name);
  return ms;
}

/** An event picked by a listing: its record, instant and position. */
type Picked = { e: EventRec; at: number; i: number };

/**
 * The last filtered and sorted list of each position list (EventIndex keeps one array per project or organization and
 * appends to it), with what it was made from. A client reads a long list page by page with the same filters: without
 * this every page filtered and sorted every event again (40,000 events took 17 s to page through, 1 s with it).
 */
const pickedCache = new WeakMap<
  readonly number[],
  { events: readonly EventRec[]; signature: string; picked: Picked[] }
>();

/** Lists the events at `positions` (ascending) of the state's events, filtered by the query, newest first. */
function list(ctx: RequestContext, positions: readonly number[]) {
  const types = new Set(
    ctx.query
      .getAll('eventType')
      .flatMap((t) => t.split(','))
      .filter((t) => t !== ''),
  );
  const min = dateParam(ctx, 'minDate');
  const max = dateParam(ctx, 'maxDate');
  const includeRaw = boolParam(ctx.query, 'includeRaw', false);
  const events = ctx.core.state.events;
  // Events are only ever appended (a reset replaces the array), so the count of positions tells a grown list.
  const signature = JSON.stringify([positions.length, [...types], min, max]);
  const cached = pickedCache.get(positions);
  if (cached !== undefined && cached.events === events && cached.signature === signature) {
    return listResponse(ctx, cached.picked, (p) => renderEvent(p.e, ctx.apiBase, includeRaw));
  }
  const picked: Picked[] = [];
  for (const i of positions) {
    const e = events[i] as EventRec;
    if (types.size > 0 && !types.has(e.eventTypeName)) continue;
    const at = Date.parse(e.created);
    if (min !== null && at < min) continue;
    if (max !== null && at > max) continue;
    picked.push({ e, at, i });
  }
  picked.sort((a, b) => b.at - a.at || b.i - a.i);
  pickedCache.set(positions, { events, signature, picked });
  return listResponse(ctx, picked, (p) => renderEvent(p.e, ctx.apiBase, includeRaw));
}

function one(ctx: RequestContext, belongs: (e: EventRec) => boolean) {
  const id = param(ctx, 'eventId');
  const includeRaw = boolParam(ctx.query, 'includeRaw', false);
  const event = ctx.core.state.events.find((e) => e.id === id && belongs(e));
  if (!event) throw apiErrors.resourceNotFound(`/api/public/v1.0${ctx.path}`);
  return okResponse(renderEvent(event, ctx.apiBase, includeRaw));
}

/** Routes of the event endpoints. */
export const eventRoutes: Route[] = [
  {
    method: 'GET',
    template: '/groups/{groupId}/events',
    need: { kind: 'group', level: 'READ_ONLY' },
    handler: (ctx) => {
      const group = requireGroup(ctx);
      return list(ctx, ctx.core.eventIndex.ofGroup(ctx.core.state.events, group.id));
    },
  },
  {
    method: 'GET',
    template: '/groups/{groupId}/events/{eventId}',
    need: { kind: 'group', level: 'READ_ONLY' },
    handler: (ctx) => {
      const group = requireGroup(ctx);
      return one(ctx, (e) => e.groupId === group.id);
    },
  },
  {
    method: 'GET',
    template: '/orgs/{orgId}/events',
    need: { kind: 'org', level: 'MEMBER' },
    handler: (ctx) => {
      const org = requireOrg(ctx);
      return list(ctx, ctx.core.eventIndex.ofOrg(ctx.core.state.events, org.id));
    },
  },
  {
    method: 'GET',
    template: '/orgs/{orgId}/events/{eventId}',
    need: { kind: 'org', level: 'MEMBER' },
    handler: (ctx) => {
      const org = requireOrg(ctx);
      return one(ctx, (e) => e.orgId === org.id && e.groupId === undefined);
    },
  },
];
