/** Alert configurations: list, get, create, full replace (PUT), enable/disable (PATCH), delete. */

import { carryNewerMembers, withNewerMembers } from '../admin/newer-members.ts';
import { MATCHER_FIELDS } from '../alerts/catalog.ts';
import { alertDiffParams } from '../alerts/diffs.ts';
import { renderAlertConfig } from '../alerts/render.ts';
import { validateAlertConfig } from '../alerts/validate.ts';
import { recordAudit } from '../audit.ts';
import { apiErrors } from '../errors.ts';
import { selfLink } from '../http/paginate.ts';
import { isoSeconds, newObjectId } from '../ids.ts';
import { groupAlerts, type StoredAlertConfig } from '../store/state.ts';
import { param, type RequestContext, type Route } from './context.ts';
import { emptyResponse, jsonObject, listResponse, okResponse, requireGroup } from './helpers.ts';

const BASE = '/groups/{groupId}/alertConfigs';
const ONE = `${BASE}/{alertConfigId}`;

function render(ctx: RequestContext, cfg: StoredAlertConfig): Record<string, unknown> {
  const teams = ctx.core.state.teams;
  const answer = renderAlertConfig(
    cfg,
    selfLink(ctx.apiBase, `/groups/${cfg.groupId}/alertConfigs/${cfg.id}`),
    (id) => teams.get(id)?.name,
  );
  return withNewerMembers(cfg, answer);
}

function requireConfig(ctx: RequestContext): StoredAlertConfig {
  const group = requireGroup(ctx);
  const id = param(ctx, 'alertConfigId');
  const cfg = ctx.core.state.alertConfigs.get(group.id)?.get(id);
  if (!cfg) throw apiErrors.alertConfigNotFound(id, group.id);
  return cfg;
}

async function create(ctx: RequestContext) {
  const group = requireGroup(ctx);
  const now = ctx.core.now();
  const v = validateAlertConfig(await ctx.json(), { groupId: group.id, mode: 'create', newId: () => newObjectId(now) });
  // Counted after the body arrived, with no await before the insert: concurrent POSTs cannot overshoot the cap.
  const configs = groupAlerts(ctx.core.state, group.id);
  const max = ctx.core.limits.maxAlertConfigsPerGroup;
  if (configs.size >= max) throw apiErrors.maxAlertConfigsExceeded(max, group.id);
  const stamp = isoSeconds(now);
  const cfg: StoredAlertConfig = { id: newObjectId(now), groupId: group.id, created: stamp, updated: stamp, ...v };
  configs.set(cfg.id, cfg);
  recordAudit(ctx, {
    eventTypeName: 'ALERT_CONFIG_ADDED_AUDIT',
    groupId: group.id,
    alertConfigId: cfg.id,
    params: alertDiffParams(undefined, cfg),
    status: 'NEW',
    name: cfg.eventTypeName,
  });
  await ctx.core.commit();
  return okResponse(render(ctx, cfg));
}

async function replace(ctx: RequestContext) {
  requireConfig(ctx);
  const body = await ctx.json();
  // Re-read after the body arrived: a concurrent DELETE or PUT may have happened meanwhile.
  const previous = requireConfig(ctx);
  const now = ctx.core.now();
  const v = validateAlertConfig(body, {
    groupId: previous.groupId,
    mode: 'replace',
    previous,
    newId: () => newObjectId(now),
  });
  const cfg: StoredAlertConfig = {
    id: previous.id,
    groupId: previous.groupId,
    created: previous.created,
    updated: isoSeconds(now),
    ...v,
  };
  groupAlerts(ctx.core.state, cfg.groupId).set(cfg.id, cfg);
  recordAudit(ctx, {
    eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
    groupId: cfg.groupId,
    alertConfigId: cfg.id,
    params: alertDiffParams(previous, cfg),
    name: cfg.eventTypeName,
  });
  await ctx.core.commit();
  return okResponse(render(ctx, cfg));
}

async function toggle(ctx: RequestContext) {
  requireConfig(ctx);
  const body = await jsonObject(ctx);
  const previous = requireConfig(ctx);
  for (const key of Object.keys(body)) if (key !== 'enabled') throw apiErrors.invalidAttribute(key);
  if (body.enabled === undefined || body.enabled === null) throw apiErrors.missingAttribute('enabled');
  if (typeof body.enabled !== 'boolean') throw apiErrors.invalidJsonAttribute('enabled');
  const cfg: StoredAlertConfig = { ...previous, enabled: body.enabled, updated: isoSeconds(ctx.core.now()) };
  carryNewerMembers(previous, cfg);
  groupAlerts(ctx.core.state, cfg.groupId).set(cfg.id, cfg);
  recordAudit(ctx, {
    eventTypeName: body.enabled ? 'ALERT_CONFIG_ENABLED_AUDIT' : 'ALERT_CONFIG_DISABLED_AUDIT',
    groupId: cfg.groupId,
    alertConfigId: cfg.id,
    params: alertDiffParams(previous, cfg),
    name: cfg.eventTypeName,
  });
  await ctx.core.commit();
  return okResponse(render(ctx, cfg));
}

async function remove(ctx: RequestContext) {
  const previous = requireConfig(ctx);
  ctx.core.state.alertConfigs.get(previous.groupId)?.delete(previous.id);
  recordAudit(ctx, {
    eventTypeName: 'ALERT_CONFIG_DELETED_AUDIT',
    groupId: previous.groupId,
    alertConfigId: previous.id,
    params: alertDiffParams(previous, undefined),
    status: 'REMOVED',
    name: previous.eventTypeName,
  });
  await ctx.core.commit();
  return emptyResponse();
}

/** Routes of alert configurations. */
export const alertConfigRoutes: Route[] = [
  {
    method: 'GET',
    template: BASE,
    need: { kind: 'group', level: 'READ_ONLY' },
    handler: (ctx) => {
      const group = requireGroup(ctx);
      const configs = [...(ctx.core.state.alertConfigs.get(group.id)?.values() ?? [])];
      return listResponse(ctx, configs, (c) => render(ctx, c));
    },
  },
  { method: 'POST', template: BASE, need: { kind: 'group', level: 'MONITORING_ADMIN' }, handler: create },
  {
    method: 'GET',
    template: ONE,
    need: { kind: 'group', level: 'READ_ONLY' },
    handler: (ctx) => okResponse(render(ctx, requireConfig(ctx))),
  },
  { method: 'PUT', template: ONE, need: { kind: 'group', level: 'MONITORING_ADMIN' }, handler: replace },
  { method: 'PATCH', template: ONE, need: { kind: 'group', level: 'MONITORING_ADMIN' }, handler: toggle },
  { method: 'DELETE', template: ONE, need: { kind: 'group', level: 'MONITORING_ADMIN' }, handler: remove },
  {
    method: 'GET',
    template: '/alertConfigs/matchers/fieldNames',
    need: { kind: 'any' },
    // The names the validator accepts, in the reference's order (a bare JSON array).
    handler: () => okResponse([...MATCHER_FIELDS]),
  },
];
