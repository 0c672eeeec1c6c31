/** Teams, audit-log rotation, and the version manifest. */
import { isRecord } from '../../shared/is-record.ts';
import { recordAudit } from '../audit.ts';
import { apiErrors } from '../errors.ts';
import { parseJsonBody } from '../http/body.ts';
import { selfLink } from '../http/paginate.ts';
import { validateAuditLogRotate } from '../store/resources.ts';
import type { AuditLogRotateRec } from '../store/state.ts';
import { param, type Route } from './context.ts';
import { okResponse, requireGroup, requireOrg } from './helpers.ts';

const ROTATE = '/groups/{groupId}/automationConfig/auditLogRotateConfig';

function rotateParams(before: AuditLogRotateRec | undefined, after: AuditLogRotateRec | null) {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]) as Set<keyof AuditLogRotateRec>;
  return [...keys]
    .map((k) => ({
      display: `Audit log rotation ${k}`,
      param: `auditLogRotate.${k}`,
      old: before?.[k] === undefined ? null : String(before[k]),
      new: after?.[k] === undefined ? '' : String(after[k]),
    }))
    .filter((p) => p.old !== p.new);
}

/** Routes of teams, audit-log rotation and the version manifest. */
export const settingsRoutes: Route[] = [
  {
    method: 'GET',
    template: '/orgs/{orgId}/teams/{teamId}',
    need: { kind: 'org', level: 'MEMBER' },
    handler: (ctx) => {
      const org = requireOrg(ctx);
      const team = ctx.core.state.teams.get(param(ctx, 'teamId'));
      if (!team || team.orgId !== org.id) throw apiErrors.resourceNotFound(`/api/public/v1.0${ctx.path}`);
      return okResponse({
        id: team.id,
        name: team.name,
        links: selfLink(ctx.apiBase, `/orgs/${org.id}/teams/${team.id}`),
      });
    },
  },
  {
    method: 'GET',
    template: ROTATE,
    need: { kind: 'group', level: 'AUTOMATION_ADMIN' },
    handler: (ctx) => okResponse({ ...(ctx.core.state.auditLogRotate.get(requireGroup(ctx).id) ?? {}) }),
  },
  {
    method: 'PUT',
    template: ROTATE,
    need: { kind: 'group', level: 'AUTOMATION_ADMIN' },
    handler: async (ctx) => {
      const group = requireGroup(ctx);
      const body = await ctx.json();
      const config = validateAuditLogRotate(body === undefined ? {} : body);
      const before = ctx.core.state.auditLogRotate.get(group.id);
      if (config) ctx.core.state.auditLogRotate.set(group.id, config);
      else ctx.core.state.auditLogRotate.delete(group.id);
      recordAudit(ctx, {
        eventTypeName: 'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
        groupId: group.id,
        diffType: 'PROCESS',
        name: 'auditLogRotate',
        params: rotateParams(before, config),
      });
      await ctx.core.commit();
      return okResponse({});
    },
  },
  {
    method: 'GET',
    template: '/unauth/versionManifest',
    need: { kind: 'any' },
    unauthenticated: true,
    prettyOnly: true,
    handler: (ctx) => {
      const text = ctx.core.state.versionManifest;
      if (text === null) throw apiErrors.resourceNotFound('/api/public/v1.0/unauth/versionManifest');
      return { status: 200, rawJson: text };
    },
  },
  {
    method: 'PUT',
    template: '/versionManifest',
    need: { kind: 'global', level: 'AUTOMATION_ADMIN' },
    prettyOnly: true,
    handler: async (ctx) => {
      const text = await ctx.text();
      const doc = parseJsonBody(text);
      if (!isRecord(doc)) throw apiErrors.invalidJson();
      if (doc.versions === undefined) throw apiErrors.missingAttribute('versions');
      if (!Array.isArray(doc.versions)) throw apiErrors.invalidJsonAttribute('versions');
      if (doc.updated !== undefined && typeof doc.updated !== 'number') throw apiErrors.invalidJsonAttribute('updated');
      ctx.core.state.versionManifest = text;
      recordAudit(ctx, {
        eventTypeName: 'VERSION_MANIFEST_UPDATED_AUDIT',
        name: 'versionManifest',
        params: [{ display: 'Manifest updated', param: 'updated', old: null, new: String(doc.updated ?? '') }],
      });
      await ctx.core.commit();
      return { status: 200, rawJson: text };
    },
  },
];
