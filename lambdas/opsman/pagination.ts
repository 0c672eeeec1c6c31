/**
 * Pagination: follows `rel=next` links page by page. A next link is followed only when it stays on the client's own
 * origin and under its base path, with the list's own query parameters it leaves out (itemsPerPage, the filters)
 * added back; otherwise (an Ops Manager whose central URL differs from the address the client uses)
 * only its pageNum is taken and applied to the client's own URL, so credentials never go anywhere else. A next link
 * that cannot be followed fails the list (it says more pages exist: ending there would be a partial read). An envelope
 * with no `links` array at all (the spec promises one; a server may still leave it out or send null) is paged by
 * pageNum: on while `totalCount` says more items exist, or, without a count, while pages come back full.
 *
 * The pages must also agree with each other (a list read from pages that do not is refused, never planned from): a
 * `totalCount`, when sent, is a non-negative integer, the same on every page, never below the items served, and met
 * exactly by the last page; and no `id` comes back twice. Offset paging over a list that changes between two pages
 * skips an item or serves one twice, and a skipped item would be planned as absent (created again). An event list grows
 * at its head while it is read (PageOptions.growing): it is read as it comes, each event once.
 */
import { isRecord } from '../../shared/is-record.ts';
import type { HttpRequest } from './auth-exchange.ts';
import { OpsManagerResponseError } from './errors.ts';
import { nestsDeeperThan, TOO_DEEP } from './json-depth.ts';
import { notJsonReason } from './not-json.ts';
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

/** A `rel=next` link that is there but cannot be followed: thrown by {@link nextPageUrl}. */
export class UnusableNextLinkError extends Error {
  override name = 'UnusableNextLinkError';
}

/** The relation type of a link, lower-cased (RFC 8288 section 2.1.1: relation types compare case-insensitively). */
function relOf(link: unknown): string | undefined {
  if (typeof link !== 'object' || link === null) return undefined;
  const rel = (link as Link).rel;
  return typeof rel === 'string' ? rel.trim().toLowerCase() : undefined;
}

/**
 * Where the page after `current` is, or null when `links` has no next link (the last page). Throws
 * {@link UnusableNextLinkError} for a next link without a usable href.
 */
export function nextPageUrl(links: unknown, current: URL, base: URL): URL | null {
  if (!Array.isArray(links)) return null;
  const next: unknown = links.find((link) => relOf(link) === 'next');
  if (next === undefined) return null;
  const href = (next as { href?: unknown }).href;
  if (typeof href !== 'string' || href.trim() === '') throw new UnusableNextLinkError('the next link has no href');
  let target: URL;
  try {
    target = new URL(href, current);
  } catch {
    throw new UnusableNextLinkError('the next link is not a URL');
  }
  const basePath = `${basePathOf(base)}/`;
  if (target.origin === base.origin && target.pathname.startsWith(basePath)) return withOwnQuery(target, current);
  const pageNum = target.searchParams.get('pageNum');
  if (pageNum === null || !/^\d+$/.test(pageNum)) {
    // Its host is not followed (credentials stay with the client's own origin), and without a pageNum there is
    // nothing of it to apply to the client's own URL.
    throw new UnusableNextLinkError('the next link points outside the base URL and carries no pageNum');
  }
  const own = new URL(current);
  own.searchParams.set('pageNum', pageNum);
  return own;
}

/**
 * A next link to the same list, with every query parameter of `current` that it leaves out added back (the link's own
 * values win where it has them). The spec says a next link exists, not what its href carries: a server that writes
 * it as `?pageNum=2` alone would otherwise get the next page asked with its default itemsPerPage (100, not ours, so
 * the page overlaps the one read) and without the list's own filters (startDate and endDate, which it requires,
 * eventType, minDate). A link to another path is taken as given, and pageNum is never added (a link without one pages
 * some other way, say a cursor: our pageNum=1 would ask the first page again).
 */
function withOwnQuery(target: URL, current: URL): URL {
  if (target.pathname !== current.pathname) return target;
  const own = current.searchParams;
  // Never pageNum: where the next page is, is the link's to say (one without it pages some other way).
  const missing = [...new Set(own.keys())].filter((name) => name !== 'pageNum' && !target.searchParams.has(name));
  if (missing.length === 0) return target;
  const merged = new URL(target);
  for (const name of missing) for (const value of own.getAll(name)) merged.searchParams.append(name, value);
  return merged;
}

