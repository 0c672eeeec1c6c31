/** S3-compatible blockstore configurations under `/admin/backup/snapshot/s3Configs` (ids are client-chosen names). */
import { recordAudit } from '../audit.ts';
import { apiErrors } from '../errors.ts';
import { selfLink } from '../http/paginate.ts';
import { renderS3Config, validateS3Config } from '../store/s3-config.ts';
import type { S3ConfigRec } from '../store/state.ts';
import { param, type RequestContext, type Route } from './context.ts';
import { emptyResponse, listResponse, okResponse } from './helpers.ts';

const BASE = '/admin/backup/snapshot/s3Configs';
const READ = { kind: 'global', level: 'READ' } as const;
const OWNER = { kind: 'global', level: 'OWNER' } as const;

function render(ctx: RequestContext, rec: S3ConfigRec) {
  return { ...renderS3Config(rec), links: selfLink(ctx.apiBase, `${BASE}/${encodeURIComponent(rec.id)}`) };
}

function requireConfig(ctx: RequestContext): S3ConfigRec {
  const rec = ctx.core.state.s3Configs.get(param(ctx, 's3ConfigId'));
  if (!rec) throw apiErrors.resourceNotFound(`/api/public/v1.0${ctx.path}`);
  return rec;
}

function params(before: S3ConfigRec | undefined, after: S3ConfigRec | undefined) {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const show = (r: S3ConfigRec | undefined, k: string) => {
    if (r?.[k] === undefined) return null;
    return k === 'awsSecretKey' ? '(redacted)' : JSON.stringify(r[k]);
  };
  return [...keys]
    .filter((k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k]))
    .map((k) => ({ display: k, param: k, old: show(before, k), new: show(after, k) ?? '' }));
}

/** Routes of the S3 blockstore configurations. */
export const s3ConfigRoutes: Route[] = [
  {
    method: 'GET',
    template: BASE,
    need: READ,
    handler: (ctx) =>
      listResponse(
        ctx,
        [...ctx.core.state.s3Configs.values()].map((r) => render(ctx, r)),
      ),
  },
  {
    method: 'POST',
    template: BASE,
    need: OWNER,
    handler: async (ctx) => {
      const rec = validateS3Config(await ctx.json(), undefined);
      if (ctx.core.state.s3Configs.has(rec.id)) throw apiErrors.duplicateName('S3 blockstore configuration', rec.id);
      ctx.core.state.s3Configs.set(rec.id, rec);
      recordAudit(ctx, {
        eventTypeName: 'S3_BLOCKSTORE_CONFIG_ADDED_AUDIT',
        name: rec.id,
        status: 'NEW',
        params: params(undefined, rec),
      });
      await ctx.core.commit();
      return okResponse(render(ctx, rec));
    },
  },
  {
    method: 'GET',
    template: `${BASE}/{s3ConfigId}`,
    need: READ,
    handler: (ctx) => okResponse(render(ctx, requireConfig(ctx))),
  },
  {
    method: 'PUT',
    template: `${BASE}/{s3ConfigId}`,
    need: OWNER,
    handler: async (ctx) => {
      requireConfig(ctx);
      const body = await ctx.json();
      const previous = requireConfig(ctx);
      const rec = validateS3Config(body, previous.id, previous);
      ctx.core.state.s3Configs.set(rec.id, rec);
      recordAudit(ctx, {
        eventTypeName: 'S3_BLOCKSTORE_CONFIG_UPDATED_AUDIT',
        name: rec.id,
        params: params(previous, rec),
      });
      await ctx.core.commit();
      return okResponse(render(ctx, rec));
    },
  },
  {
    method: 'DELETE',
    template: `${BASE}/{s3ConfigId}`,
    need: OWNER,
    handler: async (ctx) => {
      const previous = requireConfig(ctx);
      ctx.core.state.s3Configs.delete(previous.id);
      recordAudit(ctx, { eventTypeName: 'S3_BLOCKSTORE_CONFIG_DELETED_AUDIT', name: previous.id, status: 'REMOVED' });
      await ctx.core.commit();
      return emptyResponse();
    },
  },
];
