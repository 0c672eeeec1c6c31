/** Matches a path against route templates: an exact route, a path known under other methods (405), or nothing (404). */
import type { Route } from './routes/context.ts';

/** The outcome of matching. */
export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method'; template: string; allow: string[] }
  | { kind: 'none' };

interface Compiled {
  route: Route;
  segments: string[];
}

/** A router over a fixed route table. */
export class Router {
  private readonly compiled: Compiled[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.template.split('/').slice(1) }));
  }

  /** Matches `method` and `path` (the part after the API base, without query). */
  match(method: string, path: string): RouteMatch {
    const parts = path.split('/').slice(1);
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    let decoded: string[];
    try {
      decoded = parts.map((p) => decodeURIComponent(p));
    } catch {
      return { kind: 'none' };
    }
    const allow: string[] = [];
    let template = '';
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, decoded);
      if (!params) continue;
      const m = method === 'HEAD' ? 'GET' : method;
      if (c.route.method === m) return { kind: 'found', route: c.route, params };
      // HEAD is served wherever GET is (RFC 9110: Allow lists every method the resource supports).
      allow.push(...(c.route.method === 'GET' ? ['GET', 'HEAD'] : [c.route.method]));
      template = c.route.template;
    }
    return allow.length > 0 ? { kind: 'method', template, allow } : { kind: 'none' };
  }
}

function matchSegments(template: string[], parts: string[]): Record<string, string> | null {
  if (template.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i] ?? '';
    const p = parts[i] ?? '';
    if (t.startsWith('{')) {
      if (p === '') return null;
      params[t.slice(1, -1)] = p;
    } else if (t !== p) return null;
  }
  return params;
}