/**
 * The page after `current` for an envelope without a links array: pageNum + 1 on the client's own URL while
 * `totalCount` (when it is a number) exceeds the items read so far, or, without a count, while the page was full.
 */
function pageByNumber(current: URL, envelope: { totalCount?: unknown }, pageLength: number, read: number): URL | null {
  if (pageLength === 0) return null;
  const total = envelope.totalCount;
  if (typeof total === 'number' && Number.isFinite(total)) {
    if (read >= total) return null;
  } else {
    const size = Number(current.searchParams.get('itemsPerPage'));
    if (!(size > 0) || pageLength < size) return null;
  }
  const pageNum = Number(current.searchParams.get('pageNum') ?? '1');
  const own = new URL(current);
  own.searchParams.set('pageNum', String((Number.isInteger(pageNum) && pageNum > 0 ? pageNum : 1) + 1));
  return own;
}

/** A server's value as a message quotes it: JSON (control characters escaped), clipped to 80 characters. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** How the pages of a list must agree: see {@link PageConsistency}. */
export interface PageOptions {
  /**
   * The list grows at its head while it is read (events, newest first): a new event shifts the pages, so the count
   * may rise and an item come back on the next page. Such a list is read as it comes, each id once; the count is not
   * held against the pages. Default false: every disagreement refuses the list.
   */
  growing?: boolean;
}

/**
 * What the pages of one list said so far, checked page by page: the first problem found throws, naming the page and
 * the values that disagree. A growing list (PageOptions) is only checked for a count that is no count, and an item
 * served again is dropped instead.
 */
class PageConsistency {
  /** The totalCount of the first page that sent one (null: none sent yet). */
  #total: number | null = null;
  #read = 0;
  /** Page on which each text id was served. */
  readonly #ids = new Map<string, number>();
  readonly #growing: boolean;

  constructor(growing: boolean) {
    this.#growing = growing;
  }

