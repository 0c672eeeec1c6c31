/** Lookups shared by the route handlers: the project or organization of the path, or the reference's 404. */
import { isRecord } from '../../shared/is-record.ts';
import { apiErrors } from '../errors.ts';
import { paginate } from '../http/paginate.ts';
import type { ApiResponse } from '../http/respond.ts';
import type { Group, Org } from '../store/state.ts';
import { param, type RequestContext } from './context.ts';

/** The project `{groupId}` of the path, or 404 GROUP_NOT_FOUND. */
export function requireGroup(ctx: RequestContext): Group {
  const id = param(ctx, 'groupId');
  const group = ctx.core.state.groups.get(id);
  if (!group) throw apiErrors.groupNotFound(id);
  return group;
}

/** The organization `{orgId}` of the path, or 404 ORG_NOT_FOUND. */
export function requireOrg(ctx: RequestContext): Org {
  const id = param(ctx, 'orgId');
  const org = ctx.core.state.orgs.get(id);
  if (!org) throw apiErrors.orgNotFound(id);
  return org;
}

/**
 * A 200 list response of one page of `items`. With `render`, only the page's items are rendered: a client reading a
 * list of thousands page by page would otherwise have every item rendered for every page (quadratic in the list).
 */
export function listResponse<T>(ctx: RequestContext, items: readonly T[], render?: (item: T) => unknown): ApiResponse {
  const page = paginate(items, ctx.common, { apiBase: ctx.apiBase, path: ctx.path, rawQuery: ctx.rawQuery });
  return {
    status: 200,
    kind: 'list',
    body: render === undefined ? page : { ...page, results: page.results.map(render) },
  };
}

/** A 200 single-entity response. */
export function okResponse(body: unknown): ApiResponse {
  return { status: 200, kind: 'single', body };
}

/** A 200 response without a body. */
export function emptyResponse(): ApiResponse {
  return { status: 200, kind: 'single' };
}

/** The request body as a JSON object, or 400 INVALID_JSON. */
export async function jsonObject(ctx: RequestContext): Promise<Record<string, unknown>> {
  const body = await ctx.json();
  if (!isRecord(body)) throw apiErrors.invalidJson();
  return body as Record<string, unknown>;
}
