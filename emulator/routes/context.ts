/** What a route handler receives, and how a route is declared. */
import type { Requirement } from '../auth/roles.ts';
import type { EmulatorCore } from '../core.ts';
import type { CommonQuery } from '../http/query.ts';
import type { ApiResponse } from '../http/respond.ts';
import type { ApiKeyRec } from '../store/state.ts';

/** One authenticated request, routed. */
export interface RequestContext {
  core: EmulatorCore;
  method: string;
  /** The path after the API base, e.g. `/groups/5e22.../alertConfigs`. */
  path: string;
  /** Path parameters by template name. */
  params: Record<string, string>;
  query: URLSearchParams;
  rawQuery: string;
  /**
   * pageNum, itemsPerPage and includeCount, parsed and checked when first read: only list routes read them, so a
   * single-entity endpoint ignores them like any other parameter it does not list.
   */
  readonly common: CommonQuery;
  /** The caller's key (null only on the unauthenticated manifest route). */
  key: ApiKeyRec | null;
  remoteAddress: string;
  /** Absolute base URL of the API, e.g. `http://127.0.0.1:8080/api/public/v1.0`. */
  apiBase: string;
  /** The body parsed as JSON (undefined when empty); 400 INVALID_JSON when malformed. */
  json(): Promise<unknown>;
  /** The body as text. */
  text(): Promise<string>;
}

/** A route: method, template (`/groups/{groupId}/alertConfigs`), the role it needs, and its handler. */
export interface Route {
  method: string;
  template: string;
  need: Requirement;
  /** No authentication at all (GET /unauth/versionManifest). */
  unauthenticated?: boolean;
  /** The endpoint lists `pretty` alone (the version-manifest ones): `envelope` is not one of its parameters. */
  prettyOnly?: boolean;
  handler: (ctx: RequestContext) => Promise<ApiResponse> | ApiResponse;
}

/** Param of a route (present by construction of the template). */
export function param(ctx: RequestContext, name: string): string {
  return ctx.params[name] ?? '';
}
