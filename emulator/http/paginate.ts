/**
 * List envelopes: one page of results, `totalCount`, and absolute links. Each href keeps the request's own query
 * first, then pageNum and itemsPerPage, as the real product writes them.
 */
import type { Link } from '../alerts/render.ts';
import type { CommonQuery } from './query.ts';

/** Where a list was requested: the API base URL (absolute), the path after it, and the raw query string. */
export interface ListLocation {
  apiBase: string;
  path: string;
  rawQuery: string;
}

/** The href of page `page` of a list. */
export function pageHref(loc: ListLocation, page: number, itemsPerPage: number): string {
  const kept = loc.rawQuery.split('&').filter((part) => {
    if (part === '') return false;
    const name = decodeQueryName(part.split('=')[0] ?? '');
    return name !== 'pageNum' && name !== 'itemsPerPage';
  });
  kept.push(`pageNum=${page}`, `itemsPerPage=${itemsPerPage}`);
  return `${loc.apiBase}${loc.path}?${kept.join('&')}`;
}

function decodeQueryName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** One page of `items` in the list envelope. */
export function paginate<T>(
  items: readonly T[],
  q: CommonQuery,
  loc: ListLocation,
): { links: Link[]; results: T[]; totalCount: number } {
  const start = (q.pageNum - 1) * q.itemsPerPage;
  const results = items.slice(start, start + q.itemsPerPage);
  const links: Link[] = [{ href: pageHref(loc, q.pageNum, q.itemsPerPage), rel: 'self' }];
  if (q.pageNum > 1) links.push({ href: pageHref(loc, q.pageNum - 1, q.itemsPerPage), rel: 'previous' });
  if (start + q.itemsPerPage < items.length)
    links.push({ href: pageHref(loc, q.pageNum + 1, q.itemsPerPage), rel: 'next' });
  // Always present, includeCount=false too: the spec's "Every list response has" totalCount wins over the reference's
  // (Atlas-like) omission.
  return { links, results, totalCount: items.length };
}

/** The single `self` link of an entity at `path`. */
export function selfLink(apiBase: string, path: string): Link[] {
  return [{ href: `${apiBase}${path}`, rel: 'self' }];
}
