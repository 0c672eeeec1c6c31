/**
 * Usage reporting: host assignments, per-host and default server types. `/usage/groups/{x}` alone is a physical host
 * (physical-hosts.ts); followed by `/hosts` or `/defaultServerType` it is a project (here).
 */
import { recordAudit } from '../audit.ts';
import { apiErrors } from '../errors.ts';
import { isIsoDate } from '../ids.ts';
import { parseServerType, serverTypeObject } from '../store/resources.ts';
import type { HostAssignmentRec } from '../store/state.ts';
import { param, type RequestContext, type Route } from './context.ts';
import { emptyResponse, jsonObject, listResponse, okResponse, requireGroup, requireOrg } from './helpers.ts';

const OWNER = { kind: 'global', level: 'OWNER' } as const;

function dateRange(ctx: RequestContext): { start: string; end: string } {
  const start = ctx.query.get('startDate');
  const end = ctx.query.get('endDate');
  if (start === null) throw apiErrors.missingQuery('startDate');
  if (end === null) throw apiErrors.missingQuery('endDate');
  if (!isIsoDate(start)) throw apiErrors.invalidQuery('startDate');
  if (!isIsoDate(end) || end < start) throw apiErrors.invalidQuery('endDate');
  return { start, end };
}

function assignments(ctx: RequestContext, groupIds: ReadonlySet<string>): Record<string, unknown>[] {
  const { start, end } = dateRange(ctx);
  const state = ctx.core.state;
  const inRange = (a: HostAssignmentRec) => (a.from ?? '0000-01-01') <= end && (a.to ?? '9999-12-31') >= start;
  return state.hostAssignments
    .filter((a) => groupIds.has(a.groupId) && inRange(a))
    .sort((a, b) => a.hostname.localeCompare(b.hostname))
    .map((a) => {
      const group = state.groups.get(a.groupId);
      const orgName = group ? state.orgs.get(group.orgId)?.name : undefined;
      const out: Record<string, unknown> = {
        hostname: a.hostname,
        processes: a.processes.map((p) => ({ ...p, groupName: group?.name, orgName, groupId: a.groupId })),
        serverType: serverTypeObject(a.serverType),
      };
      if (a.isChargeable !== undefined) out.isChargeable = a.isChargeable;
      if (a.memSizeMB !== undefined) out.memSizeMB = a.memSizeMB;
      return out;
    });
}

async function serverTypeBody(ctx: RequestContext) {
  const body = await jsonObject(ctx);
  for (const key of Object.keys(body)) if (key !== 'serverType') throw apiErrors.invalidAttribute(key);
  return parseServerType(body.serverType, 'serverType', false);
}

function defaultTypeResponse(name: string | undefined) {
  return name ? okResponse(serverTypeObject(name as Parameters<typeof serverTypeObject>[0])) : emptyResponse();
}

/** PUT of a project's or an organization's default server type: validate, store, audit (with the old value), commit. */
async function putDefaultType(
  ctx: RequestContext,
  types: Map<string, string>,
  id: string,
  scope: { groupId: string } | { orgId: string },
) {
  const type = await serverTypeBody(ctx);
  const old = types.get(id) ?? null;
  types.set(id, type);
  recordAudit(ctx, {
    eventTypeName: 'DEFAULT_SERVER_TYPE_CHANGED_AUDIT',
    ...scope,
    params: [{ display: 'Default server type', param: 'defaultServerType', old, new: type }],
  });
  await ctx.core.commit();
  return emptyResponse();
}

/** Routes of the usage endpoints (all need the Global Owner role, as the spec's table says). */
export const usageRoutes: Route[] = [
  {
    method: 'GET',
    template: '/usage/groups/{groupId}/hosts',
    need: OWNER,
    handler: (ctx) => listResponse(ctx, assignments(ctx, new Set([requireGroup(ctx).id]))),
  },
  {
    method: 'GET',
    template: '/usage/organizations/{orgId}/hosts',
    need: OWNER,
    handler: (ctx) => {
      const org = requireOrg(ctx);
      const groups = [...ctx.core.state.groups.values()].filter((g) => g.orgId === org.id).map((g) => g.id);
      return listResponse(ctx, assignments(ctx, new Set(groups)));
    },
  },
  {
    method: 'PUT',
    template: '/usage/hosts/{hostId}',
    need: OWNER,
    handler: async (ctx) => {
      const hostId = param(ctx, 'hostId');
      const all = ctx.core.state.hostAssignments;
      // No answer of the spec's API carries a host's id (assignments show its hostname only), so a client that knows
      // only what the API told it names the host by its hostname: that is taken when no id matches.
      let matches = all.filter((a) => a.hostId === hostId);
      if (matches.length === 0) matches = all.filter((a) => a.hostname === hostId);
      if (matches.length === 0) throw apiErrors.resourceNotFound(`/api/public/v1.0${ctx.path}`);
      const type = await serverTypeBody(ctx);
      // One event per host and project changed, in that project's history with that host's old type: a hostname
      // can name assignments in several projects (a host that moved), and each project's events must show its change.
      const changed = new Map<string, { host: HostAssignmentRec; old: string }>();
      for (const a of matches) {
        const key = JSON.stringify([a.groupId, a.hostId ?? null, a.hostname]);
        if (!changed.has(key)) changed.set(key, { host: a, old: a.serverType });
        a.serverType = type;
      }
      // The event names the host by what it is, not by how the path spelt it: its id (when it has one) and its
      // hostname, so a host changed by hostname and by id reads the same in the event history.
      for (const { host, old } of changed.values()) {
        recordAudit(ctx, {
          eventTypeName: 'HOST_SERVER_TYPE_CHANGED_AUDIT',
          groupId: host.groupId,
          hostId: host.hostId,
          hostname: host.hostname,
          name: host.hostname,
          params: [{ display: 'Server type', param: 'serverType', old, new: type }],
        });
      }
      await ctx.core.commit();
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    template: '/usage/groups/{groupId}/defaultServerType',
    need: OWNER,
    handler: (ctx) => defaultTypeResponse(ctx.core.state.groupServerTypes.get(requireGroup(ctx).id)),
  },
  {
    method: 'PUT',
    template: '/usage/groups/{groupId}/defaultServerType',
    need: OWNER,
    handler: (ctx) => {
      const group = requireGroup(ctx);
      return putDefaultType(ctx, ctx.core.state.groupServerTypes, group.id, { groupId: group.id });
    },
  },
  {
    method: 'GET',
    template: '/usage/organizations/{orgId}/defaultServerType',
    need: OWNER,
    handler: (ctx) => defaultTypeResponse(ctx.core.state.orgServerTypes.get(requireOrg(ctx).id)),
  },
  {
    method: 'PUT',
    template: '/usage/organizations/{orgId}/defaultServerType',
    need: OWNER,
    handler: (ctx) => {
      const org = requireOrg(ctx);
      return putDefaultType(ctx, ctx.core.state.orgServerTypes, org.id, { orgId: org.id });
    },
  },
];
