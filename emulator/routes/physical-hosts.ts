/** Physical hosts of the usage reports: `/usage/groups` and `/usage/groups/{physicalHostId}` (Global Owner only). */
import { recordAudit } from '../audit.ts';
import { apiErrors } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import { validatePhysicalHost } from '../store/resources.ts';
import type { PhysicalHostRec, State } from '../store/state.ts';
import { param, type RequestContext, type Route } from './context.ts';
import { emptyResponse, listResponse, okResponse } from './helpers.ts';

const OWNER = { kind: 'global', level: 'OWNER' } as const;

function requirePhysicalHost(ctx: RequestContext): PhysicalHostRec {
  const host = ctx.core.state.physicalHosts.get(param(ctx, 'physicalHostId'));
  if (!host) throw apiErrors.resourceNotFound(`/api/public/v1.0${ctx.path}`);
  return host;
}

function renderHost(h: PhysicalHostRec): Record<string, unknown> {
  return { id: h.id, name: h.name, serverType: h.serverType, hosts: h.hosts.map((v) => ({ ...v })) };
}

function nameTaken(state: State, name: string, except?: string): boolean {
  return [...state.physicalHosts.values()].some((h) => h.name === name && h.id !== except);
}

async function saveHost(ctx: RequestContext, id: string, update: boolean) {
  const body = await ctx.json();
  const state = ctx.core.state;
  const host = validatePhysicalHost(body, id, (g) => state.groups.has(g));
  // Looked up after the body arrived: a concurrent DELETE may have happened meanwhile.
  const previous = state.physicalHosts.get(id);
  if (update && !previous) throw apiErrors.resourceNotFound(`/api/public/v1.0${ctx.path}`);
  if (nameTaken(state, host.name, id)) throw apiErrors.duplicateName('physical host', host.name);
  state.physicalHosts.set(id, host);
  recordAudit(ctx, {
    eventTypeName: previous ? 'PHYSICAL_HOST_UPDATED_AUDIT' : 'PHYSICAL_HOST_CREATED_AUDIT',
    hostId: id,
    name: host.name,
    status: previous ? 'MODIFIED' : 'NEW',
    params: [
      { display: 'Name', param: 'name', old: previous?.name ?? null, new: host.name },
      { display: 'Server type', param: 'serverType', old: previous?.serverType ?? null, new: host.serverType },
    ].filter((p) => p.old !== p.new),
  });
  await ctx.core.commit();
  return okResponse(renderHost(host));
}

/** Routes of the physical hosts. */
export const physicalHostRoutes: Route[] = [
  {
    method: 'GET',
    template: '/usage/groups',
    need: OWNER,
    handler: (ctx) => listResponse(ctx, [...ctx.core.state.physicalHosts.values()].map(renderHost)),
  },
  {
    method: 'POST',
    template: '/usage/groups',
    need: OWNER,
    handler: (ctx) => saveHost(ctx, newObjectId(ctx.core.now()), false),
  },
  {
    method: 'GET',
    template: '/usage/groups/{physicalHostId}',
    need: OWNER,
    handler: (ctx) => okResponse(renderHost(requirePhysicalHost(ctx))),
  },
  {
    method: 'PUT',
    template: '/usage/groups/{physicalHostId}',
    need: OWNER,
    handler: (ctx) => {
      const previous = requirePhysicalHost(ctx);
      return saveHost(ctx, previous.id, true);
    },
  },
  {
    method: 'DELETE',
    template: '/usage/groups/{physicalHostId}',
    need: OWNER,
    handler: async (ctx) => {
      const host = requirePhysicalHost(ctx);
      ctx.core.state.physicalHosts.delete(host.id);
      recordAudit(ctx, {
        eventTypeName: 'PHYSICAL_HOST_DELETED_AUDIT',
        hostId: host.id,
        name: host.name,
        status: 'REMOVED',
      });
      await ctx.core.commit();
      return emptyResponse();
    },
  },
];
