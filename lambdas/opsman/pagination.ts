/**
 * Pagination: follows `rel=next` links page by page. A next link is followed only when it stays on the client's own
 * origin and under its base path; otherwise (an Ops Manager whose central URL differs from the address the client uses)
 * only its pageNum is taken and applied to the client's own URL, so credentials never go anywhere else.
 */
import type { HttpRequest } from './auth-exchange.ts';
import { OpsManagerResponseError } from './errors.ts';
import { basePathOf } from './options-resolve.ts';
import type { RequestExecutor } from './request-executor.ts';
import type { Link } from './types.ts';

/** More pages than this means a server bug (a link loop): 500 items a page, so 5 million items. */
export const MAX_PAGES = 10_000;

function invalid(request: HttpRequest, status: number, why: string): OpsManagerResponseError {
  return new OpsManagerResponseError(status, `${request.method} ${request.pathTemplate}: ${why}`, {
    method: request.method,
    pathTemplate: request.pathTemplate,
  });
}

/** Where the page after `current` is, or null on the last page. */
export function nextPageUrl(links: unknown, current: URL, base: URL): URL | null {
  if (!Array.isArray(links)) return null;
  const next = links.find(
    (link): link is Link => typeof link === 'object' && link !== null && (link as Link).rel === 'next',
  );
  if (next === undefined || typeof next.href !== 'string') return null;
  let target: URL;
  try {
    target = new URL(next.href, current);
  } catch {
    return null;
  }
  const basePath = `${basePathOf(base)}/`;
  if (target.origin === base.origin && target.pathname.startsWith(basePath)) return target;
  const pageNum = target.searchParams.get('pageNum');
  if (pageNum === null || !/^\d+$/.test(pageNum)) return null;
  const own = new URL(current);
  own.searchParams.set('pageNum', pageNum);
  return own;
}

/** Yields every item of every page of a list request (GET, whose URL already carries itemsPerPage and pageNum=1). */
export async function* paginate<T>(executor: RequestExecutor, first: HttpRequest, base: URL): AsyncGenerator<T> {
  let request: HttpRequest = first;
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    if (page > MAX_PAGES) throw invalid(request, 200, `more than ${MAX_PAGES} pages; the next links loop`);
    seen.add(request.url.href);
    const response = await executor.execute(request);
    let envelope: unknown;
    try {
      envelope = JSON.parse(response.text);
    } catch (error) {
      throw invalid(request, response.status, `the list response is not JSON (${(error as Error).message})`);
    }
    const results = (envelope as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) throw invalid(request, response.status, 'the list response has no results array');
    // Every list of the API holds objects: a null or a bare value is a broken answer, named here rather than met as a
    // TypeError by whoever reads the item.
    const odd = results.findIndex((item) => item === null || typeof item !== 'object' || Array.isArray(item));
    if (odd >= 0)
      throw invalid(request, response.status, `the list response's results[${odd}] (page ${page}) is not an object`);
    for (const item of results) yield item as T;
    const next = nextPageUrl((envelope as { links?: unknown }).links, request.url, base);
    if (next === null || results.length === 0) return;
    if (seen.has(next.href)) throw invalid(request, response.status, 'the next link points to a page already read');
    request = { ...request, url: next };
  }
}

/** Every item of a list, all pages. */
export async function listAll<T>(executor: RequestExecutor, first: HttpRequest, base: URL): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate<T>(executor, first, base)) items.push(item);
  return items;
}