  /**
   * Checks one page's count and ids: the problem, or the page's items to yield when the page agrees with the earlier
   * ones (all of them, but for a growing list's items already served).
   */
  page(page: number, totalCount: unknown, results: readonly unknown[]): { problem: string } | { items: unknown[] } {
    if (totalCount !== undefined && totalCount !== null) {
      if (typeof totalCount !== 'number' || !Number.isSafeInteger(totalCount) || totalCount < 0) {
        return { problem: `totalCount ${quoted(totalCount)} (page ${page}) is not a non-negative integer` };
      }
      if (!this.#growing) {
        if (this.#total !== null && totalCount !== this.#total) {
          return {
            problem: `totalCount changed from ${this.#total} to ${totalCount} on page ${page}: the list changed while it was read, so a page may have skipped or repeated items`,
          };
        }
        this.#total = totalCount;
      }
    }
    if (this.#growing) return { items: this.#fresh(results, page) };
    for (let i = 0; i < results.length; i++) {
      const id = (results[i] as { id?: unknown }).id;
      if (typeof id !== 'string') continue;
      const earlier = this.#ids.get(id);
      if (earlier !== undefined) {
        return {
          problem: `the id ${quoted(id)} is served twice (page ${earlier} and page ${page}): the pages overlap`,
        };
      }
      this.#ids.set(id, page);
    }
    this.#read += results.length;
    if (this.#total !== null && this.#read > this.#total) {
      return { problem: `page ${page} brings the items served to ${this.#read}, more than totalCount ${this.#total}` };
    }
    return { items: [...results] };
  }

  /** A growing list's items not served on an earlier page. */
  #fresh(results: readonly unknown[], page: number): unknown[] {
    return results.filter((item) => {
      const id = (item as { id?: unknown }).id;
      if (typeof id !== 'string') return true;
      if (this.#ids.has(id)) return false;
      this.#ids.set(id, page);
      return true;
    });
  }

  /** Checks the end of the list (no further page): the problem, or undefined when the count was met. */
  end(page: number): string | undefined {
    if (this.#growing || this.#total === null || this.#read === this.#total) return undefined;
    return `the last page (${page}) ends the list after ${this.#read} item(s), but totalCount is ${this.#total}`;
  }
}

/** Yields every item of every page of a list request (GET, whose URL already carries itemsPerPage and pageNum=1). */
export async function* paginate<T>(
  executor: RequestExecutor,
  first: HttpRequest,
  base: URL,
  options: PageOptions = {},
): AsyncGenerator<T> {
  let request: HttpRequest = first;
  const seen = new Set<string>();
  let read = 0;
  /** The text of the previous page's results when it was reached by pageNum (no links): a repeat means pageNum is ignored. */
  let previousByNumber: string | undefined;
  const consistency = new PageConsistency(options.growing === true);
  for (let page = 1; ; page++) {
    if (page > MAX_PAGES) throw invalid(request, 200, `more than ${MAX_PAGES} pages; the next links loop`);
    seen.add(request.url.href);
    const response = await executor.execute(request);
    // A 204 or an empty 200 is no page at all: said as such, not as V8's "Unexpected end of JSON input".
    if (response.text.trim() === '') {
      throw invalid(request, response.status, `the list response (page ${page}) is empty (status ${response.status})`);
    }
    let envelope: unknown;
    try {
      envelope = JSON.parse(response.text);
    } catch (error) {
      throw invalid(request, response.status, `the list response is not JSON (${notJsonReason(error, response)})`);
    }
    if (nestsDeeperThan(envelope))
      throw invalid(request, response.status, `the list response (page ${page}) ${TOO_DEEP}`);
    const results = (envelope as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) throw invalid(request, response.status, 'the list response has no results array');
    // Every list of the API holds objects: a null or a bare value is a broken answer, named here rather than met as a
    // TypeError by whoever reads the item.
    const odd = results.findIndex((item) => !isRecord(item));
    if (odd >= 0)
      throw invalid(request, response.status, `the list response's results[${odd}] (page ${page}) is not an object`);
    const links = (envelope as { links?: unknown }).links;
    let next: URL | null;
    try {
      next = nextPageUrl(links, request.url, base);
    } catch (error) {
      if (!(error instanceof UnusableNextLinkError)) throw error;
      throw invalid(request, response.status, `${error.message} (page ${page}); the list is not read partially`);
    }
    if (!Array.isArray(links) && results.length > 0) {
      const text = JSON.stringify(results);
      if (text === previousByNumber)
        throw invalid(request, response.status, `page ${page} repeats page ${page - 1}: the server ignores pageNum`);
      previousByNumber = text;
    }
    // After the pageNum check above, whose message says more about a server that ignores pageNum.
    const totalCount = (envelope as { totalCount?: unknown }).totalCount;
    const checked = consistency.page(page, totalCount, results);
    if ('problem' in checked) {
      throw invalid(request, response.status, `${checked.problem}; the list is not read partially`);
    }
    for (const item of checked.items) yield item as T;
    read += results.length;
    if (!Array.isArray(links))
      next = pageByNumber(request.url, envelope as { totalCount?: unknown }, results.length, read);
    if (next === null || results.length === 0) {
      const short = consistency.end(page);
      if (short !== undefined) throw invalid(request, response.status, `${short}; the list is not read partially`);
      return;
    }
    if (seen.has(next.href)) throw invalid(request, response.status, 'the next link points to a page already read');
    request = { ...request, url: next };
  }
}

/**
 * The first `max` items of a list: stops pulling as soon as it has them, so a paged list requests no page past them
 * (the generator is closed while it waits at its last yielded item).
 */
export async function firstItems<T>(items: AsyncIterable<T>, max: number): Promise<T[]> {
  const taken: T[] = [];
  if (max <= 0) return taken;
  for await (const item of items) {
    taken.push(item);
    if (taken.length >= max) break;
  }
  return taken;
}

/** Every item of a list, all pages. */
export async function listAll<T>(
  executor: RequestExecutor,
  first: HttpRequest,
  base: URL,
  options: PageOptions = {},
): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate<T>(executor, first, base, options)) items.push(item);
  return items;
}
